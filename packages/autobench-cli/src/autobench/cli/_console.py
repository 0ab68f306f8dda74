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
from typing import TextIO, cast

import click
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from autobench.abp import (
    DEFAULT_CAPTURE_POLICY,
    AutobenchError,
    CapturePolicy,
    InstrumentationError,
)
from autobench.core.distributions import package_directories
from autobench.core.rescore import UnknownScorerError
from autobench.core.runtime import ResumeError, TaskResolutionError, TaskSignatureError
from autobench.core.scoring import ScorerResolutionError
from autobench.core.spec import SpecError
from autobench.records import LabelsError, RecordFormatError, RecordingError
from autobench.report import UnknownExportFormatError, UnknownVariantError, redact_text

EXIT_ERROR = 1
_IMPORTLIB = Path(importlib.__file__).parent
_AUTOBENCH = tuple(Path(path) for path in package_directories())


class RedactingStream(io.TextIOBase):
    """A text stream writing to ``sys.stdout`` (or ``sys.stderr``) as it is at each write,
    with every secret ``policy`` recognises redacted (:func:`autobench.report.redact_text`).

    Rich writes each ``print`` (and each refresh of a live display) in one call, so a
    secret is redacted wherever a rendered line holds it whole. It asks the stream
    whether it is a terminal and for its encoding: both are the target's.
    """

    def __init__(self, stderr: bool = False, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY):
        self._stderr = stderr
        self.policy = policy

    @property
    def target(self) -> TextIO:
        return sys.stderr if self._stderr else sys.stdout

    def write(self, text: str) -> int:
        self.target.write(redact_text(text, self.policy))
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


def stdout_console(policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> Console:
    """The console of a command's output, redacting with ``policy`` (the policy of the
    record shown, :func:`autobench.report.output_policy`, where there is one)."""
    return Console(file=cast(TextIO, RedactingStream(policy=policy)), highlight=False)


def stderr_console(policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> Console:
    """The console of progress, notes and errors (stderr), redacting with ``policy``."""
    return Console(file=cast(TextIO, RedactingStream(stderr=True, policy=policy)), highlight=False)


class ReportedError(click.exceptions.Exit):
    """Raised after an error panel was printed: ends the command with exit code 1."""

    def __init__(self) -> None:
        super().__init__(EXIT_ERROR)


def show_error(title: str, message: str, hint: str | None = None) -> ReportedError:
    """Print an error panel to stderr; the message is redacted before the panel folds it
    into lines (a folded secret would be cut in parts no pattern recognises)."""
    body = Text(redact_text(message), overflow="fold")
    if hint:
        body.append(f"\n\n{hint}", style="dim")
    stderr_console().print(Panel(body, title=title, title_align="left", border_style="red"))
    return ReportedError()


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn Autobench's user-facing exceptions into an error panel and exit code 1."""
    try:
        yield
    except UnknownScorerError as exc:
        raise show_error("Unknown scorer", str(exc)) from None
    except SpecError as exc:
        raise show_error("Invalid benchmark spec", str(exc)) from None
    except TaskSignatureError as exc:
        raise show_error("Task cannot take (ctx, case)", str(exc)) from None
    except TaskResolutionError as exc:
        raise _task_error(exc) from None
    except ScorerResolutionError as exc:
        raise _task_error(exc, what="Scorer target") from None
    except ResumeError as exc:
        raise show_error("Cannot resume", str(exc)) from None
    except RecordingError as exc:
        raise show_error("Recording failed", str(exc)) from None
    except LabelsError as exc:
        raise show_error("Cannot read labels", str(exc)) from None
    except RecordFormatError as exc:
        raise show_error("Cannot read records", str(exc)) from None
    except UnknownVariantError as exc:
        raise show_error("Unknown variant", str(exc)) from None
    except UnknownExportFormatError as exc:
        raise show_error("Unknown export format", str(exc)) from None
    except InstrumentationError as exc:
        raise show_error(
            "Instrumentation unavailable",
            f"{exc}\n\n`autobench instrumentation doctor` shows what is installed here; "
            "without `strict`, unavailable integrations are skipped.",
        ) from None
    except AutobenchError as exc:  # every other error Autobench raises on purpose
        raise show_error(title_of(exc), str(exc)) from None


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
