"""Atomic, never-clobbering file creation for record directories.

:meth:`AtomicFiles.create` writes bytes to a temporary file in the target's
directory, flushes and fdatasyncs (fsync where unavailable) it, then hard-links it to the final name (which
fails, instead of replacing, when the name exists) and removes the temporary
name. On file systems without hard links it falls back to ``os.replace``
after an existence check. A failure leaves nothing under the final name and
raises :class:`RecordingError` naming the path.

A record file's ``# yaml-language-server: $schema=urn:autobench:...`` first line
is written as a path relative to the file, to the root's copy of that schema
(``<schema root>/schemas/<version>/<type>.schema.json``, created with the first
file that needs it; the schema root is the root unless given): see
:mod:`autobench.records._schemas`.

Directory entries are made durable by fsyncing the directories that changed.
That is batched: directories are remembered and synced by :meth:`AtomicFiles.sync`
(the record writer calls it after ``experiment.yaml``, after each group of runs and at
the end), because one directory fsync per file would double the cost of writing small
run records.

Group commit (:mod:`autobench.records._group_commit`) splits :meth:`AtomicFiles.create`
in three: :meth:`AtomicFiles.stage` writes a temporary file without flushing it,
:meth:`AtomicFiles.sync_data` makes the data of many staged files durable in one round
and :meth:`AtomicFiles.publish` links one to its final name. On Linux a round is one
``syncfs`` of the file system holding the root (it flushes every file and directory
written there, and reports a write-back error of any of them since the writer opened the
root); elsewhere it is an ``fdatasync`` of each file and an ``fsync`` of each directory.

Paths are taken as :class:`~pathlib.Path` or text and handled as text inside (normalized as
pathlib would: :func:`path_text`): a run's files cost several path operations each, and
each ``pathlib`` operation parses and builds objects (a third of the record writer
process's time on trivial runs went there).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import itertools
import os
import sys
import threading
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from autobench.records._errors import RecordingError
from autobench.records._schemas import (
    autobench_version,
    local_schema_reference,
    record_schema_path,
    record_schema_text,
    relative_schema_header,
)

_NO_LINK = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK})
_counter = itertools.count()
_sync_file = getattr(os, "fdatasync", os.fsync)
"""fdatasync where available: it flushes the data and the size, all a new file needs."""


def _load_syncfs() -> Any:
    """libc's ``syncfs(fd)`` on Linux (called without the GIL), else ``None``."""
    if sys.platform != "linux":
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


_syncfs = _load_syncfs()


PathLike = str | os.PathLike[str]

_SEP = os.sep
_POSIX = os.sep == "/" and os.altsep is None
"""Paths are handled with string operations where ``/`` is the only separator; elsewhere
each is normalized by :class:`~pathlib.Path` first."""


def path_text(path: PathLike) -> str:
    """``path`` as text, normalized as :class:`~pathlib.Path` would write it (no empty or
    ``.`` segment, no trailing separator), so that equal paths have equal text."""
    text = os.fspath(path)
    if (
        not _POSIX
        or "//" in text
        or "/./" in text
        or text.endswith(("/", "/."))
        or text.startswith("./")
    ):
        return os.fspath(Path(text))
    return text


def parent_text(text: str) -> str:
    """The parent of a normalized path's text (``"."`` for a bare name, as pathlib has it)."""
    if not _POSIX or text.startswith("//"):  # (POSIX leaves a root of two slashes as it is)
        return os.fspath(Path(text).parent)
    return text.rpartition("/")[0] or ("/" if text.startswith("/") else ".")


def _temporary_name(text: str) -> str:
    """A new temporary name beside the file ``text`` (normalized)."""
    head, sep, name = text.rpartition(_SEP)
    return f"{head}{sep}.{name[:120]}.{os.getpid()}.{next(_counter)}.tmp"


KNOWN_DIRS = 4096
"""How many existing directories an :class:`AtomicFiles` remembers (``ensure_dir``)."""


class AtomicFiles:
    """Creates files under ``root`` atomically and never over an existing name."""

    def __init__(self, root: Path, *, fsync: bool = True, schema_root: Path | None = None) -> None:
        self.root = root
        self.schema_root = root if schema_root is None else schema_root
        """Where the ``schemas/<version>/`` directory the files' headers name lives."""
        self.fsync = fsync
        self._root_text = path_text(root)
        self._known_dirs: dict[str, None] = {}
        """Directories that exist, the latest :data:`KNOWN_DIRS` made or met (oldest first):
        each run has directories of its own, so keeping every one would grow with the
        experiment; a directory forgotten and needed again costs one ``mkdir`` call."""
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._schemas: set[Path] = set()
        schema_root_text = path_text(self.schema_root)
        self._schema_prefix = schema_root_text.rstrip(_SEP) + _SEP
        self._headers: dict[tuple[int, str, str], bytes] = {}
        self._schema_files: dict[tuple[str, str], Path] = {}
        """``(version, record type)`` -> the root's copy of that schema, once written."""
        self._schema_lock = threading.Lock()
        self._root_fd: int | None = None
        """The root, open from the first staged file on: what ``syncfs`` flushes."""
        self._root_closer: weakref.finalize[Any, Any] | None = None

    def create(self, path: PathLike, data: bytes) -> None:
        """Create ``path`` holding ``data``; raises :class:`RecordingError` if it exists or
        the storage fails (the message names ``path``). A leading ``$schema=urn:autobench:``
        line is written as a relative path to the root's copy of the schema."""
        self._create(path_text(path), (self.localize(path, data),))

    def create_parts(self, path: PathLike, parts: Iterable[bytes]) -> None:
        """Create ``path`` holding the concatenation of ``parts``, each written as it is
        taken (a large file, such as the plan of a million runs, is never whole in memory);
        otherwise as :meth:`create`, the first part starting with the file's schema line
        when it has one. An exception raised while taking ``parts`` leaves nothing under
        ``path`` and is raised as it is; a storage failure is a :class:`RecordingError`."""
        self._create(path_text(path), self._localized(path, parts))

    def _localized(self, path: PathLike, parts: Iterable[bytes]) -> Iterator[bytes]:
        chunks = iter(parts)
        first = next(chunks, None)
        if first is None:
            return
        yield self.localize(path, first)
        yield from chunks

    def replace(self, path: PathLike, data: bytes) -> None:
        """Replace ``path`` (or create it) with ``data`` atomically: a reader sees the old or
        the new file, never a mix. Only for the session files a resumed session rewrites
        after keeping the old one; raises :class:`RecordingError` naming ``path``."""
        data = self.localize(path, data)
        text = path_text(path)
        temporary = _temporary_name(text)
        try:
            with open(temporary, "xb") as stream:
                stream.write(data)
                stream.flush()
                if self.fsync:
                    _sync_file(stream.fileno())
            os.replace(temporary, text)
        except OSError as error:
            raise _error(text, error) from error
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        with self._lock:
            self._dirty.add(parent_text(text))

    def localize(self, path: PathLike, data: bytes) -> bytes:
        """``data`` as :meth:`create` writes it at ``path``: a leading
        ``$schema=urn:autobench:`` line replaced by a path relative to ``path`` to the
        root's copy of that schema, which is written first if missing (so hash what this
        returns). Any other ``data`` is returned as is."""
        reference = local_schema_reference(data)
        if reference is None:
            return data
        version, record_type, end = reference
        kind = (version, record_type)
        schema = self._schema_files.get(kind)
        if schema is None:
            schema = record_schema_path(self.schema_root, version, record_type)
            self._ensure_schema(schema, record_type)
            self._schema_files[kind] = schema
        return self._header(path, schema, kind) + data[end:]

    def _header(self, path: PathLike, schema: Path, kind: tuple[str, str]) -> bytes:
        """:func:`relative_schema_header`, computed once per depth below the schema root (the
        relative path depends on nothing else there: one per run directory otherwise)."""
        text = path_text(path)
        prefix = self._schema_prefix
        if not text.startswith(prefix) or f"{_SEP}.." in text[len(prefix) - 1 :]:
            return relative_schema_header(Path(text), schema)
        key = (text.count(_SEP, len(prefix)), *kind)
        header = self._headers.get(key)
        if header is None:
            header = self._headers[key] = relative_schema_header(Path(text), schema)
        return header

    def ensure_schemas(self, record_types: Iterable[str]) -> None:
        """Write the root's copy of each of ``record_types``' schemas unless present."""
        for record_type in record_types:
            schema = record_schema_path(self.schema_root, autobench_version(), record_type)
            self._ensure_schema(schema, record_type)

    def _ensure_schema(self, schema: Path, record_type: str) -> None:
        """Write ``schema`` unless this writer or an earlier session already did."""
        with self._schema_lock:
            if schema in self._schemas:
                return
            if not schema.is_file():
                try:
                    self._create(
                        path_text(schema), (record_schema_text(record_type).encode("utf-8"),)
                    )
                except RecordingError:
                    if not schema.is_file():  # another process may have written it first
                        raise
            self._schemas.add(schema)

    def _open_temporary(self, path: str) -> tuple[str, int]:
        """A new temporary file beside ``path`` (normalized text; its directory exists),
        opened for writing: its path and descriptor. Raises :class:`RecordingError` naming
        ``path``."""
        temporary = _temporary_name(path)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
            return temporary, os.open(temporary, flags, 0o644)
        except OSError as error:
            raise _error(path, error) from error

    def _create(self, path: str, parts: Iterable[bytes]) -> None:
        directory = parent_text(path)
        self.ensure_dir(directory, for_path=path)
        temporary, descriptor = self._open_temporary(path)
        try:
            try:
                with os.fdopen(descriptor, "wb") as stream:
                    for data in parts:
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

    def stage(self, path: PathLike, data: bytes) -> str:
        """Write ``data`` (localized as by :meth:`create`) to a new temporary file beside
        ``path``, without flushing it; return the temporary path, for :meth:`sync_data`
        and :meth:`publish`. Raises :class:`RecordingError` naming ``path`` (nothing is
        left behind then)."""
        text = path_text(path)
        data = self.localize(text, data)
        self.ensure_dir(parent_text(text), for_path=text)
        if self.fsync and _syncfs is not None and self._root_fd is None:
            self._open_root()
        temporary, descriptor = self._open_temporary(text)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(descriptor, view) :]
            finally:
                os.close(descriptor)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise _error(text, error) from error
        return temporary

    def sync_data(self, temporaries: Iterable[PathLike]) -> None:
        """Make the data of files written by :meth:`stage` durable, in one round (see the
        module docstring). Raises :class:`RecordingError` naming the file that failed."""
        if not self.fsync:
            return
        if self._root_fd is not None:
            self._syncfs()
            return
        for temporary in temporaries:
            try:
                descriptor = os.open(temporary, os.O_RDONLY | os.O_CLOEXEC)
                try:
                    _sync_file(descriptor)
                finally:
                    os.close(descriptor)
            except OSError as error:
                raise _error(_final_name(temporary), error) from error

    def publish(self, temporary: PathLike, path: PathLike) -> None:
        """Link a file written by :meth:`stage` to ``path`` (never over an existing name)
        and remove the temporary name; the directory is synced by :meth:`sync`. Raises
        :class:`RecordingError` naming ``path``."""
        text = path_text(path)
        try:
            self._publish(temporary, text)
        except OSError as error:
            raise _error(text, error) from error
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        with self._lock:
            self._dirty.add(parent_text(text))

    def close(self) -> None:
        """Close the root's descriptor kept for ``syncfs`` (a later stage reopens it)."""
        closer, self._root_closer, self._root_fd = self._root_closer, None, None
        if closer is not None:
            closer()

    def _open_root(self) -> None:
        try:
            descriptor = os.open(self.root, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as error:
            raise _error(self.root, error) from error
        self._root_fd = descriptor
        self._root_closer = weakref.finalize(self, _close_quietly, descriptor)

    def _syncfs(self) -> None:
        assert _syncfs is not None and self._root_fd is not None
        if _syncfs(self._root_fd) != 0:
            code = ctypes.get_errno()
            raise _error(self.root, OSError(code, os.strerror(code)))

    def _publish(self, temporary: PathLike, path: str) -> None:
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise RecordingError(
                f"cannot write {path}: it already exists and records are never overwritten",
                path=Path(path),
            ) from None
        except OSError as error:
            if error.errno not in _NO_LINK:
                raise
            if os.path.lexists(path):
                raise RecordingError(
                    f"cannot write {path}: it already exists and records are never overwritten",
                    path=Path(path),
                ) from None
            os.replace(temporary, path)

    def ensure_dir(self, directory: PathLike, *, for_path: PathLike | None = None) -> None:
        """Create ``directory`` and missing parents; their parents are synced later."""
        text = path_text(directory)
        known = self._known_dirs
        if text in known:
            return
        # Parents under the root this writer has not made yet are made first, and a directory
        # is looked at only when mkdir fails: a new run's directories cost one system call
        # each (the group-commit thread shares the interpreter per call).
        named = text if for_path is None else for_path
        missing = [text]
        depth = self._root_text.count(_SEP)
        while (parent := parent_text(missing[-1])) not in known and parent.count(_SEP) > depth:
            missing.append(parent)
        while missing:
            new = missing[-1]
            try:
                os.mkdir(new)
            except FileExistsError:
                if not os.path.isdir(new):
                    raise _dir_error(named, new, "a file is in the way") from None
            except FileNotFoundError as error:
                parent = parent_text(new)
                if parent == new or parent in missing:
                    raise _dir_error(named, new, error.strerror or str(error)) from error
                if parent not in known:
                    missing.append(parent)
                    continue
                raise _dir_error(named, new, error.strerror or str(error)) from error
            except OSError as error:
                raise _dir_error(named, new, error.strerror or str(error)) from error
            else:
                with self._lock:
                    self._dirty.add(parent_text(new))
            missing.pop()
            with self._lock:
                known[new] = None
                if len(known) > KNOWN_DIRS:
                    del known[next(iter(known))]

    @property
    def pending(self) -> int:
        """How many directories wait for an fsync."""
        return len(self._dirty)

    def sync(self) -> None:
        """fsync every directory whose entries changed since the last call."""
        with self._sync_lock:
            with self._lock:
                dirty, self._dirty = self._dirty, set()
            if self.fsync and dirty:
                if self._root_fd is not None:
                    self._syncfs()
                else:
                    self._sync_dirs(dirty)

    def _sync_dirs(self, dirty: set[str]) -> None:
        for directory in sorted(dirty, key=lambda item: item.count(_SEP), reverse=True):
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


def _final_name(temporary: PathLike) -> Path:
    """The final name a temporary ``.<name>.<pid>.<n>.tmp`` stands for."""
    path = Path(temporary)
    return path.with_name(path.name[1:].rsplit(".", 3)[0])


def _close_quietly(descriptor: int) -> None:
    with contextlib.suppress(OSError):
        os.close(descriptor)


def _error(path: PathLike, error: OSError) -> RecordingError:
    reason = error.strerror or str(error)
    return RecordingError(f"cannot write {Path(path)}: {reason}", path=Path(path))


def _dir_error(path: PathLike, directory: PathLike, reason: str) -> RecordingError:
    return RecordingError(
        f"cannot write {Path(path)}: cannot create directory {Path(directory)}: {reason}",
        path=Path(path),
    )
