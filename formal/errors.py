"""Error types shared by every layer."""
from __future__ import annotations

import json
from typing import Any


class InstanceError(ValueError):
    """Bad input: names the file, the line, the agent and the offending value.

    The CLI prints ``str(error)`` on one line and exits with status 2.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 agent: str | None = None, value: object = None) -> None:
        self.message, self.file, self.line, self.agent, self.value = message, file, line, agent, value
        super().__init__(message)

    def located(self, file: str | None = None, line: int | None = None) -> InstanceError:
        """Return a copy with the file and line filled in where missing."""
        return InstanceError(self.message, file=self.file or file, line=self.line or line,
                             agent=self.agent, value=self.value)

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        who = f"agent {self.agent!r}: " if self.agent is not None else ""
        what = f": {_shown(self.value)}" if self.value is not None else ""
        return f"{where}{who}{self.message}{what}".replace("\n", " ")


#: The longest value an error line shows in full; a longer one is cut, with its length.
SHOWN_CHARS = 120


class Verbatim(str):
    """A value as it was written in its file (a number such as ``1e13``, which Python
    would show as ``10000000000000.0``): an error line shows it as is."""


def _json_text(value: object) -> str:
    """``value`` written as JSON (``null``, ``true``, ``{"type": "kth"}``, ``[1e13]``), a
    :class:`Verbatim` part as written; TypeError for a value JSON has no form for."""
    if isinstance(value, Verbatim):
        return str(value)
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(_json_text, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json_text(str(k))}: {_json_text(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(type(value).__name__)


def _shown(value: object) -> str:
    """The value an error line shows: a string in quotes (``'V1'``), any other value as
    JSON (``null``, ``true``, ``{"type": "kth"}``; a :class:`Verbatim` number as written),
    bytes and other non-JSON values as Python shows them; cut to its first characters
    with its length when longer than :data:`SHOWN_CHARS` (an integer of 10⁵ digits stays
    a one-line message)."""
    try:
        text = repr(str(value)) if isinstance(value, str) and not isinstance(
            value, Verbatim) else _json_text(value)
    except (TypeError, RecursionError, ValueError):
        try:
            text = repr(value)
        except (RecursionError, ValueError):
            text = f"<{type(value).__name__}>"
    if len(text) <= SHOWN_CHARS:
        return text
    unit = "digits" if isinstance(value, int) and not isinstance(value, bool) \
        else "characters"
    return f"{text[:SHOWN_CHARS // 2]}… ({len(text)} {unit})"


class CertificateError(Exception):
    """A certificate that the checker rejects; the message says which step fails."""


class Disagreement(Exception):
    """Engines that disagree (or a certificate that fails): never a label.

    ``report`` holds the instance, the question and every engine's answer with the
    checker's verdict on it, as a JSON-able dict.
    """

    def __init__(self, report: dict[str, Any]) -> None:
        self.report = report
        super().__init__(report.get("reason", "engines disagree"))


class Undecided(Exception):
    """No engine could settle the question within its time limit (verdict ``unknown``)."""
