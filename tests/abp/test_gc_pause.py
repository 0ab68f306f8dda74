"""The collector pause nests, overlaps across threads and restores what it found."""

from __future__ import annotations

import gc
import threading

from autobench.abp._gc import gc_paused


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
