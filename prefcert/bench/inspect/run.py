"""The run behind ``prefcert eval``: one suite on one or more models through Inspect's
:func:`inspect_ai.eval_set`, which writes one log per (task, model) into a folder and,
run again on the same folder, resumes what is unfinished (completed samples are kept) and
skips what is done. Progress, retries and concurrency are Inspect's.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: the defaults of ``prefcert eval`` (Inspect's names)
DEFAULTS = {"temperature": 0.0, "max_tokens": 8192, "max_connections": 8,
            "retry_on_error": 3, "fail_on_error": 0.05}


def check_models(models: Sequence[str]) -> None:
    """InstanceError (one line) for a model Inspect cannot make: an unknown provider, a
    provider whose package is not installed, a missing API key — before any sample runs.
    O(models)."""
    import re

    from inspect_ai.model import get_model

    from ...formal.errors import InstanceError
    for m in models:
        try:
            get_model(m)
        except Exception as e:                 # Inspect's errors for a model it cannot make
            text = re.sub(r"\[/?[a-z ]+\]", "", str(e)).strip()
            said = " ".join(x.strip() for x in text.splitlines() if x.strip())
            raise InstanceError(f"model {m}: {said or type(e).__name__}") from None


def check_log_dir(log_dir: str | Path, benchmark: str | Path | None) -> None:
    """InstanceError (one line naming ``log_dir``) when the log folder is the benchmark
    folder the run reads, or inside it (``prefcert eval --benchmark`` or ``-T
    benchmark=``): the logs would be mixed with the benchmark's files. The benchmark may
    be given as its folder, its prompts file, or its ``data`` folder of Parquet splits
    (or a split in it); its folder is the one holding ``labels.jsonl``. O(path depth)."""
    if benchmark is None:
        return
    from ...output import refuse_within
    b = Path(benchmark)
    folder = b if b.is_dir() else b.parent
    if not (folder / "labels.jsonl").exists() and (folder.parent / "labels.jsonl").exists():
        folder = folder.parent                  # data/ (or a split in it): its benchmark
    refuse_within(log_dir, folder, "benchmark folder")


def evaluate(suite: str, models: Sequence[str], *, log_dir: str | Path,
             limit: int | None = None, epochs: int | None = None,
             task_args: Mapping[str, Any] | None = None, display: str | None = None,
             **config: Any) -> tuple[bool, list]:
    """Run ``prefcert/<suite>`` on ``models`` into ``log_dir``: returns (every log
    complete, the logs). ``config``: Inspect's generation and run options (over
    :data:`DEFAULTS`), e.g. ``temperature``, ``max_tokens``, ``max_connections``,
    ``retry_attempts``. ``epochs``: samples per prompt; None: the task's own (a suite's
    ``epochs`` parameter, else 1). InstanceError, before anything runs, when ``log_dir``
    is (or is inside) the folder of ``task_args["benchmark"]`` (:func:`check_log_dir`)."""
    from inspect_ai import eval_set

    from .tasks import TASKS
    check_log_dir(log_dir, (task_args or {}).get("benchmark"))
    opts = {**DEFAULTS, **{k: v for k, v in config.items() if v is not None}}
    with _no_inspect_verdict():
        ok, logs = eval_set(TASKS[suite](**dict(task_args or {})), log_dir=str(log_dir),
                            model=[offline_mock(m) for m in models], limit=limit,
                            epochs=epochs, display=display, **opts)
    return ok, logs


#: The closing lines of Inspect's eval_set, which prefcert replaces by its own summary: it
#: prints "Completed all tasks in DIR successfully" after a run a Ctrl-C cancelled too.
_INSPECT_VERDICTS = ("Completed all tasks in ", "Did not successfully complete all tasks in ")


@contextmanager
def _no_inspect_verdict() -> Iterator[None]:
    """While Inspect runs, rich consoles drop its closing verdict line
    (:data:`_INSPECT_VERDICTS`); every other line (the progress display, the task
    summaries) is printed as before. Patched on the class, since Inspect reconfigures
    the global console (replacing its attributes); the class's ``print`` is restored."""
    from rich.console import Console
    own = Console.print

    def printed(self: Console, *objects: Any, **kw: Any) -> None:
        if len(objects) == 1 and isinstance(objects[0], str) and \
                any(v in objects[0] for v in _INSPECT_VERDICTS):
            return
        own(self, *objects, **kw)
    Console.print = printed           # type: ignore[method-assign]
    try:
        yield
    finally:
        Console.print = own           # type: ignore[method-assign]


def offline_mock(name: str) -> Any:
    """``name``, or for Inspect's mock provider (``mockllm/...``) that model with its
    default output and token counts set (the character counts), so that a dry run needs
    no network: mockllm otherwise counts tokens with tiktoken, which downloads its table
    on first use."""
    if not name.startswith("mockllm/"):
        return name
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    text = f"Default output from {name}"

    def output(*_: Any) -> Any:        # called with the messages, tools and config
        o = ModelOutput.from_content(model="mockllm", content=text)
        o.usage = ModelUsage(input_tokens=0, output_tokens=len(text), total_tokens=len(text))
        return o
    return get_model(name, custom_outputs=output)
