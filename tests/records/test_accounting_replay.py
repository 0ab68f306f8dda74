"""Replay applies the accounting rules to records written before run totals existed, from the
records alone: the frozen experiment in tests/fixtures/records-pre-accounting."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from autobench.records import (
    ObservationQuery,
    RunRecord,
    is_summary,
    load_run_record,
    needs_accounting,
    replay_experiment,
    run_observations,
    run_record_path,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "records-pre-accounting" / "experiment"

EXPECTED = {
    # case: (input tokens, output tokens, requests)
    "manual": (130, 30, None),
    "bridge": (130, 30, 2),  # per request 50 + 80, and the run's 130 never added to them
    "envelope": (130, 30, None),  # the attached agent's 130 is the roll-up of its two calls
    "long": (400, 400, None),  # 400 calls; its trace is stored as an artifact
}


def digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def totals(run: RunRecord) -> tuple[object, ...]:
    query = ObservationQuery(observations=run_observations(run))
    found = [
        query.values(semantic)
        for semantic in ("llm.tokens.input", "llm.tokens.output", "llm.request.count")
    ]
    return tuple(values[0] if values else None for values in found)


@pytest.mark.parametrize("evidence_only", [False, True])
def test_replay_totals_every_run_of_an_old_record(evidence_only: bool) -> None:
    before = digests(FIXTURE)
    result = replay_experiment(FIXTURE, evidence_only=evidence_only, workers=1)
    assert {run.case_id: totals(run) for run in result.runs} == EXPECTED
    long = next(run for run in result.runs if run.case_id == "long")
    summary = ObservationQuery(observations=long.observations).first_exact("llm.tokens.input")
    assert summary is not None and is_summary(summary) and summary.tags["operations"] == "400"
    # the runs still say they were recorded before run totals: the totals are replay's
    assert {run.run.accounting for run in result.runs} == {None}
    if evidence_only:
        assert long.trace is None  # the trace was read for the totals, not kept
    assert digests(FIXTURE) == before  # replay never writes


def test_the_old_records_are_read_as_they_were_written() -> None:
    for case in EXPECTED:
        run = load_run_record(FIXTURE / run_record_path(case, "mini"))
        assert not any(is_summary(o) for o in run.observations)
        assert run.run.accounting is None
        assert needs_accounting(run, replay_experiment(FIXTURE).registry)
    # what the old version derived and checked stays as evidence: its cost priced the
    # run-level usage as a third call, and its policy read the first call only
    bridge = next(r for r in replay_experiment(FIXTURE).runs if r.case_id == "bridge")
    cost = next(o for o in bridge.observations if o.name == "token_cost")
    policy = next(o for o in bridge.observations if o.name == "input-budget")
    assert (cost.tags["calls"], policy.value) == ("3", True)


def test_parallel_replay_gives_the_same_totals() -> None:
    result = replay_experiment(FIXTURE, evidence_only=True, workers=2)
    assert {run.case_id: totals(run) for run in result.runs} == EXPECTED
