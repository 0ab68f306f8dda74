"""Runs take turns of the event loop: a wave of runs ending together does not hold the loop.

On a real asyncio loop: ``LoopTurns`` admits ``per_turn`` steps per turn, in arrival order,
and a timer due meanwhile runs between them; a cancelled waiter gives its place up. Through
real experiments (``run_benchmark_spec`` over a task module on disk): 100 runs woken in the
same turn are finished a few per turn, with a callback scheduled at their wake-up running
after the first few rather than after all of them; cancelling the experiment while runs
wait for their turn to be finished still hands each of them, scored, to the sink.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from runtime_support import CollectingSink, make_spec, write_task_module

from autobench.core.runtime import run_benchmark_spec
from autobench.core.runtime._tasks import resolve_task
from autobench.core.runtime._turns import PER_TURN, LoopTurns
from autobench.records import RunStatus


async def _steps(turns: LoopTurns, count: int, order: list[object]) -> None:
    async def step(index: int) -> None:
        if (wait := turns.take()) is not None:
            await wait
        order.append(index)

    loop = asyncio.get_running_loop()
    tasks = [asyncio.create_task(step(index)) for index in range(count)]
    loop.call_later(0, order.append, "timer")  # due at the start of the steps' first turn
    await asyncio.gather(*tasks)


@pytest.mark.parametrize("per_turn", [1, 3, 8])
def test_a_timer_due_runs_after_one_turn_of_steps_not_after_all(per_turn: int) -> None:
    order: list[object] = []
    asyncio.run(_steps(LoopTurns(per_turn), 40, order))
    assert order.index("timer") == per_turn
    assert [step for step in order if step != "timer"] == list(range(40))  # arrival order


def test_without_a_bound_the_timer_waits_for_every_step() -> None:
    # The loop's own behaviour, which the bound exists for: all 40 steps before the timer.
    order: list[object] = []
    asyncio.run(_steps(LoopTurns(1_000), 40, order))
    assert order.index("timer") == 40


def test_a_cancelled_waiter_gives_its_place_up() -> None:
    async def main() -> list[int]:
        turns = LoopTurns(1)
        order: list[int] = []

        async def step(index: int) -> None:
            if (wait := turns.take()) is not None:
                await wait
            order.append(index)

        tasks = [asyncio.create_task(step(index)) for index in range(5)]
        await asyncio.sleep(0)  # every step has asked: 0 admitted, 1-4 waiting
        tasks[2].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return order

    assert asyncio.run(main()) == [0, 1, 3, 4]


def test_per_turn_must_be_positive() -> None:
    with pytest.raises(ValueError, match="per_turn must be at least 1, got 0"):
        LoopTurns(0)


WAVE_TASK = """
import asyncio

RUNS = {runs}
state = {{"arrived": 0, "seen_by_probe": None, "probe": None}}
gate = None


def reset(probe):
    global gate
    gate = None
    state.update(arrived=0, seen_by_probe=None, probe=probe)


async def wave(ctx, case):
    global gate
    if gate is None:
        gate = asyncio.Event()
    state["arrived"] += 1
    if state["arrived"] < RUNS:
        await gate.wait()
    else:  # the last run to arrive wakes every other one in this turn of the loop
        gate.set()
        asyncio.get_running_loop().call_soon(state["probe"])
    return {{"value": case.input["n"] * 2}}
"""

RUNS = 100
CASES = [
    {"id": f"c{index}", "input": {"n": index}, "expected": {"value": index * 2}}
    for index in range(RUNS)
]
EXACT = [
    {
        "kind": "exact",
        "name": "correct",
        "actual": "output.value",
        "expected": "case.expected.value",
    }
]


def _wave(tmp_path: Path) -> tuple[object, object]:
    name = write_task_module(tmp_path, WAVE_TASK.format(runs=RUNS))
    spec = make_spec(tmp_path, f"{name}:wave", cases=CASES, scoring=EXACT)
    return spec, sys.modules.get(resolve_task(spec).__module__)


def test_runs_woken_together_are_finished_a_few_per_turn(tmp_path: Path) -> None:
    spec, module = _wave(tmp_path)
    sink = CollectingSink()
    module.reset(lambda: module.state.update(seen_by_probe=len(sink.runs)))  # type: ignore[attr-defined]

    result = asyncio.run(run_benchmark_spec(spec, concurrency_limit=RUNS, sink=sink))

    # The probe was scheduled as the 99 waiting runs woke: it ran once the first turn's
    # runs were finished, not after all of them (the loop alone would give 99 or 100).
    seen = module.state["seen_by_probe"]  # type: ignore[attr-defined]
    assert seen is not None and 1 <= seen <= PER_TURN + 1
    assert len(result.runs) == RUNS and len(sink.runs) == RUNS
    assert {run.status for run in result.runs} == {RunStatus.PASSED}


def test_cancelled_while_waiting_for_their_turn_runs_are_recorded_scored(
    tmp_path: Path,
) -> None:
    spec, module = _wave(tmp_path)
    sink = CollectingSink()

    async def main() -> None:
        experiment = asyncio.create_task(
            run_benchmark_spec(spec, concurrency_limit=RUNS, sink=sink)
        )

        def probe() -> None:  # most runs have returned and wait for their turn: cancel
            module.state.update(seen_by_probe=len(sink.runs))  # type: ignore[attr-defined]
            experiment.cancel()

        module.reset(probe)  # type: ignore[attr-defined]
        with pytest.raises(asyncio.CancelledError):
            await experiment

    asyncio.run(main())
    assert module.state["seen_by_probe"] < RUNS - PER_TURN  # type: ignore[attr-defined]
    # Every run's task had returned: each is recorded with its own outcome, scored.
    assert len(sink.runs) == RUNS
    assert {run.status for run in sink.runs} == {RunStatus.PASSED}
    assert [run.scores[0].value for run in sink.runs] == [True] * RUNS
