"""The cyclic garbage collector while an experiment's runs go on.

Every young collection walks the objects allocated since the last one, and every full
collection walks every tracked object of the process: the loaded spec and its dataset (tens
of thousands of parsed nodes for a large one), the imported SDKs, and the evidence the
experiment keeps for its summary and closing report. With thousands of runs a second, the
full collections become pauses of the event loop that grow with the experiment (measured:
4,000 trivial runs recorded in process, lag p99 27-60 ms and 1.9 s; with the collector
managed as below, 10 ms and 1.55 s: ``tools/bench_throughput.py``, docs/performance.md).

:func:`runs_collection` manages it for the span of the runs:

- on entry, what exists is frozen (``gc.freeze``): moved out of the collector's sight, still
  freed by reference counting when it dies;
- after each full collection, what survived it (all reachable: the collection has just
  removed the cyclic garbage) is frozen too (:func:`freeze_survivors`), so the next full
  collection walks only what was kept since;
- on exit, everything frozen is handed back to the collector (``gc.unfreeze``), so cyclic
  garbage that formed among frozen objects is collected afterwards as it would have been.

Nothing is freed later than the end of the runs, and nothing is changed when the collector is
off (the caller turned it off) or already managed this way (``autobench run`` installs
:func:`freeze_survivors` itself, before its first run, and keeps it until exit).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_survivors(phase: str, info: dict[str, int]) -> None:
    """A ``gc.callbacks`` entry: after a full collection (generation 2), freeze what
    survived it."""
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


@contextmanager
def runs_collection() -> Iterator[None]:
    """Freeze what exists and what survives each full collection inside the block; hand it
    all back to the collector at the end (module docstring). A no-op when the collector is
    off or :func:`freeze_survivors` is installed already."""
    if not gc.isenabled() or freeze_survivors in gc.callbacks:
        yield
        return
    gc.freeze()
    gc.callbacks.append(freeze_survivors)
    try:
        yield
    finally:
        if freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()
