"""The files of one stored run, from what a process other than the recording one can hold.

:class:`~autobench.records.RecordDirectoryWriter` renders a run's ``run.yaml`` from its
:class:`~autobench.records.RunRecord`. The record writer process
(:mod:`autobench.records._commit_worker`) gets no record: it gets a :class:`SectionsJob`,
the run's sections as plain document values (:func:`~autobench.records._codec.run_sections`:
dicts, lists, strings, numbers, datetimes; nothing of the user's types, so they always
cross a pipe) and renders the same text from them (:func:`sections_files`). A trace whose
section passes :data:`TRACE_INLINE_LIMIT` is stored beside the run either way, by
:func:`trace_file`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from autobench.records._atomic import PathLike
from autobench.records._codec import render_run
from autobench.records._evidence import ArtifactRef
from autobench.records._records import TRACE_MEDIA_TYPE, TRACE_RECORD_VERSION, TraceSummary
from autobench.records._yaml import dump_record, render_sections

TRACE_INLINE_LIMIT = 64 * 1024
"""UTF-8 bytes of the rendered ``trace:`` section above which the trace is stored as
``artifacts/<run>/trace.yaml`` and ``run.yaml`` keeps a :class:`TraceSummary`."""

SURELY_LARGE_TRACE = 1_000
"""Spans past which a trace's text passes TRACE_INLINE_LIMIT in any case (each span's text
holds at least its id, parent, operation, scope, start and offset lines: well over 65
bytes)."""

TRACE_FILE = "trace.yaml"
TRACE_ARTIFACT_ID = "abp_trace"

Localize = Callable[[PathLike, bytes], bytes]
"""``AtomicFiles.localize``: a file's bytes with its ``$schema`` line made relative to it."""


class TraceFacts(NamedTuple):
    """What the summary of a trace stored apart says besides its file: its id, whether it
    is partial and how many spans it has."""

    id: str
    partial: bool
    spans: int


class FilesJob(NamedTuple):
    """One run whose files the recording process rendered: ``[(path, bytes), ...]``,
    ``run.yaml`` last."""

    files: list[tuple[Path, bytes]]


class SectionsJob(NamedTuple):
    """One run for the record writer process: ``files`` (its artifacts, rendered already:
    ``[(path, bytes), ...]``), then its ``run.yaml`` at ``run_path`` rendered from
    ``sections`` (:func:`~autobench.records._codec.run_sections`, trace inline; the path as
    text: a :class:`~pathlib.Path` costs a parse to unpickle), the trace
    stored apart under ``run_dir`` when too large (``trace`` says what its summary needs;
    ``None`` when the run has no inline trace)."""

    run_dir: str
    run_path: str
    sections: dict[str, Any]
    files: list[tuple[Path, bytes]]
    trace: TraceFacts | None


def trace_file(
    localize: Localize, root: Path, run_dir: str, data: bytes, facts: TraceFacts
) -> tuple[TraceSummary, tuple[Path, bytes]]:
    """A trace stored apart: the summary ``run.yaml`` keeps in its place, and the file
    (``root/run_dir/trace.yaml``, ``data`` localized) it references by size and sha256."""
    path = root / run_dir / TRACE_FILE
    data = localize(path, data)
    ref = ArtifactRef(
        id=TRACE_ARTIFACT_ID,
        name="ABP trace",
        media_type=TRACE_MEDIA_TYPE,
        path=f"{run_dir}/{TRACE_FILE}",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )
    summary = TraceSummary(id=facts.id, partial=facts.partial, spans=facts.spans, artifact=ref)
    return summary, (path, data)


def sections_files(
    localize: Localize, root: Path, job: SectionsJob
) -> list[tuple[PathLike, bytes]]:
    """The files of ``job``'s run, ``run.yaml`` last: the same bytes as the writer renders
    from the run's record (the trace stored apart past :data:`TRACE_INLINE_LIMIT`)."""
    files: list[tuple[PathLike, bytes]] = list(job.files)
    sections = job.sections
    text = render_run(sections)
    if job.trace is not None and len(text) > TRACE_INLINE_LIMIT:
        trace = sections["trace"]
        if len(render_sections({"trace": trace}).encode("utf-8")) > TRACE_INLINE_LIMIT:
            data = dump_record("trace", TRACE_RECORD_VERSION, trace).encode("utf-8")
            summary, stored = trace_file(localize, root, job.run_dir, data, job.trace)
            files.append(stored)
            sections = {
                **sections,
                "trace": summary.model_dump(mode="python", exclude_defaults=True),
            }
            text = render_run(sections)
    files.append((job.run_path, text.encode("utf-8")))
    return files
