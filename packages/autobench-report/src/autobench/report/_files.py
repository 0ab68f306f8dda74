"""Writing an export to a file: atomically, never a half file.

:func:`write_export` is what ``autobench export`` and the Python helpers
:func:`export_runs_csv` / :func:`export_summary_yaml` use: the content goes to a
temporary file beside the target, is flushed to disk, then renamed over it, so a
reader (or a crash) sees the old file or the new one and nothing in between. The content
may be given in pieces (:func:`~autobench.report.export_chunks`): each is written as it
comes, and a failure while the pieces are made removes the temporary file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from autobench.records import ExperimentResult
from autobench.report._builders import build_report
from autobench.report._export_csv import CsvExporter
from autobench.report._export_yaml import YamlExporter
from autobench.report._exporters import export_chunks
from autobench.report._model import Report


def write_export(path: Path | str, content: str | bytes | Iterable[str | bytes]) -> int:
    """Write ``content`` (text as UTF-8; or an iterable of ``str`` and ``bytes`` pieces,
    each written as it comes, such as :func:`~autobench.report.export_chunks` gives) to
    ``path`` atomically, with the permissions of a new file (0666 less the umask),
    creating missing parent directories; return the bytes written. Raises ``OSError`` as
    the file system does, and what the iterable raises while its pieces are made; either
    way the temporary file is removed and the target is left as it was."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            if isinstance(content, str | bytes):
                size = _write(stream, content)
            else:
                size = sum(_write(stream, piece) for piece in content)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return size


_CHUNK = 1 << 22
"""Characters of a text encoded at a time by :func:`write_export`."""


def _write(stream: BinaryIO, content: str | bytes) -> int:
    """Write ``content`` (text as UTF-8, a chunk of :data:`_CHUNK` characters encoded at a
    time: a large export is not held twice, as text and as bytes) and return the bytes
    written."""
    if isinstance(content, bytes):
        stream.write(content)
        return len(content)
    size = 0
    for start in range(0, len(content), _CHUNK):
        data = content[start : start + _CHUNK].encode("utf-8")
        stream.write(data)
        size += len(data)
    return size


def export_runs_csv(
    result: ExperimentResult, path: Path | str, *, report: Report | None = None
) -> Path:
    """Write the ``csv`` export of ``result`` (one row per run with its projected metrics,
    redacted like every export: :func:`~autobench.report.export_chunks`, written as it is
    made) to ``path``; ``report`` defaults to :func:`build_report` of ``result``. Returns the path."""
    chosen = report or build_report(result)
    write_export(path, export_chunks(CsvExporter(), chosen, result))
    return Path(path)


def export_summary_yaml(
    result: ExperimentResult, path: Path | str, *, report: Report | None = None
) -> Path:
    """Write the ``yaml`` summary export of ``result`` (leaderboard, distributions,
    policies; redacted like every export) to ``path``; ``report`` defaults to :func:`build_report` of ``result``.
    Returns the path."""
    chosen = report or build_report(result)
    write_export(path, export_chunks(YamlExporter(), chosen, result))
    return Path(path)
