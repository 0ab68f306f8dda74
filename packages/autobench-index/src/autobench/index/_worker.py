"""The index worker: a child process that writes the live index of one record directory.

Started by the recording process (:class:`~autobench.index._worker_link.WorkerIndex`) as
``python -m autobench.index._worker RECORD_DIR OWNER_PID RESUMED``, it runs
:class:`~autobench.index._live.LiveIndex` on what its standard input says, one JSON
array a line:

- ``["G", [path, ...]]``: these run files (relative to the record directory) are durable;
  they are read from disk, hashed and parsed, their rows added;
- ``["O"]``: the recording process dropped paths it could not hand over fast enough; at
  the end the worker reads every planned run file it has not seen from disk;
- ``["F"]``: the experiment is finished (``summary.yaml`` stored); the index is completed
  and put in place, then the worker says ``D`` and exits.

End of input without ``F`` means the recording process is gone (killed, or it abandoned
the experiment): the staging directory is removed and the worker exits. It answers on its
standard output, one line each: ``R`` once it is ready (a resumed session's earlier index
read), ``W <json text>`` for each warning of ``autobench.index`` (the recording process
logs it) and ``D`` at the end. It runs in a process group of its own and ignores SIGINT
as well: a Ctrl-C (or a SIGINT sent to the recording process's group) never stops it; the
recording process, which finishes an interrupted experiment's record, then tells the worker
to finish the index too.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import IO


class _Forward(logging.Handler):
    """Hands each warning to the recording process as a ``W`` line."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        say(self.out, "W " + json.dumps(record.getMessage()))


def say(out: IO[bytes], line: str) -> None:
    """Write one line to the recording process; nothing when it is gone."""
    try:
        out.write(line.encode("utf-8") + b"\n")
        out.flush()
    except OSError:
        pass


def main(argv: list[str]) -> int:
    """Run the worker (module docstring); ``argv``: record directory, the recording
    process's pid, ``1`` when the session resumes a record. Returns the exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The worker runs at the recording process's priority. At a lower one (nice 10) it
    # gained nothing on a quiet machine (8,000 trivial runs in process, 2,000 x 50 ms
    # through the command: the same throughput and loop lag) and, with other CPU-bound
    # work in the same session, it was starved: the recording process then waited 15 to
    # 21 s for the index of 8,000 runs, against 0.4 to 1.6 s at the same priority
    # (docs/performance.md, "Seventh round").
    root, owner, resumed = argv[0], int(argv[1]), argv[2] == "1"
    out = sys.stdout.buffer
    log = logging.getLogger("autobench.index")
    log.addHandler(_Forward(out))
    log.setLevel(logging.WARNING)
    log.propagate = False
    _without_numpy()
    try:
        from autobench.index._live import LiveIndex  # pyarrow and the records, while runs go on

        index = LiveIndex.of_record(Path(root), resumed=True, owner=owner) if resumed else None
    except Exception as error:
        log.warning(
            "Warning: the columnar index of %s will not be written (%s: %s); "
            "`autobench index %s` builds it",
            root,
            type(error).__name__,
            error,
            root,
        )
        say(out, "R")  # nothing to wait for
        return _drain(out)
    _freeze()  # the modules (and a resumed record's earlier index)
    say(out, "R")
    for line in sys.stdin.buffer:
        if os.getppid() != owner:  # the recording process is gone: what is left is moot
            break
        message = json.loads(line)
        try:
            if index is None:  # experiment.yaml is stored before any run is durable
                index = LiveIndex.of_record(Path(root), resumed=False, owner=owner)
                _freeze()  # the experiment record (its plan: a few objects a run)
        except Exception as error:
            log.warning(
                "Warning: the columnar index of %s was not written (%s: %s); the record is "
                "complete, `autobench index %s` builds the index",
                root,
                type(error).__name__,
                error,
                root,
            )
            return _drain(out)
        kind = message[0]
        if kind == "G":
            index.runs_stored(message[1])
        elif kind == "O":
            index.give_up_rows()
        elif kind == "F":
            index.finish()
            say(out, "D")
            return 0
    if index is not None:
        index.discard()
    return 0


def _without_numpy() -> None:
    """Keep numpy out of the worker: pyarrow imports it when it is installed, though it
    needs none (an optional dependency), and nor does the worker (Arrow arrays built from
    buffers, Parquet files written and read). That import was a third of the worker's
    start-up here (about 0.1 s of its 0.3 s of CPU), while the first runs land and wait
    for it. A module importing numpy in the worker would fail with ``ImportError``: the
    index is then not written, with a warning that names ``autobench index``."""
    # None in sys.modules: an import of numpy raises ImportError (the import system's rule)
    sys.modules.setdefault("numpy", None)  # type: ignore[arg-type]


def _freeze() -> None:
    """Freeze what the worker keeps until it exits (its modules, the experiment record):
    the cyclic collector never traverses it again (``gc.freeze()``). The worker's other
    objects are each run's records, freed by reference counting as soon as its rows are
    taken, and the rows; so the collections that the allocations of thousands of runs
    trigger, the full ones included, stay small (without it, those at the end of a
    4,000-run experiment took half of the index's completion here, about 50 ms). Frozen
    objects live as long as the process, which ends with the experiment."""
    gc.freeze()


def _drain(out: IO[bytes]) -> int:
    """After a warning: read the rest of the input (the recording process never blocks on
    a worker that stopped), then say ``D`` if the experiment finished."""
    for line in sys.stdin.buffer:
        if line.startswith(b'["F"'):
            say(out, "D")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
