"""A built plan keeps no object per run (``PlannedRuns``, ``PlanEntries``): the same runs,
the same ``experiment.yaml`` bytes and the same hashes as the plan listed run by run."""

from __future__ import annotations

import asyncio
import hashlib
import pickle
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autobench.core.planning import (
    PlannedRuns,
    build_benchmark_plan,
    canonical_json,
    dataset_hash,
    expand_matrix,
    spec_hash,
)
from autobench.core.runtime import RunSession
from autobench.core.runtime._experiment import build_experiment_record
from autobench.core.runtime._plan_entries import PlanEntries
from autobench.core.spec import CaseList, load_benchmark_spec
from autobench.records import (
    ExperimentRecord,
    ExperimentSummary,
    PlanSequence,
    RecordDirectoryWriter,
    RecordingError,
    case_input_hash,
    load_experiment_record,
)
from autobench.records._codec import PLAN_PART, experiment_record_to_yaml


def write_spec(root: Path, cases: int, repeat: int = 1) -> Path:
    """A spec of ``cases`` cases (ids a YAML 1.1 reader would retype among them, attachments
    and tags on some) x three variants, ``repeat`` times."""
    lines = ["benchmark:", "  cols:", "    dataset:", "      cases:"]
    for index in range(cases):
        name = ("yes", "007", "Ünï code", "a: b")[index] if index < 4 else f"case-{index}"
        lines += [f"        - id: {name!r}", f"          input: {{n: {index}}}"]
        if index % 7 == 0:
            lines += ["          tags: [seven]", "          metadata: {k: [1, 2.5, null]}"]
        if index % 11 == 0:
            lines += ["          attachments: [{id: doc, name: doc.txt, media: text/plain}]"]
    lines += [
        "    run:",
        "      python: m:f",
        f"    repeat: {repeat}",
        "    variants:",
        "      a: {}",
        "      'no': {factors: {x: 1}}",
        "      c-long-variant-name-beyond-the-slug-length: {}",
    ]
    spec = root / "autobench.yaml"
    spec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return spec


def listed(record: ExperimentRecord) -> ExperimentRecord:
    """``record`` with its plan as the tuple of its planned runs."""
    return ExperimentRecord.model_validate(
        {
            **{name: getattr(record, name) for name in type(record).model_fields},
            "plan": [planned.model_dump() for planned in record.plan],
        }
    )


@pytest.mark.parametrize("repeat", [1, 2])
def test_a_plan_of_thousands_of_runs_is_written_as_when_listed_run_by_run(
    tmp_path: Path, repeat: int
) -> None:
    spec = load_benchmark_spec(write_spec(tmp_path, 1_500, repeat))
    assert isinstance(spec.cases, CaseList)
    plan = build_benchmark_plan(spec)
    assert isinstance(plan.runs, PlannedRuns)
    assert len(plan.runs) == 1_500 * 3 * repeat > PLAN_PART
    assert plan.runs == expand_matrix(tuple(spec.cases), spec.variants, repeat)
    record = build_experiment_record(
        spec,
        plan,
        experiment_id="exp_cols",
        started_at=datetime(2026, 12, 7, tzinfo=UTC),
        files={"autobench.yaml": "0" * 64},
        environment={"python": "3.11"},
    )
    assert isinstance(record.plan, PlanEntries)
    as_list = listed(record)
    assert record == as_list and record.plan == as_list.plan
    text = experiment_record_to_yaml(record)
    assert text == experiment_record_to_yaml(as_list)
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "experiment.yaml").write_text(text, encoding="utf-8")
    assert load_experiment_record(tmp_path / "exp") == as_list
    # The writer renders a compact plan part by part as it writes it: the same bytes as
    # the plan listed run by run, written whole.
    for name, written in (("parts", record), ("whole", as_list)):
        RecordDirectoryWriter(tmp_path / name).start(written)
    parts = (tmp_path / "parts" / "experiment.yaml").read_bytes()
    assert parts == (tmp_path / "whole" / "experiment.yaml").read_bytes()
    assert parts.split(b"\n", 1)[1] == text.encode().split(b"\n", 1)[1]
    assert load_experiment_record(tmp_path / "parts") == as_list
    assert record.benchmark.dataset.hash == dataset_hash(tuple(spec.cases))
    whole = hashlib.sha256(canonical_json(spec.model_dump(mode="json")).encode()).hexdigest()
    assert spec_hash(spec) == whole
    assert record.benchmark.spec is not None and record.benchmark.spec.hash == whole
    cases = {case.id: case for case in spec.cases}
    for planned in (as_list.plan[0], as_list.plan[777], as_list.plan[-1]):
        assert planned.input == case_input_hash(cases[planned.case].input)
    for planned in (as_list.plan[0], as_list.plan[1_234], as_list.plan[-1]):
        assert record.plan.path_of(planned.id) == planned.path
    assert record.plan.path_of("run_0001_yes_a") is None
    assert record.plan.path_of("not_a_run") is None
    restored = pickle.loads(pickle.dumps(record.plan))
    assert isinstance(restored, PlanSequence) and restored == as_list.plan


def test_planned_runs_select_positions_and_read_as_a_tuple(tmp_path: Path) -> None:
    spec = load_benchmark_spec(write_spec(tmp_path, 5, repeat=2))
    runs = build_benchmark_plan(spec).runs
    assert isinstance(runs, PlannedRuns)
    listed_runs = expand_matrix(tuple(spec.cases), spec.variants, 2)
    assert (len(runs), runs[-1], runs[3:5]) == (30, listed_runs[-1], listed_runs[3:5])
    chosen = runs.select([29, 3, 17])
    assert tuple(chosen) == (listed_runs[3], listed_runs[17], listed_runs[29])
    assert [chosen.position(i) for i in range(3)] == [3, 17, 29]
    assert (chosen.whole, runs.whole, chosen.total) == (False, True, 30)
    assert pickle.loads(pickle.dumps(chosen)) == chosen
    assert [runs.run_id(p) for p in range(30)] == [run.run_id for run in listed_runs]
    assert [runs.path(p) for p in range(30)] == [run.path for run in listed_runs]
    with pytest.raises(IndexError):
        runs[30]
    with pytest.raises(ValueError, match="repeat must be at least 1"):
        PlannedRuns(spec.cases, spec.variants, 0)


def test_a_run_of_a_compact_plan_is_written_once_at_its_planned_path(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(ctx, case):\n    return {'n': case.input['n']}\n")
    spec = load_benchmark_spec(write_spec(tmp_path, 3))
    session = RunSession.start(spec, experiment_id="exp_once")
    runs = asyncio.run(session.execute()).runs
    assert isinstance(session.experiment.plan, PlanEntries)
    writer = RecordDirectoryWriter(tmp_path / "rec")
    writer.start(session.experiment)
    planned = session.experiment.plan[4]
    run = next(run for run in runs if run.run_id == planned.id)
    writer.run_finished(run, {})
    writer.flush()
    path = tmp_path / "rec" / planned.path
    before = path.read_bytes()
    with pytest.raises(RecordingError, match="already exists") as caught:
        writer.run_finished(run, {})
    assert caught.value.path == path and path.read_bytes() == before
    other = run.model_copy(update={"run": run.run.model_copy(update={"id": "run_9_adhoc"})})
    with pytest.raises(RecordingError, match="already exists"):  # not planned: same path
        writer.run_finished(other, {})
        writer.flush()
    assert path.read_bytes() == before
    writer.finish(ExperimentSummary(experiment="exp_once", benchmark="cols", runs=1))
