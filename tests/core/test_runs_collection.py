"""The cyclic collector while an experiment's runs go on (autobench.core.runtime._collection),
through real runs of a task module: inside the runs, what existed is frozen and what survives
a full collection is frozen too; once they are over, the program's collector is as it was
(nothing left frozen, no callback left); a program that turned its collector off keeps it off
and unfrozen; an experiment that fails hands everything back as well."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from runtime_support import make_spec, run, write_task_module

from autobench.core.runtime import TaskInterrupted
from autobench.core.runtime._collection import FULL_COLLECTION_EVERY, freeze_survivors

TASK = """
import gc


def observe(ctx, case):
    frozen = gc.get_freeze_count()
    kept = [[] for _ in range(1000)]  # containers alive through the collection below
    gc.collect()
    return {
        "enabled": gc.isenabled(),
        "frozen": frozen,
        "frozen_after_full": gc.get_freeze_count() - frozen,
        "managed": any(getattr(c, "__name__", "") == "freeze_survivors" for c in gc.callbacks),
        "kept": len(kept),
        "thresholds": list(gc.get_threshold()),
    }


def interrupt(ctx, case):
    raise KeyboardInterrupt  # not a task failure: it ends the experiment
"""


def _outputs(tmp_path: Path, target: str) -> list[dict[str, object]]:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(tmp_path, f"{module}:{target}", cases=[{"id": "a"}, {"id": "b"}])
    result = run(spec)
    return [dict(item.output) for item in result.runs]  # type: ignore[arg-type]


def test_the_runs_see_a_managed_collector_and_the_program_gets_it_back(tmp_path: Path) -> None:
    before = gc.get_freeze_count()
    gc.collect()  # thresholds an earlier experiment of this process raised come back
    thresholds = gc.get_threshold()
    outputs = _outputs(tmp_path, "observe")
    assert len(outputs) == 2
    for output in outputs:
        assert output["enabled"] is True and output["managed"] is True
        assert isinstance(output["frozen"], int) and output["frozen"] > before + 10_000, output
        assert isinstance(output["frozen_after_full"], int), output
        assert output["frozen_after_full"] >= 1_000, output  # the task's kept lists, at least
        # full collections ten times rarer while the runs go on
        assert output["thresholds"] == [*thresholds[:2], FULL_COLLECTION_EVERY], output
    assert gc.isenabled()
    assert gc.get_freeze_count() == before
    assert freeze_survivors not in gc.callbacks
    gc.collect()  # the thresholds come back with the next full collection
    assert gc.get_threshold() == thresholds


def test_a_program_with_its_collector_off_keeps_it_off_and_unfrozen(tmp_path: Path) -> None:
    gc.disable()
    try:
        outputs = _outputs(tmp_path, "observe")
    finally:
        gc.enable()
    for output in outputs:
        assert output["enabled"] is False and output["managed"] is False
        assert output["frozen"] == 0 and output["frozen_after_full"] == 0, output
    assert gc.get_freeze_count() == 0
    assert freeze_survivors not in gc.callbacks


def test_an_experiment_ended_by_its_task_hands_the_collector_back(tmp_path: Path) -> None:
    before = gc.get_freeze_count()
    gc.collect()  # thresholds an earlier experiment of this process raised come back
    thresholds = gc.get_threshold()
    with pytest.raises(TaskInterrupted):
        _outputs(tmp_path, "interrupt")
    gc.collect()  # the thresholds come back with the next full collection
    assert gc.get_threshold() == thresholds
    assert gc.isenabled()
    assert gc.get_freeze_count() == before
    assert freeze_survivors not in gc.callbacks
