"""Located spec errors: every problem in a spec names its file, line and column."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from autobench.abp import AutobenchError
from autobench.core._keys import did_you_mean

__all__ = ["Location", "SpecError", "did_you_mean", "one_of"]


@dataclass(frozen=True, slots=True)
class Location:
    """A position in a YAML file. ``line`` and ``column`` are 1-based; both are ``None``
    when the problem concerns the file as a whole (for example, it does not exist)."""

    path: Path
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return str(self.path)
        return f"{self.path}:{self.line}:{self.column or 1}"


class SpecError(AutobenchError, ValueError):
    """A benchmark spec (or a dataset file it references) is invalid.

    Attributes: ``path`` (the file at fault, as it was referenced), ``line`` and
    ``column`` (1-based, ``None`` for whole-file problems), ``message`` (what is
    wrong) and ``expected`` (what would have been accepted, or ``None``).
    ``str(error)`` reads ``path:line:column: message (expected ...)``, for example
    ``autobench.yaml:12:5: unknown key 'scroe' in benchmark 'x' (expected one of: dataset, ...)``.
    """

    def __init__(self, location: Location, message: str, *, expected: str | None = None) -> None:
        self.location = location
        self.path = location.path
        self.line = location.line
        self.column = location.column
        self.message = message
        self.expected = expected
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        return f"{text} (expected {self.expected})" if self.expected else text

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.location, self.message, self.expected))


def _rebuild(location: Location, message: str, expected: str | None) -> SpecError:
    return SpecError(location, message, expected=expected)


def one_of(names: Iterable[object]) -> str:
    """The ``expected`` text for a choice: ``"one of: a, b, c"`` (names sorted, as given)."""
    return "one of: " + ", ".join(sorted(str(name) for name in names))
