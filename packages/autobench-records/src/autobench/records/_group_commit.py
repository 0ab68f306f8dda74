"""Group commit: the runs that end close together are made durable by one shared flush.

:class:`GroupCommitter` owns one background thread. A job handed to :meth:`GroupCommitter.submit`
renders the files of one run (``[(path, bytes), ...]``, its ``run.yaml`` last); the thread
takes every job waiting (at most :data:`MAX_GROUP`), and for that group:

1. renders each job and writes its files under temporary names (no flush yet);
2. makes their data durable in one round (:meth:`AtomicFiles.sync_data`: one ``syncfs`` of
   the record's file system on Linux, else an ``fdatasync`` of each file, issued together);
3. links each run's files to their final names, artifacts before ``run.yaml``, syncing the
   directories between the two when the group has artifacts;
4. makes the new directory entries durable in one round (:meth:`AtomicFiles.sync`);
5. only then resolves each job's future, so a run is reported stored once its group is;
6. hands the jobs of the group that are durable to ``after_group`` (when given), still on
   the thread: derived data (a columnar index) follows the records group by group.

A job whose rendering or writing fails fails alone (its temporary files are removed; the
others of its group go on); a failed flush fails every job of the group. Nothing is ever
under a final name before its data is on disk, and ``run.yaml`` never before its artifacts.
While the thread renders and writes, it yields the interpreter between two runs once it has
held it for :data:`YIELD_AFTER`, so the event loop that runs the tasks is not kept waiting.

The same promise as one flush per run, at a fraction of the flushes: runs that end while a
group is being flushed form the next group, so the group grows with the rate of runs (the
way databases commit transactions in groups).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Protocol

from autobench.records._atomic import AtomicFiles, PathLike

MAX_GROUP = 512
"""Runs made durable together at most (a larger backlog is committed in several groups)."""

MAX_PENDING_RUNS = 2048
"""Runs that may wait for the committer at once; :meth:`GroupCommitter.submit` blocks past it
(the runtime holds its runs back before that, without blocking its event loop)."""

YIELD_AFTER = 0.002
"""Seconds of rendering and writing after which the thread yields the interpreter (between
two runs), so the event loop never waits for it much longer than that."""

RenderJob = Callable[[], Sequence[tuple[PathLike, bytes]]]
"""Renders the files of one run: ``[(final path, bytes), ...]``, ``run.yaml`` last."""


class Outcome(Protocol):
    """What :meth:`GroupCommitter.commit` needs of a job's future: a
    :class:`concurrent.futures.Future`, or anything as simple that keeps the result
    (the record writer process, which commits on its one thread, needs no lock)."""

    def set_running_or_notify_cancel(self) -> bool: ...

    def set_result(self, result: None) -> None: ...

    def set_exception(self, exception: BaseException | None) -> None: ...


class GroupCommitter:
    """Stores runs through ``files`` in groups on one background thread (module docstring).

    :meth:`submit` returns a future resolved with ``None`` once the run's files are durable,
    or with the exception that stopped them (a :class:`RecordingError` naming the path).
    :meth:`close` waits for every submitted job and stops the thread. ``after_group(jobs)``,
    when given, is called on the thread with the jobs of each group once they are durable
    (their futures resolved); what it raises is the caller's to catch (it fails nothing).
    ``yields=False``: never yield the interpreter (a process with no event loop to share it
    with: the record writer process)."""

    def __init__(
        self,
        files: AtomicFiles,
        after_group: Callable[[list[RenderJob]], None] | None = None,
        *,
        yields: bool = True,
    ) -> None:
        self._files = files
        self._yields = yields
        self._after_group = after_group
        self._queue: deque[tuple[RenderJob, Future[None]]] = deque()
        self._condition = threading.Condition()
        self._slots = threading.BoundedSemaphore(MAX_PENDING_RUNS)
        self._closing = False
        self._thread: threading.Thread | None = None

    def submit(self, job: RenderJob) -> Future[None]:
        """Queue ``job``; its future resolves once its files are durable (or failed)."""
        self._slots.acquire()
        future: Future[None] = Future()
        future.add_done_callback(lambda _: self._slots.release())
        with self._condition:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="autobench-group-commit", daemon=True
                )
                self._thread.start()
            self._queue.append((job, future))
            self._condition.notify()
        return future

    def close(self) -> None:
        """Commit every queued job, then stop the thread (a later submit starts another)."""
        with self._condition:
            thread, self._thread = self._thread, None
            if thread is None:
                return
            self._closing = True
            self._condition.notify()
        thread.join()
        with self._condition:
            self._closing = False

    def stop(self) -> None:
        """Let the thread end once it has committed every queued job, without waiting for
        it (for a writer that is collected without being closed)."""
        with self._condition:
            if self._thread is not None:
                self._closing = True
                self._condition.notify()

    def _loop(self) -> None:
        while True:
            with self._condition:
                while not self._queue and not self._closing:
                    self._condition.wait()
                if not self._queue:
                    return
                count = min(len(self._queue), MAX_GROUP)
                group = [self._queue.popleft() for _ in range(count)]
            try:
                self.commit(group)
            except BaseException as error:  # a defect: fail the group, keep the thread
                for _, future in group:
                    if not future.done():
                        future.set_exception(error)
            del group  # held while waiting, its futures would keep their writer alive

    def commit(self, group: Sequence[tuple[RenderJob, Outcome]]) -> None:
        """Make ``group`` durable on the calling thread (steps 1 to 6 of the module
        docstring), resolving each future; the thread's loop calls it, and so does the
        record writer process (:mod:`autobench.records._commit_worker`), which has no
        thread for it."""
        staged: list[tuple[Outcome, list[tuple[str, PathLike]]]] = []
        held = time.perf_counter()
        for job, future in group:
            if not future.set_running_or_notify_cancel():
                continue
            written: list[tuple[str, PathLike]] = []
            try:
                for path, data in job():
                    written.append((self._files.stage(path, data), path))
            except BaseException as error:  # this run fails alone
                _discard(written)
                future.set_exception(error)
            else:
                staged.append((future, written))
            if self._yields and time.perf_counter() - held > YIELD_AFTER:
                time.sleep(0)  # let the event loop thread take the interpreter
                held = time.perf_counter()
        if not staged:
            return
        try:
            self._files.sync_data([temporary for _, written in staged for temporary, _ in written])
        except BaseException as error:
            for future, written in staged:
                _discard(written)
                future.set_exception(error)
            return
        if any(len(written) > 1 for _, written in staged):
            staged = self._publish(staged, last=False)
            staged = self._flush_dirs(staged)
        staged = self._publish(staged, last=True)
        staged = self._flush_dirs(staged)
        for future, _ in staged:
            future.set_result(None)
        if self._after_group is not None and staged:
            durable = {id(future) for future, _ in staged}
            self._after_group([job for job, future in group if id(future) in durable])

    def _publish(
        self, staged: list[tuple[Outcome, list[tuple[str, PathLike]]]], *, last: bool
    ) -> list[tuple[Outcome, list[tuple[str, PathLike]]]]:
        """Link every run's artifacts (``last=False``) or its ``run.yaml`` (``last=True``);
        return the runs still going."""
        going: list[tuple[Outcome, list[tuple[str, PathLike]]]] = []
        for future, written in staged:
            files = written[-1:] if last else written[:-1]
            try:
                for temporary, path in files:
                    self._files.publish(temporary, path)
            except BaseException as error:
                _discard(written)
                future.set_exception(error)
            else:
                going.append((future, written))
        return going

    def _flush_dirs(
        self, staged: list[tuple[Outcome, list[tuple[str, PathLike]]]]
    ) -> list[tuple[Outcome, list[tuple[str, PathLike]]]]:
        try:
            self._files.sync()
        except BaseException as error:
            for future, _ in staged:
                future.set_exception(error)
            return []
        return staged


def _discard(written: Sequence[tuple[str, PathLike]]) -> None:
    for temporary, _ in written:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
