"""Errors of the record layer: failing to write evidence, and evidence that cannot be read."""

from __future__ import annotations

from pathlib import Path

from autobench.abp import AutobenchError


class RecordingError(AutobenchError):
    """Evidence could not be written: the target exists (records are never overwritten),
    the directory is not usable, or the storage failed (``ENOSPC``, ``EACCES``...).

    ``path`` is the file or directory that could not be written; the message names it.
    """

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else Path(path)


class RecordFormatError(AutobenchError, ValueError):
    """A record file is malformed, has the wrong record type, a newer version than
    this Autobench supports, or content that does not match the record model.

    ``path`` names the file; ``line`` and ``column`` (1-based) are set when the
    problem was located: where the YAML parser stopped, or, for content that does
    not match the model, where the offending value starts. ``str(error)`` carries
    all of them.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        location = "" if path is None else str(path)
        if location and line is not None:
            location += f":{line}" + (f":{column}" if column is not None else "")
        super().__init__(f"{location}: {message}" if location else message)
        self.path = None if path is None else Path(path)
        self.line = line
        self.column = column


class MissingRecordError(RecordFormatError, FileNotFoundError):
    """A record directory or record file that should exist does not.

    It is both a :class:`RecordFormatError` and a ``FileNotFoundError``, so
    callers may catch either.
    """
