"""The consoles the commands print to, and how user-facing errors are shown.

Rich honours ``NO_COLOR`` and plain (non-terminal) stdout by itself; errors go
to stderr in a panel that names the file and YAML location when known. Every
console writes through :class:`RedactingStream`: what a command prints (tables,
panels, progress, errors) passes the output redaction
(:func:`autobench.report.redact_text`) on its way to the terminal.
"""

from __future__ import annotations

import importlib
import io
import re
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

import click
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from autobench.core.distributions import package_directories

if TYPE_CHECKING:
    from autobench.abp import AutobenchError, CapturePolicy
    from autobench.core.runtime import TaskResolutionError
    from autobench.core.scoring import ScorerResolutionError

# The runtime, records and report are imported where an error or an output needs them, not
# with this module: every command imports it, and `autobench COMMAND --help` needs none.

EXIT_ERROR = 1
_IMPORTLIB = Path(importlib.__file__).parent
_AUTOBENCH = tuple(Path(path) for path in package_directories())


class RedactingStream(io.TextIOBase):
    """A text stream writing to ``sys.stdout`` (or ``sys.stderr``) as it is at each write,
    with every secret ``policy`` recognises redacted (:func:`autobench.report.redact_text`).

    Rich writes each ``print`` (and each refresh of a live display) in one call, so a
    secret is redacted wherever a rendered line holds it whole. It asks the stream
    whether it is a terminal and for its encoding: both are the target's.

    While a live display (the progress bar of ``autobench run``) is shown, Rich puts a
    proxy in ``sys.stdout`` and ``sys.stderr`` that prints what a task writes above the
    bar, through the display's console, whose stream is this one: the target is then the
    stream the proxy stands for, or every write would go round that circle for ever.
    """

    def __init__(self, stderr: bool = False, policy: CapturePolicy | None = None):
        self._stderr = stderr
        self.policy = policy
        """The policy of the record shown; ``None``: the default capture policy."""

    @property
    def target(self) -> TextIO:
        stream = sys.stderr if self._stderr else sys.stdout
        return cast(TextIO, getattr(stream, "rich_proxied_file", stream))

    def write(self, text: str) -> int:
        self.target.write(redact(text, self.policy))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", None) or "utf-8"

    def writable(self) -> bool:
        return True


def redact(text: str, policy: CapturePolicy | None = None) -> str:
    """``text`` with every secret ``policy`` (default: the default capture policy)
    recognises redacted: :func:`autobench.report.redact_text`, imported on first use."""
    from autobench.records._output_redaction import redact_text

    return redact_text(text) if policy is None else redact_text(text, policy)


def stdout_console(policy: CapturePolicy | None = None) -> Console:
    """The console of a command's output, redacting with ``policy`` (the policy of the
    record shown, :func:`autobench.report.output_policy`, where there is one)."""
    return Console(file=cast(TextIO, RedactingStream(policy=policy)), highlight=False)


def stderr_console(policy: CapturePolicy | None = None) -> Console:
    """The console of progress, notes and errors (stderr), redacting with ``policy``."""
    return Console(file=cast(TextIO, RedactingStream(stderr=True, policy=policy)), highlight=False)


class ReportedError(click.exceptions.Exit):
    """Raised after an error panel was printed: ends the command with exit code 1."""

    def __init__(self) -> None:
        super().__init__(EXIT_ERROR)


def show_error(title: str, message: str, hint: str | None = None) -> ReportedError:
    """Print an error panel to stderr; the message is redacted before the panel folds it
    into lines (a folded secret would be cut in parts no pattern recognises)."""
    body = Text(redact(message), overflow="fold")
    if hint:
        body.append(f"\n\n{hint}", style="dim")
    stderr_console().print(Panel(body, title=title, title_align="left", border_style="red"))
    return ReportedError()


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn Autobench's user-facing exceptions into an error panel and exit code 1."""
    try:
        yield
    except Exception as exc:
        reported = _reported(exc)
        if reported is None:
            raise
        raise reported from None


def _reported(exc: Exception) -> ReportedError | None:
    """The panel shown for ``exc`` when Autobench raised it on purpose, else ``None``.

    Every such error is an :class:`~autobench.abp.AutobenchError`; when ``autobench.abp``
    was never imported, ``exc`` cannot be one, and nothing more is imported."""
    abp = sys.modules.get("autobench.abp")
    if abp is None or not isinstance(exc, abp.AutobenchError):
        return None
    from autobench.abp import InstrumentationError
    from autobench.core.rescore import UnknownScorerError
    from autobench.core.runtime import ResumeError, TaskResolutionError, TaskSignatureError
    from autobench.core.scoring import ScorerResolutionError
    from autobench.core.spec import SpecError
    from autobench.records import LabelsError, RecordFormatError, RecordingError
    from autobench.report import UnknownExportFormatError, UnknownVariantError

    titles: tuple[tuple[type[Exception], str], ...] = (
        (UnknownScorerError, "Unknown scorer"),
        (SpecError, "Invalid benchmark spec"),
        (TaskSignatureError, "Task cannot take (ctx, case)"),
    )
    for kind, title in titles:
        if isinstance(exc, kind):
            return show_error(title, str(exc))
    if isinstance(exc, TaskResolutionError):
        return _task_error(exc)
    if isinstance(exc, ScorerResolutionError):
        return _task_error(exc, what="Scorer target")
    titles = (
        (ResumeError, "Cannot resume"),
        (RecordingError, "Recording failed"),
        (LabelsError, "Cannot read labels"),
        (RecordFormatError, "Cannot read records"),
        (UnknownVariantError, "Unknown variant"),
        (UnknownExportFormatError, "Unknown export format"),
    )
    for kind, title in titles:
        if isinstance(exc, kind):
            return show_error(title, str(exc))
    if isinstance(exc, InstrumentationError):
        return show_error(
            "Instrumentation unavailable",
            f"{exc}\n\n`autobench instrumentation doctor` shows what is installed here; "
            "without `strict`, unavailable integrations are skipped.",
        )
    return show_error(title_of(exc), str(exc))  # every other error Autobench raises on purpose


def title_of(error: AutobenchError) -> str:
    """A panel title from the error's class: ``PricingError`` -> ``Pricing error``."""
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|$)|[A-Z]?[a-z]+|\d+", type(error).__name__)
    text = " ".join(words).lower() if words else "error"
    return text[:1].upper() + text[1:]


def _task_error(
    exc: TaskResolutionError | ScorerResolutionError, what: str = "Task"
) -> ReportedError:
    """A missing module or attribute is "not found"; a module that raised while importing
    shows the tail of its traceback, since the fault is in that module."""
    cause = exc.__cause__
    missing = (
        cause is None
        or isinstance(cause, AttributeError)
        or (
            isinstance(cause, ModuleNotFoundError)
            and exc.module is not None
            and cause.name is not None
            and (exc.module == cause.name or exc.module.startswith(cause.name + "."))
        )
    )
    if missing:
        return show_error(
            f"{what} not found",
            str(exc),
            "Targets are 'module:attribute', resolved from the spec's directory first.",
        )
    assert cause is not None
    frames = [
        frame
        for frame in traceback.extract_tb(cause.__traceback__)
        if not frame.filename.startswith("<frozen")
        and Path(frame.filename).parent != _IMPORTLIB
        and not any(Path(frame.filename).is_relative_to(root) for root in _AUTOBENCH)
    ]
    trace = "".join([*traceback.format_list(frames), *traceback.format_exception_only(cause)])
    return show_error(f"{what} module failed to import", f"{exc}\n\n{trace.rstrip()}")
