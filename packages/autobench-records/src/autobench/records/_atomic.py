"""Atomic, never-clobbering file creation for record directories.

:meth:`AtomicFiles.create` writes bytes to a temporary file in the target's
directory, flushes and fdatasyncs (fsync where unavailable) it, then hard-links it to the final name (which
fails, instead of replacing, when the name exists) and removes the temporary
name. On file systems without hard links it falls back to ``os.replace``
after an existence check. A failure leaves nothing under the final name and
raises :class:`RecordingError` naming the path.

Directory entries are made durable by fsyncing the directories that changed.
That is batched: directories are remembered and synced by :meth:`AtomicFiles.sync`
(the record writer calls it after ``experiment.yaml``, every
``DIRECTORY_SYNC_BATCH`` runs and at the end), because one directory fsync per
file would double the cost of writing small run records.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import threading
from pathlib import Path

from autobench.records._errors import RecordingError

_NO_LINK = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK})
_counter = itertools.count()
_sync_file = getattr(os, "fdatasync", os.fsync)
"""fdatasync where available: it flushes the data and the size, all a new file needs."""


class AtomicFiles:
    """Creates files under ``root`` atomically and never over an existing name."""

    def __init__(self, root: Path, *, fsync: bool = True) -> None:
        self.root = root
        self.fsync = fsync
        self._known_dirs: set[Path] = set()
        self._dirty: set[Path] = set()
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()

    def create(self, path: Path, data: bytes) -> None:
        """Create ``path`` holding ``data``; raises :class:`RecordingError` if it exists or
        the storage fails (the message names ``path``)."""
        directory = path.parent
        self.ensure_dir(directory, for_path=path)
        temporary = directory / f".{path.name[:120]}.{os.getpid()}.{next(_counter)}.tmp"
        try:
            descriptor = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644
            )
        except OSError as error:
            raise _error(path, error) from error
        try:
            try:
                with os.fdopen(descriptor, "wb") as stream:
                    stream.write(data)
                    stream.flush()
                    if self.fsync:
                        _sync_file(stream.fileno())
                self._publish(temporary, path)
            except OSError as error:
                raise _error(path, error) from error
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        with self._lock:
            self._dirty.add(directory)

    def _publish(self, temporary: Path, path: Path) -> None:
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise RecordingError(
                f"cannot write {path}: it already exists and records are never overwritten",
                path=path,
            ) from None
        except OSError as error:
            if error.errno not in _NO_LINK:
                raise
            if os.path.lexists(path):
                raise RecordingError(
                    f"cannot write {path}: it already exists and records are never overwritten",
                    path=path,
                ) from None
            os.replace(temporary, path)

    def ensure_dir(self, directory: Path, *, for_path: Path | None = None) -> None:
        """Create ``directory`` and missing parents; their parents are synced later."""
        if directory in self._known_dirs:
            return
        missing: list[Path] = []
        current = directory
        while not current.is_dir():
            missing.append(current)
            if current.parent == current:
                break
            current = current.parent
        for new in reversed(missing):
            try:
                new.mkdir()
            except FileExistsError:
                if not new.is_dir():
                    raise _dir_error(for_path or directory, new, "a file is in the way") from None
            except OSError as error:
                raise _dir_error(
                    for_path or directory, new, error.strerror or str(error)
                ) from error
            with self._lock:
                self._dirty.add(new.parent)
        with self._lock:
            self._known_dirs.add(directory)

    @property
    def pending(self) -> int:
        """How many directories wait for an fsync."""
        return len(self._dirty)

    def sync(self) -> None:
        """fsync every directory whose entries changed since the last call."""
        with self._sync_lock:
            with self._lock:
                dirty, self._dirty = self._dirty, set()
            if self.fsync:
                self._sync_dirs(dirty)

    def _sync_dirs(self, dirty: set[Path]) -> None:
        for directory in sorted(dirty, key=lambda item: len(item.parts), reverse=True):
            try:
                descriptor = os.open(directory, os.O_RDONLY)
            except OSError as error:
                raise _error(directory, error) from error
            try:
                os.fsync(descriptor)
            except OSError as error:
                if error.errno not in (errno.EINVAL, errno.ENOTSUP):
                    raise _error(directory, error) from error
            finally:
                os.close(descriptor)


def _error(path: Path, error: OSError) -> RecordingError:
    reason = error.strerror or str(error)
    return RecordingError(f"cannot write {path}: {reason}", path=path)


def _dir_error(path: Path, directory: Path, reason: str) -> RecordingError:
    return RecordingError(
        f"cannot write {path}: cannot create directory {directory}: {reason}", path=path
    )
