"""The recording process's side of the index worker: :class:`WorkerIndex`, a record
listener that hands the live index to a child process (:mod:`autobench.index._worker`).

The recording process only says which run files became durable and when the experiment
finished; the worker reads, parses and writes. Nothing here waits on the worker while runs
go on: :meth:`WorkerIndex.runs_durable` (on the group-commit thread) appends one line of
paths to a queue that a feeder thread writes to the worker's pipe. A worker that falls so
far behind that the queue would hold more than :data:`MAX_PENDING_BYTES` loses the
queued paths and is told so (at the end it reads the planned run files it has not seen
from disk), so the recording process's memory stays small whatever the worker does. :meth:`finished` waits
for the worker (at most :data:`FINISH_TIMEOUT` seconds) so the index is in place when
the experiment returns, and reaps it. Importing this module imports neither pyarrow nor
the worker's code.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autobench.records import DurableRun, ExperimentSummary

_log = logging.getLogger("autobench.index")

MAX_PENDING_BYTES = 4 * 1024 * 1024
"""Bytes of paths the recording process holds for a worker that does not keep up (about
60,000 runs' paths) before it drops them and lets the worker find the rest from the plan."""

FINISH_TIMEOUT = 600.0
"""Seconds :meth:`WorkerIndex.finished` waits for the worker to complete the index."""

READY_TIMEOUT = 120.0
"""Seconds a resumed session waits for the worker to read the earlier index before runs
are added (later, the earlier index is stale and the worker builds from the YAML)."""

_PIPE_SIZE = 1024 * 1024


class _Channel:
    """The queue of lines for the worker, and the feeder thread's loop that writes them.
    Shared by :class:`WorkerIndex` and its feeder thread (which must not hold the listener:
    an abandoned listener is collected, and closes the channel)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.ready = threading.Condition()
        self.lines: deque[bytes] = deque()
        self.pending = 0
        self.closing = False
        self.overflowed = False
        self.broken = False

    def put(self, line: bytes, *, droppable: bool = True) -> None:
        """Queue ``line`` (never blocks on the worker). A droppable line past the bound
        drops what is queued and queues an overflow note instead."""
        with self.ready:
            if self.closing or self.broken or (droppable and self.overflowed):
                return
            if droppable and self.pending + len(line) > MAX_PENDING_BYTES:
                self.overflowed = True
                self.lines.clear()
                line = b'["O"]\n'
                self.pending = 0
            self.lines.append(line)
            self.pending += len(line)
            self.ready.notify()

    def close(self) -> None:
        """No more lines: the feeder writes what is queued, then closes the pipe."""
        with self.ready:
            self.closing = True
            self.ready.notify()

    def feed(self) -> None:
        """The feeder thread: write queued lines to the worker until closed; then close its
        input (end of input: the worker finishes or discards)."""
        stdin = self.process.stdin
        assert stdin is not None
        fd = stdin.fileno()
        while True:
            with self.ready:
                while not self.lines and not self.closing:
                    self.ready.wait()
                data = b"".join(self.lines)
                self.lines.clear()
                self.pending = 0
            if not data:
                break
            if not self.broken:
                try:
                    _write_all(fd, data)
                except OSError:  # the worker is gone; what it would have said, it said
                    with self.ready:
                        self.broken = True
                        self.lines.clear()
        with contextlib.suppress(OSError):
            stdin.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    """Kill the worker and every process it started (its own process group: a replay's
    pool of processes, when it builds the index from the YAML), and reap it. Killing the
    worker alone left those processes replaying the record after the command had ended."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups here, or it is gone already
        with contextlib.suppress(OSError):
            process.kill()
    process.wait()


def _abandon(channel: _Channel, feeder: threading.Thread) -> None:
    """The listener was collected (or the process exits) without :meth:`finished`: the
    worker's input ends, so it discards its staging directory and exits; reap it."""
    channel.close()
    feeder.join(timeout=5)
    process = channel.process
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        stop_worker(process)
    if process.stdout is not None:
        process.stdout.close()


class WorkerIndex:
    """The live index of ``record_dir`` written by a worker process (a
    :class:`~autobench.records.RecordListener`; module docstring). The worker is started
    here, so its imports overlap the first runs; a resumed session waits until it has read
    the record's earlier index (at most :data:`READY_TIMEOUT` seconds). Raises ``OSError``
    when the worker cannot be started."""

    needs_data = False
    """The worker reads each run file back from its path (a RecordListener's choice)."""

    def __init__(self, record_dir: Path, *, resumed: bool) -> None:
        self.root = Path(record_dir)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-P",  # the working directory's modules (a benchmark's queue.py) stay out
                "-m",
                "autobench.index._worker",
                os.fspath(self.root),
                str(os.getpid()),
                "1" if resumed else "0",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=os.getcwd(),
            # Its own process group: a terminal's Ctrl-C (to the foreground group) never
            # reaches it, not even while it starts, before it ignores SIGINT itself; the
            # recording process, interrupted, tells it to finish.
            process_group=0,
            # Pydantic's plugins (Logfire's, when installed: half a second of imports)
            # have nothing to do with the records the worker validates.
            env={**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"},
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        with contextlib.suppress(AttributeError, OSError):  # Linux: fewer blocked writes
            import fcntl

            fcntl.fcntl(self.process.stdin.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        self._said = b""
        self._done = False
        self._channel = _Channel(self.process)
        self._feeder = threading.Thread(
            target=self._channel.feed, name="autobench-index-feeder", daemon=True
        )
        self._feeder.start()
        self._finalizer = weakref.finalize(self, _abandon, self._channel, self._feeder)
        if resumed:
            self._read_until(b"R", time.monotonic() + READY_TIMEOUT)

    @property
    def pid(self) -> int:
        """The worker's process id."""
        return self.process.pid

    def runs_durable(self, record_dir: Path, runs: Sequence[DurableRun]) -> None:
        """Tell the worker the paths of ``runs`` (never waits on it)."""
        line = json.dumps(["G", [durable.path for durable in runs]]) + "\n"
        self._channel.put(line.encode("utf-8"))

    def finished(self, record_dir: Path, summary: ExperimentSummary) -> None:
        """Tell the worker the experiment is finished and wait until it put the index in
        place (or said why not: one warning); a worker that does not end within
        :data:`FINISH_TIMEOUT` seconds is stopped, with a warning."""
        if self._done:
            return
        self._done = True
        self._finalizer.detach()
        deadline = time.monotonic() + FINISH_TIMEOUT
        self._channel.put(b'["F"]\n', droppable=False)
        self._channel.close()
        self._preload_while_busy()
        self._feeder.join(max(0.0, deadline - time.monotonic()))
        ended = not self._feeder.is_alive() and self._read_until(None, deadline)
        if ended:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        if self.process.returncode is None:  # still running past the deadline
            stop_worker(self.process)
            shutil.rmtree(self.root / f".index.live-{os.getpid()}", ignore_errors=True)
            self._warn(f"its worker did not finish within {FINISH_TIMEOUT:g} s")
        else:
            self._report()
        assert self.process.stdout is not None
        self.process.stdout.close()

    def _preload_while_busy(self) -> None:
        """While the worker completes the index and this process would only wait, import
        what reading the index back needs (pyarrow: about 0.15 s of CPU), as the closing
        report of ``autobench run`` does next (:func:`~autobench.index._load.load_index`).
        Not when the worker has already answered: then the import would only add to the
        closing of an experiment that may never read its index. (The worker says it is
        ready, ``R``, once its imports are done, and no one reads that line of a new
        experiment's worker before now: the line alone is no answer; the preload was
        skipped at every closing while the check took any output for one.)"""
        if "autobench.index._load" in sys.modules or self._answered():
            return
        import autobench.index._load  # noqa: F401  (pyarrow, with the worker still busy)

    def _answered(self) -> bool:
        """Whether the worker has said it is done (``D``) or ended its output, from what it
        has said so far (read without waiting, kept for :meth:`_read_until`)."""
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        while select.select([fd], [], [], 0)[0]:
            data = os.read(fd, 65536)
            if not data:
                return True
            self._said += data
        return b"D" in self._said.splitlines()

    def _report(self) -> None:
        """Log the worker's warnings; one warning of its own when it ended without a word."""
        lines = self._said.decode("utf-8", "replace").splitlines()
        warnings = [json.loads(line[2:]) for line in lines if line.startswith("W ")]
        for message in warnings:
            _log.warning("%s", message)
        if not warnings and "D" not in lines:
            self._warn(f"its worker exited with status {self.process.returncode}")

    def _warn(self, why: str) -> None:
        _log.warning(
            "Warning: the columnar index of %s was not written (%s); the record is complete, "
            "`autobench index %s` builds the index",
            self.root,
            why,
            self.root,
        )

    def _read_until(self, marker: bytes | None, deadline: float) -> bool:
        """Read what the worker says until it said the line ``marker`` (``None``: until its
        output ends) or ``deadline`` (``time.monotonic()``) passes; whether it came."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while marker is None or marker not in self._said.splitlines():
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return False
                data = os.read(fd, 65536)
                if not data:
                    return marker is None
                self._said += data
        return True
