"""The collector pause nests, overlaps across threads and restores what it found."""

from __future__ import annotations

import gc
import threading

from autobench.abp._gc import gc_paused, settle_long_lived


def test_pauses_nest_and_collection_resumes_after_the_last() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_overlapping_pauses_in_threads_end_with_collection_on() -> None:
    entered, release = threading.Barrier(3), threading.Event()

    def hold() -> None:
        with gc_paused():
            entered.wait()
            release.wait()

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for thread in threads:
        thread.start()
    entered.wait()
    assert not gc.isenabled()
    release.set()
    for thread in threads:
        thread.join()
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_application_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_settling_moves_young_objects_to_the_oldest_generation_and_keeps_them_collectable() -> None:
    import weakref

    class Node:
        pass

    gc.collect()
    with gc_paused():
        built = [[index] for index in range(5_000)]
        cycle = Node()
        cycle.self = cycle  # type: ignore[attr-defined]
        alive = weakref.ref(cycle)
        del cycle
        assert gc.get_count()[0] >= 5_000
        settle_long_lived()
        assert gc.get_count()[0] < 5_000  # none of them is young any more
    assert built[-1] == [4_999] and gc.get_freeze_count() == 0
    assert alive() is not None  # garbage in a cycle waits for a full collection...
    gc.collect()
    assert alive() is None  # ...and is freed by it


def test_settling_leaves_objects_the_application_froze_alone() -> None:
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        settle_long_lived()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
