"""The record writer process: renders and stores a recording process's runs, group by group.

Started by :class:`~autobench.records._commit_process.CommitProcess` as
``python -P -m autobench.records._commit_worker ROOT FSYNC WANT_DATA PARENT_PID`` (``-P``:
never the modules of the working directory). Its standard
input carries frames (:mod:`autobench.records._commit_frames`), each a pickled list of
``(sequence number, job)``, a job being a :class:`~autobench.records._run_files.SectionsJob`
(a run's sections: ``run.yaml`` is rendered here) or a :class:`FilesJob` (files rendered by
the recording process); a frame holding ``None`` says the experiment is over. Every job
that has arrived when the previous group is done forms the next group, committed by
:meth:`GroupCommitter.commit` (files under temporary names, one data flush, links,
``run.yaml`` last, one directory flush: the same steps and promise as the recording
process's own thread). Then one frame answers for the group: ``[(sequence number, error,
data), ...]``, ``error`` ``None`` or ``(message, path)`` of the
:class:`~autobench.records.RecordingError` that stopped that run, ``data`` the bytes of
its ``run.yaml`` as written when ``WANT_DATA`` is ``1`` (for the record's listeners). A
run is answered only once durable. Its first answer is :data:`READY`, once it has started;
after the end frame it answers ``None`` and exits.

It ignores SIGINT (a Ctrl-C stops the runs; the recording process then finishes the
record, through this worker) and runs in a session of its own. It dies with its parent:
on Linux the kernel kills it when the recording process dies (``PR_SET_PDEATHSIG``), as
it would the recording process's own thread; elsewhere, and if the parent is gone
already, the end of its input stops it before the next group. So a killed recording
process never leaves a writer storing runs behind a ``--resume``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import os
import pickle
import signal
import sys
from pathlib import Path

from autobench.records._atomic import AtomicFiles, PathLike
from autobench.records._commit_frames import READY, FrameReader, write_frame
from autobench.records._errors import RecordingError
from autobench.records._group_commit import MAX_GROUP, GroupCommitter
from autobench.records._run_files import FilesJob, SectionsJob, sections_files

_PR_SET_PDEATHSIG = 1


Job = SectionsJob | FilesJob

Answer = tuple[int, tuple[str, str | None] | None, bytes | None]


class _Render:
    """A :data:`~autobench.records._group_commit.RenderJob` for one job; keeps the bytes
    of its ``run.yaml`` as written."""

    __slots__ = ("data", "files", "job")

    def __init__(self, files: AtomicFiles, job: Job) -> None:
        self.files, self.job = files, job
        self.data: bytes | None = None

    def __call__(self) -> list[tuple[PathLike, bytes]]:
        job = self.job
        if isinstance(job, FilesJob):
            rendered: list[tuple[PathLike, bytes]] = list(job.files)
        else:
            rendered = sections_files(self.files.localize, self.files.root, job)
        path, data = rendered[-1]
        self.data = self.files.localize(path, data)
        rendered[-1] = (path, self.data)
        return rendered


class _Outcome:
    """A job's outcome (:class:`~autobench.records._group_commit.Outcome`): its error or
    ``None``. The worker commits on its one thread, so a future's lock and condition (a
    fifth of its time per trivial run) buy nothing here."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None

    def set_running_or_notify_cancel(self) -> bool:
        return True

    def set_result(self, result: None) -> None:
        pass

    def set_exception(self, exception: BaseException | None) -> None:
        self.error = exception


def commit(
    committer: GroupCommitter,
    files: AtomicFiles,
    jobs: list[tuple[int, Job]],
    *,
    want_data: bool,
) -> list[Answer]:
    """Commit ``jobs`` as one group; the answer of each, in order."""
    group = [(_Render(files, job), _Outcome()) for _, job in jobs]
    committer.commit(group)
    answers: list[Answer] = []
    for (sequence, _), (render, outcome) in zip(jobs, group, strict=True):
        error = outcome.error
        if error is None:
            answers.append((sequence, None, render.data if want_data else None))
        else:
            answers.append((sequence, _described(error), None))
    return answers


def _described(error: BaseException) -> tuple[str, str | None]:
    if isinstance(error, RecordingError):
        return str(error), None if error.path is None else os.fspath(error.path)
    return f"the record writer process failed: {type(error).__name__}: {error}", None


def _die_with_parent(parent: int) -> None:
    """Be killed by the kernel when the recording process dies (Linux); exit now if it
    is gone already."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def main(argv: list[str]) -> int:
    root, fsync, want_data, parent = Path(argv[0]), argv[1] == "1", argv[2] == "1", int(argv[3])
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()  # the imports: never garbage, walked by no collection from here on
    # What this process allocates is plain document values and bytes, freed by reference
    # counting when their group is answered: the cyclic collector only walked them (a
    # collection every few hundred allocations). The one cycle it can make, a failed run's
    # exception with its traceback, is collected after the group that failed.
    gc.disable()
    files = AtomicFiles(root, fsync=fsync)
    committer = GroupCommitter(files, yields=False)
    reader = FrameReader(sys.stdin.fileno())
    out = sys.stdout.fileno()
    try:
        write_frame(out, pickle.dumps(READY))  # started: from here on it stores runs
        while True:
            frames = reader.read()
            if frames is None:  # the recording process is gone: nothing more to answer
                return 0
            jobs: list[tuple[int, Job]] = []
            closing = False
            for frame in frames:
                batch = pickle.loads(frame)
                if batch is None:
                    closing = True
                else:
                    jobs.extend(batch)
            for start in range(0, len(jobs), MAX_GROUP):
                answers = commit(
                    committer, files, jobs[start : start + MAX_GROUP], want_data=want_data
                )
                write_frame(out, pickle.dumps(answers, pickle.HIGHEST_PROTOCOL))
                if any(error is not None for _, error, _ in answers):
                    gc.collect()
            if closing:
                write_frame(out, pickle.dumps(None))
                return 0
    except BrokenPipeError:  # the recording process is gone
        return 0
    finally:
        files.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
