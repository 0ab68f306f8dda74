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
- full collections come ten times less often (:func:`rarer_full_collections`): each one
  walks everything the runs keep alive at that moment (the runs in flight, and those
  waiting for the record's group commit: a thousand runs' records), a pause of 15-35 ms
  every few thousand trivial runs, which the event loop's lag showed;
- on exit, everything frozen is handed back to the collector (``gc.unfreeze``), so cyclic
  garbage that formed among frozen objects is collected afterwards as it would have been,
  and the thresholds come back with the next full collection.

Nothing is freed later than the end of the runs, and nothing is changed when the collector is
off (the caller turned it off) or already managed this way (``autobench run`` installs
:func:`freeze_survivors` itself, before its first run, and keeps it until exit).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

FULL_COLLECTION_EVERY = 100
"""Collections of the middle generation between two full collections while runs go on
(Python's default is 10). Measured on 2,000 runs of 50 ms at concurrency 200, recorded
(``autobench run``, one process): the default made one or two full collections of 14-34 ms
of the event loop's thread during the runs; 100 made none, and the middle generation's
collections stayed at 1-3 ms (docs/performance.md, "Sixth round")."""


_waiting_thresholds: tuple[int, int, int] | None = None
"""The thresholds to give back with the next full collection (:func:`rarer_full_collections`)."""


def rarer_full_collections() -> Callable[[], None]:
    """Raise the collector's third threshold to :data:`FULL_COLLECTION_EVERY` (when it is
    lower); returns the function that gives the thresholds back.

    They come back with the next full collection (:func:`_give_back`, a ``gc.callbacks``
    entry installed once), not at once: the middle generation's collections counted
    meanwhile would make the very next one a full collection, walking everything the runs
    kept (a quarter of a second for 8,000 runs' records kept in process) in whatever the
    program does next. A program that set thresholds of its own meanwhile keeps them."""
    global _waiting_thresholds
    current = gc.get_threshold()
    waiting = _waiting_thresholds
    if waiting is not None and current == (*waiting[:2], FULL_COLLECTION_EVERY):
        current = waiting  # still raised by the last experiment: its thresholds stand
    _waiting_thresholds = None
    if len(current) != 3 or not 0 < current[2] < FULL_COLLECTION_EVERY:
        return lambda: None
    original: tuple[int, int, int] = (current[0], current[1], current[2])
    gc.set_threshold(original[0], original[1], FULL_COLLECTION_EVERY)

    def give_back() -> None:
        global _waiting_thresholds
        _waiting_thresholds = original
        if _give_back not in gc.callbacks:
            gc.callbacks.append(_give_back)

    return give_back


def _give_back(phase: str, info: dict[str, int]) -> None:
    """A ``gc.callbacks`` entry: once a full collection ends, put back the thresholds an
    experiment raised (unless the program set others meanwhile). It stays installed (a list
    entry removed while the collector calls the list would make it skip the next one)."""
    global _waiting_thresholds
    waiting = _waiting_thresholds
    if phase == "stop" and info["generation"] == 2 and waiting is not None:
        _waiting_thresholds = None
        if gc.get_threshold() == (*waiting[:2], FULL_COLLECTION_EVERY):
            gc.set_threshold(*waiting)


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
    restore = rarer_full_collections()
    try:
        yield
    finally:
        restore()
        if freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()
