"""Group commit in a process of its own: the recording process's side of the record writer
process (:mod:`autobench.records._commit_worker`).

:class:`~autobench.records._group_commit.GroupCommitter` renders and writes on a thread of
the recording process, so it shares the interpreter with the event loop that runs the
tasks: every file system call hands the interpreter lock back and forth, and at thousands
of runs a second the two threads mostly wait for each other (measured: 4,000 trivial runs,
the event loop's thread busy 0.5 s of a 1.1 s wall). :class:`CommitProcess` keeps the same
contract (:meth:`submit` returns a future resolved once the run is durable, :meth:`close`
waits for everything) while a child process does the rendering and the writing:

- :meth:`submit` queues a job (never waiting for the child; past
  :data:`~autobench.records._group_commit.MAX_PENDING_RUNS` runs not yet durable it blocks,
  as the thread does, and the runtime holds its runs back before that);
- a feeder thread pickles what is queued into frames and writes them to the child's pipe;
- a reader thread reads the child's answers, resolves the futures (and calls
  ``after_group`` with the durable jobs, as the thread does);
- a child that dies fails every run it has not answered with a
  :class:`~autobench.records.RecordingError` saying so, and every later one: the session
  ends as on a storage failure, and ``--resume`` completes the record;
- a child that ends before it says it started (``sys.executable`` is not a Python that
  imports Autobench, as in some embedded interpreters) has stored nothing: every run
  goes to ``fallback`` instead (the recording process's own thread), with one warning.

Jobs are plain data (:class:`~autobench.records._run_files.SectionsJob`,
:class:`~autobench.records._run_files.FilesJob`): the child imports Autobench's records
only, never the user's code.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

from autobench.records._commit_frames import READY, FrameReader, write_frame
from autobench.records._errors import RecordingError
from autobench.records._group_commit import MAX_PENDING_RUNS

YIELD_AFTER = 0.001
"""Seconds of resolving answered runs after which the reader thread yields the interpreter
(between two runs), so the event loop never waits for it much longer than that."""

_log = logging.getLogger("autobench.records")

_PIPE_SIZE = 1024 * 1024

FRAME_JOBS = 64
"""Jobs pickled into one frame at most: the feeder holds the interpreter for one frame's
pickling at a time (about 0.4 ms for 64 runs' sections, made beforehand by the thread that
submitted them), so the event loop is never kept waiting for a large backlog's."""


class SentJob(Protocol):
    """A job :class:`CommitProcess` sends: ``payload()`` (called on the feeder thread)
    gives what crosses the pipe, best made beforehand when cheap (the feeder holds the
    interpreter while it runs); ``sent()`` is called once it crossed, so the job can drop
    what it made for it (held until the run is durable, it would only be walked by the
    collector and count in memory); ``data`` is set to the bytes of its ``run.yaml`` as
    written when the child sends them."""

    data: bytes | None

    def payload(self) -> Any: ...

    def sent(self) -> None: ...


class CommitProcess:
    """Stores runs under ``root`` through a record writer process (module docstring).

    Raises ``OSError`` when the process cannot be started (the caller then stores on a
    thread). ``want_data``: the child sends back each ``run.yaml``'s bytes (for listeners);
    ``after_group(jobs)``, when given, is called on the reader thread with the jobs of each
    group once they are durable; ``fallback(job)`` stores a job another way when the child
    ends before it started (its future stands for the job's)."""

    def __init__(
        self,
        root: Path,
        *,
        fsync: bool,
        want_data: bool,
        after_group: Callable[[list[SentJob]], None] | None = None,
        fallback: Callable[[SentJob], Future[None]] | None = None,
    ) -> None:
        self._after_group = after_group
        self._fallback = fallback
        self._started = False
        self._fell_back = False
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-P",  # the working directory's modules (a benchmark's queue.py) stay out
                "-m",
                "autobench.records._commit_worker",
                os.fspath(root),
                "1" if fsync else "0",
                "1" if want_data else "0",
                str(os.getpid()),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C to the terminal's group never reaches it
            # It validates nothing: pydantic's plugins (an observability SDK's, found by
            # entry point) would only double its start-up.
            env={**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"},
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        with contextlib.suppress(AttributeError, OSError):  # Linux: fewer, larger writes
            import fcntl  # POSIX only

            fcntl.fcntl(self._process.stdin.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        self._slots = threading.BoundedSemaphore(MAX_PENDING_RUNS)
        self._ready = threading.Condition()
        self._outbox: deque[tuple[int, SentJob]] = deque()
        self._waiting: dict[int, tuple[SentJob, Future[None]]] = {}
        self._numbers = itertools.count()
        self._closing = False
        self._failure: str | None = None
        self._feeder = threading.Thread(
            target=self._feed, name="autobench-record-writer-feeder", daemon=True
        )
        self._reader = threading.Thread(
            target=self._read, name="autobench-record-writer-reader", daemon=True
        )
        self._feeder.start()
        self._reader.start()

    @property
    def pid(self) -> int:
        """The record writer process's id."""
        return self._process.pid

    def submit(self, job: SentJob) -> Future[None]:
        """Queue ``job``; its future resolves once its files are durable (or failed)."""
        self._slots.acquire()
        future: Future[None] = Future()
        future.add_done_callback(lambda _: self._slots.release())
        with self._ready:
            if not self._fell_back:
                if self._failure is not None or self._closing:
                    failure = self._failure or "the record writer process was closed"
                    future.set_exception(RecordingError(failure))
                    return future
                number = next(self._numbers)
                self._waiting[number] = (job, future)
                self._outbox.append((number, job))
                if len(self._outbox) == 1:  # the feeder waits only for an empty outbox
                    self._ready.notify()
                return future
        assert self._fallback is not None  # the child never started: the thread stores it
        _chain(self._fallback(job), future)
        return future

    def close(self) -> None:
        """Wait until every submitted job is answered, then end the process."""
        self.stop()
        self._feeder.join()
        self._reader.join()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=10)
        if self._process.returncode is None:
            self._process.kill()
            self._process.wait()

    def stop(self) -> None:
        """End the child once every submitted job is sent and answered, without waiting for
        it (for a writer that is collected without being closed)."""
        with self._ready:
            self._closing = True
            self._ready.notify_all()

    def _feed(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        descriptor = stdin.fileno()
        try:
            while True:
                with self._ready:
                    while not self._outbox and not self._closing:
                        self._ready.wait()
                    batch = list(self._outbox)
                    self._outbox.clear()
                    closing = self._closing
                self._send(descriptor, batch)
                del batch  # held while waiting, its jobs would keep their writer alive
                if closing:
                    write_frame(descriptor, pickle.dumps(None))
                    return
        except OSError:  # the child is gone: the reader fails what it did not answer
            return
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def _send(self, descriptor: int, batch: list[tuple[int, SentJob]]) -> None:
        """Send ``batch`` in frames of :data:`FRAME_JOBS` jobs (raises ``OSError`` when the
        child is gone)."""
        for start in range(0, len(batch), FRAME_JOBS):
            jobs = self._payloads(batch[start : start + FRAME_JOBS])
            try:
                frame = pickle.dumps(jobs, pickle.HIGHEST_PROTOCOL) if jobs else None
            except Exception as error:  # (MemoryError: one frame too large)
                self._fail([number for number, _ in jobs], error)
                continue
            if frame is not None:
                write_frame(descriptor, frame)
                for _, job in batch[start : start + FRAME_JOBS]:
                    job.sent()

    def _fail(self, numbers: list[int], error: BaseException) -> None:
        """Fail the runs ``numbers`` (never sent to the child) with ``error``."""
        for number in numbers:
            with self._ready:
                waiting = self._waiting.pop(number, None)
            if waiting is not None:
                waiting[1].set_exception(error)

    def _payloads(self, batch: list[tuple[int, SentJob]]) -> list[tuple[int, Any]]:
        """What crosses the pipe for ``batch``; a job whose payload cannot be made fails
        alone (as a job whose rendering fails on the thread does)."""
        jobs: list[tuple[int, Any]] = []
        for number, job in batch:
            try:
                jobs.append((number, job.payload()))
            except Exception as error:
                self._fail([number], error)
        return jobs

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        reader = FrameReader(stdout.fileno())
        finished = False
        try:
            while not finished:
                frames = reader.read()
                if frames is None:
                    break
                for frame in frames:
                    answers = pickle.loads(frame)
                    if answers is None:
                        finished = True
                    elif answers == READY:
                        self._started = True
                    else:
                        self._answered(answers)
        finally:
            stdout.close()
            if not finished:
                self._child_gone()
            else:  # it exits after its last answer: reap it (close() may never be called)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(timeout=10)

    def _answered(self, answers: list[tuple[int, tuple[str, str | None] | None, Any]]) -> None:
        # Resolving a run's future runs its callbacks (about 10 us a run here): a group of
        # hundreds would hold the interpreter for milliseconds while the event loop waits,
        # so the interpreter is handed back every YIELD_AFTER seconds.
        durable: list[SentJob] = []
        with self._ready:
            answered = [(self._waiting.pop(number), error, data) for number, error, data in answers]
        held = time.perf_counter()
        for index, ((job, future), error, data) in enumerate(answered):
            if error is None:
                job.data = data
                durable.append(job)
                future.set_result(None)
            else:
                message, path = error
                future.set_exception(RecordingError(message, path=path))
            if index % 16 == 15 and time.perf_counter() - held > YIELD_AFTER:
                time.sleep(0)  # let the event loop's thread take the interpreter
                held = time.perf_counter()
        if self._after_group is not None and durable:
            self._after_group(durable)

    def _child_gone(self) -> None:
        """The child ended without its last answer: fail every run it did not answer (or
        hand them all to the fallback, when it never started)."""
        code = self._process.wait()
        if not self._started and self._fallback is not None:
            with self._ready:
                self._fell_back = True
                waiting, self._waiting = self._waiting, {}
                self._outbox.clear()
                self._ready.notify_all()
            _log.warning(
                "the record writer process could not start (%s -m %s exited with code %s); "
                "the runs are stored by a thread of this process",
                sys.executable,
                "autobench.records._commit_worker",
                code,
            )
            for number in sorted(waiting):
                job, future = waiting[number]
                _chain(self._fallback(job), future)
            return
        failure = (
            f"the record writer process (pid {self._process.pid}) exited with code {code} "
            "before storing every run; the runs reported finished are stored, and "
            "`autobench run --resume` completes the record"
        )
        with self._ready:
            self._failure = failure
            waiting, self._waiting = self._waiting, {}
            self._outbox.clear()
            self._ready.notify_all()
        for _, future in waiting.values():
            if not future.done():
                future.set_exception(RecordingError(failure))


def _chain(inner: Future[None], outer: Future[None]) -> None:
    """Resolve ``outer`` as ``inner`` resolves."""

    def copy(done: Future[None]) -> None:
        error = done.exception()
        if error is None:
            outer.set_result(None)
        else:
            outer.set_exception(error)

    inner.add_done_callback(copy)
