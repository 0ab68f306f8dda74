"""The durable record directory: :class:`RecordDirectoryWriter`, the recording sink.

Layout (all paths relative to the experiment directory, ids made safe with
:func:`~autobench.records.safe_segment`; records keep the original ids)::

    experiment.yaml                       written by start()
    cases/<case>/<variant>/run.yaml       one per run, as it ends
    artifacts/<run>/<name><ext>           artifact payloads of that run
    artifacts/<run>/trace.yaml            a trace larger than TRACE_INLINE_LIMIT
    post_derived.yaml                     written by post_derived(), before summary.yaml
    summary.yaml                          written by finish(): the latest session's
    summary.<n>.yaml, post_derived.<n>.yaml
                                          session n's, kept when a resumed session
                                          replaced the file (n = 1, 2, ...)
    schemas/<version>/<type>.schema.json  the schemas the files' first lines name

Artifact payloads: ``str`` with a text media type (``text/*``, JSON, YAML,
XML, ``+json``/``+yaml``/``+xml``) is stored as UTF-8 text; ``bytes`` as they
are; anything else as a YAML file with an ``artifact_payload`` header. The
file name is the safe form of the artifact name plus an extension from the
media type; a name used twice in a run gets a hash of the artifact id.
Every file is written atomically (:mod:`autobench.records._atomic`), and
nothing is overwritten but the two session files named below, each kept first.

Group commit: ``run_finished`` does on the calling thread only what the record it
returns needs (artifact payloads rendered and hashed); the rendering of ``run.yaml`` and
every write happen on the background thread of
:class:`~autobench.records._group_commit.GroupCommitter`, which makes the runs that end
close together durable with one shared flush (see that module), or, for an experiment of
:data:`WRITER_PROCESS_MIN_RUNS` planned runs or more, in a record writer process doing the
same (:mod:`autobench.records._commit_process`: the interpreter of the recording process
is then left to the runs). A run's artifacts are always linked before its ``run.yaml``. At most
:data:`~autobench.records._group_commit.MAX_PENDING_RUNS` runs wait for the disk;
``run_finished`` blocks past that. A storage failure is raised as
:class:`RecordingError` by the next ``run_finished`` or by ``finish``, which waits for
every pending write before it writes ``summary.yaml``.

Durability of a run: ``run_finished`` returns before its files are on disk;
:meth:`RecordDirectoryWriter.after_stored` says when they are (data and directory
entries flushed), and the runtime reports a run finished only then. A process killed
outright (SIGKILL, power loss) loses only runs not yet reported stored, and never leaves
a partial file under a final name (temporary names start with ``.`` and end with
``.tmp``).

Resuming: :meth:`RecordDirectoryWriter.resume` continues an experiment whose
``experiment.yaml`` exists instead of starting one. A planned run whose
``run.yaml`` exists is refused. The session's summary (and post-derived
observations), which cover the whole experiment, replace ``summary.yaml``
(and ``post_derived.yaml``) atomically once the earlier session's file is kept
as ``summary.<n>.yaml`` (a hard link, ``n`` that session's number: 1, 2, ...),
so the file a user opens describes the completed experiment and the history
stays (:func:`keep_session_history`, :func:`latest_session_file`). A run
killed after some of its artifacts reached the disk but before its ``run.yaml``
left orphan files in ``artifacts/<run>/``; the resumed run stores its artifacts
in ``artifacts/<run>/attempt-<n>/`` instead (the orphans are never referenced).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NamedTuple

from autobench.abp import Trace
from autobench.records._atomic import AtomicFiles, PathLike, path_text
from autobench.records._codec import (
    artifact_payload_to_yaml,
    experiment_record_parts,
    experiment_summary_to_yaml,
    post_derived_to_yaml,
    render_run,
    run_sections,
    run_text,
    trace_yaml_bytes,
)
from autobench.records._commit_process import CommitProcess
from autobench.records._errors import RecordingError
from autobench.records._evidence import ArtifactRef, Observation
from autobench.records._group_commit import GroupCommitter
from autobench.records._paths import artifact_dir, run_record_path, safe_segment
from autobench.records._post_derived import POST_DERIVED_FILE, PostDerivedRecord
from autobench.records._records import (
    ExperimentRecord,
    ExperimentSummary,
    PlanSequence,
    RunRecord,
    TraceSummary,
)
from autobench.records._run_files import SURELY_LARGE_TRACE as SURELY_LARGE_TRACE
from autobench.records._run_files import TRACE_ARTIFACT_ID as TRACE_ARTIFACT_ID
from autobench.records._run_files import TRACE_FILE as TRACE_FILE
from autobench.records._run_files import TRACE_INLINE_LIMIT as TRACE_INLINE_LIMIT
from autobench.records._run_files import FilesJob, SectionsJob, TraceFacts, trace_file
from autobench.records._sink import DurableRun, RecordListener
from autobench.records._yaml import render_sections

_log = logging.getLogger("autobench.records")

WRITER_PROCESS_ENV = "AUTOBENCH_RECORD_WRITER"
"""``process``: runs are always rendered and stored by a record writer process; ``thread``:
always on a thread of the recording process; unset (or anything else): by a process for
experiments of :data:`WRITER_PROCESS_MIN_RUNS` planned runs or more."""

WRITER_PROCESS_MIN_RUNS = 500
"""Planned runs from which a record writer process stores the runs (see
:mod:`autobench.records._commit_process`): below, starting a process (about 0.2 s of a
core) costs more than the interpreter time it saves."""

_TEXT_MEDIA = frozenset(
    {
        "application/json",
        "application/x-yaml",
        "application/yaml",
        "application/xml",
        "application/toml",
        "application/javascript",
        "application/x-ndjson",
        "application/jsonl",
    }
)
_EXTENSIONS = {
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/html": ".html",
    "text/csv": ".csv",
    "text/x-python": ".py",
    "text/yaml": ".yaml",
    "application/json": ".json",
    "application/x-yaml": ".yaml",
    "application/yaml": ".yaml",
    "application/xml": ".xml",
    "application/toml": ".toml",
    "application/x-ndjson": ".jsonl",
    "application/jsonl": ".jsonl",
    "application/pdf": ".pdf",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/svg+xml": ".svg",
    "image/webp": ".webp",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
}


def is_text_media(media_type: str) -> bool:
    """Whether ``media_type`` names text (``text/*``, JSON, YAML, XML and their ``+`` suffixes)."""
    base = media_type.split(";", 1)[0].strip().lower()
    return (
        base.startswith("text/") or base in _TEXT_MEDIA or base.endswith(("+json", "+yaml", "+xml"))
    )


def _extension(media_type: str, *, binary: bool) -> str:
    base = media_type.split(";", 1)[0].strip().lower()
    known = _EXTENSIONS.get(base)
    if known:
        return known
    if base.endswith("+json"):
        return ".json"
    if base.endswith("+yaml"):
        return ".yaml"
    if base.endswith("+xml"):
        return ".xml"
    return ".bin" if binary else ".txt"


def payload_file(ref: ArtifactRef, payload: Any) -> tuple[str, bytes]:
    """``(extension, bytes)`` of one payload, following the module's storage rules."""
    if isinstance(payload, bytes | bytearray | memoryview):
        return _extension(ref.media_type, binary=True), bytes(payload)
    if isinstance(payload, str) and is_text_media(ref.media_type):
        return _extension(ref.media_type, binary=False), payload.encode("utf-8")
    return ".yaml", artifact_payload_to_yaml(ref, payload).encode("utf-8")


class PreparedRun(NamedTuple):
    """A run rendered by :meth:`RecordDirectoryWriter.prepare_run`: the record as it will be
    stored, the path of its ``run.yaml`` and every file to write (``run.yaml`` last)."""

    run: RunRecord
    run_path: Path
    files: list[tuple[Path, bytes]]


class RecordDirectoryWriter:
    """Writes an experiment into ``root`` as it runs; an :class:`ExperimentSink`.

    ``start`` refuses a ``root`` that exists and is not an empty directory;
    ``run_finished`` stores payloads and ``run.yaml`` and returns the stored
    record; ``finish`` writes ``summary.yaml`` and syncs pending directories.
    Every error is a :class:`RecordingError` naming the path.
    """

    def __init__(self, root: Path, *, fsync: bool = True) -> None:
        self.root = Path(root)
        # Every path is resolved now: a task that changes directory (into its checkout,
        # say) moves no write of this record (the thread wrote its runs there, a record
        # writer process, started before, wrote them here and the summary there).
        self._base = self.root.absolute()
        self._base_text = os.fspath(self._base)
        self._files = AtomicFiles(self._base, fsync=fsync)
        self._plan_paths: Mapping[str, str] | _PlanPaths = {}
        self._started = False
        # The background work holds this writer weakly, so a writer dropped without finish()
        # or close() is collected, and its thread (or record writer process) ends once it
        # has stored what it was given.
        self._thread = GroupCommitter(self._files, _weak(self._after_group))
        self._committer: GroupCommitter | CommitProcess = self._thread
        self._background: list[GroupCommitter | CommitProcess] = [self._thread]
        weakref.finalize(self, _stop_all, self._background)
        self._in_process = False
        self._listeners: list[RecordListener] = []
        self._pending: list[Future[None]] = []
        self._failed: list[Future[None]] = []
        self._claimed: set[str] = set()
        """The ``run.yaml`` paths written or being written in this session (as text: one per
        run, kept for the whole experiment), but those of a compact plan's runs (a bit each,
        :class:`_PlanPaths`)."""
        self._stored: dict[str, Future[None]] = {}
        self._experiment_id = ""
        self._resumed = False

    def start(self, experiment: ExperimentRecord) -> None:
        """Create the directory and write ``experiment.yaml``."""
        root = self._base
        if root.exists() or root.is_symlink():
            if not root.is_dir():
                raise RecordingError(f"cannot record into {root}: it is not a directory", path=root)
            if any(root.iterdir()):
                what = "an experiment" if (root / "experiment.yaml").exists() else "files"
                raise RecordingError(
                    f"cannot record into {root}: it already holds {what}; records are never "
                    "overwritten, choose a new directory",
                    path=root,
                )
        self._files.ensure_dir(root)
        self._plan_paths = _plan_paths(experiment)
        self._experiment_id = experiment.experiment_id
        self._files.ensure_schemas(("run", "summary"))  # every experiment writes them
        parts = experiment_record_parts(experiment)  # a large plan is rendered as it is written
        self._files.create_parts(root / "experiment.yaml", (part.encode() for part in parts))
        self._files.sync()
        self._choose_committer(len(experiment.plan))
        self._started = True

    def resume(self, experiment: ExperimentRecord) -> None:
        """Continue recording into ``root``, which must hold ``experiment``'s
        ``experiment.yaml`` (it is not rewritten). Runs whose ``run.yaml`` exists are
        refused by :meth:`run_finished`; :meth:`finish` and :meth:`post_derived` keep
        the earlier session's file as ``<stem>.<n>.yaml``, then replace it."""
        root = self._base
        if not (root / "experiment.yaml").is_file():
            raise RecordingError(
                f"cannot resume {root}: it holds no experiment.yaml", path=root / "experiment.yaml"
            )
        self._files.ensure_dir(root)
        self._plan_paths = _plan_paths(experiment)
        self._experiment_id = experiment.experiment_id
        self._resumed = True
        self._choose_committer(len(experiment.plan))
        self._started = True

    def _choose_committer(self, planned: int) -> None:
        """Store the runs through a record writer process (:data:`WRITER_PROCESS_ENV`), or
        keep the thread when none can be started."""
        chosen = os.environ.get(WRITER_PROCESS_ENV, "")
        if chosen == "thread" or (chosen != "process" and planned < WRITER_PROCESS_MIN_RUNS):
            return
        if os.name != "posix":  # its pipes and parent-death handling are POSIX's
            return
        if getattr(sys, "frozen", False):  # sys.executable is the application, not Python
            return
        try:
            process = CommitProcess(
                self._base,
                fsync=self._files.fsync,
                want_data=any(getattr(each, "needs_data", True) for each in self._listeners),
                after_group=_weak(self._after_group),
                fallback=_weak(self._fallback),
            )
        except OSError as error:  # no process to spare: the thread stores them
            _log.debug("%s: record writer process not started: %s", self._base, error)
            return
        self._committer = process
        self._background.append(process)
        self._in_process = True

    def _fallback(self, job: object) -> Future[None]:
        """Store on the thread a run meant for a record writer process that never started."""
        assert isinstance(job, _SentRun)
        run, run_dir, files = job.run, job.run_dir, job.files
        render: Callable[[], Sequence[tuple[Path, bytes]]] = (
            (lambda: files) if job.rendered else (lambda: self._render(run, run_dir, files))
        )
        return self._thread.submit(self._thread_job(render, run, job.run_path))

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord:
        """Store the payloads of ``run``'s artifacts (keyed by artifact id; payloads of
        unknown ids are ignored), then its ``run.yaml``; return the record as stored:
        artifact references completed with path, size and sha256, the trace in full.
        Only the artifacts are rendered here; ``run.yaml`` is rendered and written on the
        group-commit thread. Raises :class:`RecordingError` as :meth:`run_prepared`."""
        self._raise_failed()
        run, run_dir, files = self._artifact_files(run, payloads)
        run_path = self._run_path(run)
        self._claim(run, run_path)
        if self._in_process:
            return self._sent(_SentRun(self, run, run_dir, run_path, files))
        return self._submitted(run, run_path, lambda: self._render(run, run_dir, files))

    def prepare_run(self, run: RunRecord, payloads: Mapping[str, Any]) -> PreparedRun:
        """Render the files of ``run`` (its artifacts, trace and ``run.yaml``) without storing
        them: any thread may call it, for several runs at once (:class:`PreparingSink`).
        Raises :class:`RecordingError` before :meth:`start`."""
        run, run_dir, files = self._artifact_files(run, payloads)
        return PreparedRun(run, Path(self._run_path(run)), self._render(run, run_dir, files))

    def _artifact_files(
        self, run: RunRecord, payloads: Mapping[str, Any]
    ) -> tuple[RunRecord, str, list[tuple[Path, bytes]]]:
        """What the stored record needs: ``(run with its artifact references completed,
        its artifact directory, the artifact files)``."""
        if not self._started:
            raise RecordingError(
                f"cannot record a run into {self._base}: start() was not called", path=self._base
            )
        run_dir = artifact_dir(run.run_id)
        if self._resumed and (self._base / run_dir).exists():
            # Orphans of an attempt killed before its run.yaml: never reuse their names.
            attempt = 2
            while (self._base / run_dir / f"attempt-{attempt}").exists():
                attempt += 1
            run_dir = f"{run_dir}/attempt-{attempt}"
        used = {TRACE_FILE}
        files: list[tuple[Path, bytes]] = []
        if not run.artifacts:
            return run, run_dir, files
        artifacts = tuple(
            self._store_artifact(run_dir, ref, payloads, used, files) for ref in run.artifacts
        )
        if artifacts != run.artifacts:
            run = run.model_copy(update={"artifacts": artifacts})
        return run, run_dir, files

    def _render(
        self, run: RunRecord, run_dir: str, files: list[tuple[Path, bytes]]
    ) -> list[tuple[Path, bytes]]:
        """``files`` followed by the run's trace file (when stored apart) and ``run.yaml``."""
        files = list(files)
        trace = run.trace
        if isinstance(trace, Trace) and len(trace.spans) > SURELY_LARGE_TRACE:
            # Its text passes TRACE_INLINE_LIMIT whatever its spans hold: stored beside the
            # run without being rendered inline first (twice, for a large trace).
            summary = self._store_trace(run_dir, trace, files)
            sections = run_sections(
                run, trace=summary.model_dump(mode="python", exclude_defaults=True)
            )
            text = render_run(sections)
        else:
            text = run_text(run)
            if len(text) > TRACE_INLINE_LIMIT and isinstance(trace, Trace):
                sections = run_sections(run)
                trace_text = render_sections({"trace": sections["trace"]})
                if len(trace_text.encode("utf-8")) > TRACE_INLINE_LIMIT:
                    summary = self._store_trace(run_dir, trace, files)
                    sections["trace"] = summary.model_dump(mode="python", exclude_defaults=True)
                    text = render_run(sections)
        files.append((Path(self._run_path(run)), text.encode("utf-8")))
        return files

    def run_prepared(self, prepared: PreparedRun) -> RunRecord:
        """Store a run rendered by :meth:`prepare_run` (its files are written in the
        background, its ``run.yaml`` last) and return its record as stored. Raises
        :class:`RecordingError` when a write of an earlier run failed, or when the run's
        ``run.yaml`` exists or was claimed in this session."""
        self._raise_failed()
        run, prepared_path, files = prepared
        run_path = path_text(prepared_path)
        self._claim(run, run_path)
        if self._in_process:
            return self._sent(_SentRun(self, run, "", run_path, files, rendered=True))
        return self._submitted(run, run_path, lambda: files)

    def _claim(self, run: RunRecord, run_path: str) -> None:
        # A run of a compact plan is claimed by its plan position, one bit (its path is the
        # plan's); any other by its path's text.
        plans = self._plan_paths
        compact = plans.claimed if isinstance(plans, _PlanPaths) else None
        position = plans.position_of(run.run_id) if isinstance(plans, _PlanPaths) else None
        if position is not None and compact is not None:
            byte, bit = divmod(position, 8)
            claimed = bool(compact[byte] & (1 << bit))
        else:
            key = run_path
            claimed = key in self._claimed
        if claimed or (self._resumed and os.path.exists(run_path)):
            raise RecordingError(
                f"cannot write {run_path}: it already exists and records are never overwritten",
                path=Path(run_path),
            )
        if position is not None and compact is not None:
            compact[byte] |= 1 << bit
        else:
            self._claimed.add(key)

    def _submitted(
        self,
        run: RunRecord,
        run_path: str,
        render: Callable[[], Sequence[tuple[PathLike, bytes]]],
    ) -> RunRecord:
        assert isinstance(self._committer, GroupCommitter)
        return self._follow(run, self._committer.submit(self._thread_job(render, run, run_path)))

    def _thread_job(
        self,
        render: Callable[[], Sequence[tuple[PathLike, bytes]]],
        run: RunRecord,
        run_path: str,
    ) -> Callable[[], Sequence[tuple[PathLike, bytes]]]:
        """The thread's job for ``render``: kept with its run (and its bytes as written)
        when listeners follow the writer."""
        if self._listeners:
            return _RunJob(render, run, run_path, self._files.localize)
        return render

    def _sent(self, job: _SentRun) -> RunRecord:
        assert isinstance(self._committer, CommitProcess)
        job.prepare()
        return self._follow(job.run, self._committer.submit(job))

    def _follow(self, run: RunRecord, future: Future[None]) -> RunRecord:
        self._pending.append(future)
        run_id = run.run_id
        self._stored[run_id] = future
        future.add_done_callback(lambda done: self._written(run_id, done))
        return run

    def _written(self, run_id: str, future: Future[None]) -> None:
        # On the group-commit thread. A stored run is forgotten; a failed one stays, so
        # after_stored reports it failed, and the next run_finished raises its error.
        if future.exception() is None:
            self._stored.pop(run_id, None)
        else:
            self._failed.append(future)

    def add_listener(self, listener: RecordListener) -> None:
        """Tell ``listener`` of every group of runs once it is durable and of the end
        (:class:`~autobench.records.RecordListener`); call it before :meth:`start`."""
        self._listeners.append(listener)

    def _after_group(self, jobs: Sequence[object]) -> None:
        # On the group-commit thread (or the record writer process's reader thread), once
        # the group's runs are durable.
        base = f"{self._base_text}/"
        runs = [
            DurableRun(job.run, _relative(job.run_path, base, self._base), job.data or b"")
            for job in jobs
            if isinstance(job, _RunJob | _SentRun)
            and (job.data is not None or isinstance(job, _SentRun))
        ]
        if runs:
            self._notify("runs_durable", runs)

    def _notify(self, method: str, argument: Any) -> None:
        """Call ``method`` of every listener; one that raises is logged and dropped."""
        for listener in list(self._listeners):
            try:
                getattr(listener, method)(self._base, argument)
            except Exception as error:  # derived data: never a failed recording
                self._listeners.remove(listener)
                _log.warning("%s: %s failed: %s", self._base, type(listener).__name__, error)

    def after_stored(self, run_id: str, callback: Callable[[bool], None]) -> None:
        """Call ``callback(True)`` once the files of run ``run_id`` are on disk, ``False`` if
        writing them failed; at once when they were already written (:class:`DurableSink`)."""
        future = self._stored.get(run_id)
        if future is None:
            callback(True)
            return
        future.add_done_callback(lambda done: callback(done.exception() is None))

    def post_derived(self, observations_by_run: Mapping[str, Sequence[Observation]]) -> None:
        """Wait for every pending run file, then write ``post_derived.yaml`` (see
        :mod:`autobench.records._post_derived`) atomically. Raises :class:`RecordingError`
        when a write failed or the file already exists."""
        self.flush()
        record = PostDerivedRecord(
            experiment=self._experiment_id,
            runs={run_id: tuple(items) for run_id, items in observations_by_run.items()},
        )
        self._write_session_file(POST_DERIVED_FILE, post_derived_to_yaml(record))

    def finish(self, summary: ExperimentSummary) -> None:
        """Wait for every pending run file, write ``summary.yaml`` and sync every directory
        still pending. Raises :class:`RecordingError` if any write failed (the summary is
        then not written); the writer is closed either way (its thread or record writer
        process ended: a program that goes on after the error keeps neither)."""
        try:
            self.flush()
            self._write_session_file("summary.yaml", experiment_summary_to_yaml(summary))
            self._files.sync()
        finally:
            self.close()
        if self._listeners:
            self._notify("finished", summary)

    def _write_session_file(self, name: str, text: str) -> None:
        """Write ``name``. When resumed and ``name`` exists, the earlier session's file is
        first kept as history (``<stem>.<n>.<suffix>``, see :func:`keep_session_history`),
        then ``name`` is replaced atomically: it always describes the latest session."""
        path = self._base / name
        if not self._resumed or not path.exists():
            self._write(path, text)
            return
        keep_session_history(self._base, name)
        self._files.replace(path, text.encode("utf-8"))

    def flush(self) -> None:
        """Wait until every run handed to ``run_finished`` is on disk; raise the first
        :class:`RecordingError` of a failed write."""
        pending, self._pending = self._pending, []
        self._failed = []
        errors = [error for future in pending if (error := _failure(future)) is not None]
        if errors:
            raise errors[0]

    def close(self) -> None:
        """Wait for pending writes (without raising) and stop the group-commit thread (and
        the record writer process)."""
        self._committer.close()
        self._thread.close()
        self._files.close()

    def _raise_failed(self) -> None:
        """Raise the error of the first failed write not raised yet; forget the oldest
        finished writes."""
        if self._failed:
            failed = self._failed.pop(0)
            self._pending = [future for future in self._pending if future is not failed]
            error = _failure(failed)
            assert error is not None
            raise error
        pending = self._pending
        done = 0
        while done < len(pending) and pending[done].done():
            done += 1
        if done:
            del pending[:done]

    def _run_path(self, run: RunRecord) -> str:
        """The path of ``run``'s ``run.yaml`` (text, normalized as pathlib would: a path
        object made and parsed per run cost more than the rest of this method)."""
        relative = self._plan_paths.get(run.run_id) or run_record_path(run.case_id, run.variant_id)
        # PurePosixPath's rules, on the string: absolute, any `..`, or no part at all is
        # refused.
        segments = relative.split("/")
        if relative.startswith("/") or ".." in segments or not set(segments) - {"", "."}:
            raise RecordingError(
                f"run path {relative!r} of {run.run_id!r} leaves {self._base}", path=relative
            )
        return path_text(f"{self._base_text}/{relative}")

    def _store_artifact(
        self,
        run_dir: str,
        ref: ArtifactRef,
        payloads: Mapping[str, Any],
        used: set[str],
        files: list[tuple[Path, bytes]],
    ) -> ArtifactRef:
        if ref.id not in payloads:
            return ref
        extension, data = payload_file(ref, payloads[ref.id])
        stem = safe_segment(ref.name)
        name = stem if stem.endswith(extension) else stem + extension
        if name in used:
            name = safe_segment(f"{ref.name}#{ref.id}") + extension
        used.add(name)
        relative = f"{run_dir}/{name}"
        data = self._files.localize(self._base / run_dir / name, data)  # hashed as written
        files.append((self._base / run_dir / name, data))
        return ref.model_copy(
            update={"path": relative, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        )

    def _store_trace(
        self, run_dir: str, trace: Trace, files: list[tuple[Path, bytes]]
    ) -> TraceSummary:
        facts = TraceFacts(trace.id, trace.partial, len(trace.spans))
        summary, stored = trace_file(
            self._files.localize, self._base, run_dir, trace_yaml_bytes(trace), facts
        )
        files.append(stored)
        return summary

    def _write(self, path: Path, text: str) -> None:
        self._files.create(path, text.encode("utf-8"))


class _PlanPaths:
    """The record paths of a compact plan, looked up in it (no mapping of every run), and
    which of its runs this writer claimed (one bit a run)."""

    __slots__ = ("_last", "_plan", "claimed")

    def __init__(self, plan: PlanSequence) -> None:
        self._plan = plan
        self.claimed = bytearray((len(plan) + 7) // 8)
        self._last: tuple[str, int | None] = ("", None)
        """The last run looked up and its position: a run's path and then its claim ask
        for the same run, and a lookup parses its id."""

    def get(self, run_id: str) -> str | None:
        place = self._plan.place_of(run_id)
        self._last = (run_id, None if place is None else place[0])
        return None if place is None else place[1]

    def position_of(self, run_id: str) -> int | None:
        last_id, position = self._last
        return position if last_id == run_id else self._plan.position_of(run_id)


def _plan_paths(experiment: ExperimentRecord) -> Mapping[str, str] | _PlanPaths:
    """Each planned run's record path by run id."""
    plan = experiment.plan
    if isinstance(plan, PlanSequence):
        return _PlanPaths(plan)
    return {planned.id: planned.path for planned in plan}


class _RunJob:
    """The render job of one run when listeners follow the writer: keeps the bytes of its
    ``run.yaml`` as written (rendered on the group-commit thread, its schema line localized
    here rather than by the stage, which leaves localized bytes as they are) for
    :class:`DurableRun`."""

    __slots__ = ("data", "localize", "render", "run", "run_path")

    def __init__(
        self,
        render: Callable[[], Sequence[tuple[PathLike, bytes]]],
        run: RunRecord,
        run_path: str,
        localize: Callable[[PathLike, bytes], bytes],
    ) -> None:
        self.render, self.run, self.run_path, self.localize = render, run, run_path, localize
        self.data: bytes | None = None

    def __call__(self) -> Sequence[tuple[PathLike, bytes]]:
        files = list(self.render())
        path, data = files[-1]
        self.data = self.localize(path, data)
        files[-1] = (path, self.data)
        return files


class _SentRun:
    """One run for the record writer process (a
    :class:`~autobench.records._commit_process.SentJob`): its payload is the run's
    sections (``run.yaml`` is rendered by the process), made by :meth:`prepare` on the
    thread that hands the run over, or its files, rendered on the feeder thread when the
    run is surely too large for its trace to stay inline (or rendered already:
    ``rendered``).

    The sections are made where the run is handed over (the event loop's thread, a few
    runs per turn of the loop: ``core.runtime._turns``) rather than on the feeder: a
    thread holds the interpreter until it waits or is made to give it up (every 5 ms),
    and the feeder making the sections of a frame of 64 runs (about 1.5 ms) and pickling
    them kept the event loop waiting for it."""

    __slots__ = ("data", "files", "prepared", "rendered", "run", "run_dir", "run_path", "writer")

    def __init__(
        self,
        writer: RecordDirectoryWriter,
        run: RunRecord,
        run_dir: str,
        run_path: str,
        files: list[tuple[Path, bytes]],
        *,
        rendered: bool = False,
    ) -> None:
        self.writer, self.run, self.run_dir, self.run_path = writer, run, run_dir, run_path
        self.files, self.rendered = files, rendered
        self.data: bytes | None = None
        self.prepared: SectionsJob | None = None

    def prepare(self) -> None:
        """Make the run's sections now, unless its files are (to be) rendered whole."""
        run, trace = self.run, self.run.trace
        if self.rendered or (isinstance(trace, Trace) and len(trace.spans) > SURELY_LARGE_TRACE):
            return
        facts = (
            TraceFacts(trace.id, trace.partial, len(trace.spans))
            if isinstance(trace, Trace)
            else None
        )
        try:
            sections = run_sections(run)
        except Exception:  # rendered on the feeder instead, where its error fails it alone
            return
        self.prepared = SectionsJob(self.run_dir, self.run_path, sections, self.files, facts)

    def sent(self) -> None:
        """The payload crossed to the record writer process: its sections are no longer
        needed here (the record stays, for the listeners, and the files, for a writer
        process that never started: the thread then stores them)."""
        self.prepared = None

    def payload(self) -> SectionsJob | FilesJob:
        if self.prepared is None:
            self.prepare()
        if self.prepared is not None:
            return self.prepared
        if self.rendered:
            return FilesJob(self.files)
        return FilesJob(self.writer._render(self.run, self.run_dir, self.files))


def _relative(path: str, base: str, root: Path) -> str:
    """``path`` relative to the record directory (``base``: its text and a slash), POSIX."""
    if path.startswith(base) and os.sep == "/":
        return path[len(base) :]
    return Path(path).relative_to(root).as_posix()


def _weak(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (bound to a writer) called through a weak reference: nothing once the
    writer is gone."""
    reference = weakref.WeakMethod(method)

    def call(*args: Any) -> Any:
        bound = reference()
        return None if bound is None else bound(*args)

    return call


def _stop_all(background: list[GroupCommitter | CommitProcess]) -> None:
    """A collected writer's finalizer: let its thread and record writer process end."""
    for worker in background:
        worker.stop()


def _numbered_session_files(root: Path, name: str) -> dict[int, Path]:
    """Session number -> ``<root>/<stem>.<n>.<suffix>`` for every such file."""
    stem, suffix = name.rsplit(".", 1)
    prefix = f"{stem}."
    numbered: dict[int, Path] = {}
    for path in Path(root).glob(f"{stem}.*.{suffix}"):
        middle = path.name[len(prefix) : -len(suffix) - 1]
        if middle.isdigit() and int(middle) >= 1 and path.is_file():
            numbered[int(middle)] = path
    return numbered


def keep_session_history(root: Path, name: str) -> Path | None:
    """Keep ``<root>/<name>`` (the file of the latest finished session) as history before a
    resumed session replaces it: hard-linked (copied where links are not supported) to
    ``<stem>.<n>.<suffix>``, ``n`` its session number. Returns that path, or ``None`` when
    it was kept already (an earlier attempt of this resume stopped after keeping it).

    Session 1's file becomes ``<stem>.1.<suffix>``. A directory written before this scheme
    (``name`` = session 1, ``<stem>.2.<suffix>``... = later sessions, no ``.1``) gets its
    ``.1`` file the same way, its numbered files already being history."""
    current = Path(root) / name
    numbered = _numbered_session_files(root, name)
    data = current.read_bytes()
    if 1 in numbered and any(path.read_bytes() == data for path in numbered.values()):
        return None
    number = 1 if 1 not in numbered else max(numbered) + 1
    stem, suffix = name.rsplit(".", 1)
    target = Path(root) / f"{stem}.{number}.{suffix}"
    try:
        os.link(current, target)
    except FileExistsError:
        raise RecordingError(
            f"cannot keep {current} as {target}: {target} already exists", path=target
        ) from None
    except OSError:
        shutil.copy2(current, target)
    return target


def latest_session_file(root: Path, name: str) -> Path | None:
    """The file of the latest session: ``<root>/<name>`` (a resumed session replaces it after
    keeping the earlier one as ``<stem>.<n>.<suffix>``), or ``None`` when none exists.

    A directory written before that scheme (numbered files from 2 up, no ``.1``: ``name``
    was session 1's and each resumed session wrote the next number) gives its
    highest-numbered file."""
    base = Path(root) / name
    numbered = _numbered_session_files(root, name)
    if base.is_file() and (1 in numbered or not numbered):
        return base
    if numbered:
        return numbered[max(numbered)]
    return None


def _failure(future: Future[None]) -> RecordingError | None:
    """The :class:`RecordingError` a finished write raised (waiting for it), or ``None``."""
    error = future.exception()
    if error is None:
        return None
    if isinstance(error, RecordingError):
        return error
    raise error
