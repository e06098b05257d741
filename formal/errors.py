"""Error types shared by every layer."""
from __future__ import annotations

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


def _shown(value: object) -> str:
    """``repr(value)``, cut to its first characters with its length when longer than
    :data:`SHOWN_CHARS` (an integer of 10⁵ digits stays a one-line message)."""
    text = repr(value)
    if len(text) <= SHOWN_CHARS:
        return text
    unit = "digits" if isinstance(value, int) else "characters"
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
