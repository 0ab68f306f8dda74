"""Loaders, replay and record_experiment on real record directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _factories import (
    BENCHMARK_ID,
    EXPERIMENT_ID,
    experiment_for,
    run_id,
    trivial_run,
    trivial_trace,
)

from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    ArtifactRef,
    ExperimentResult,
    ExperimentSummary,
    MissingRecordError,
    ParsedRuns,
    RecordDirectoryWriter,
    RecordFormatError,
    SemanticDefinition,
    SemanticRegistry,
    load_experiment_record,
    load_experiment_summary,
    load_run_record,
    record_experiment,
    replay_experiment,
    run_record_path,
)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(root)): (path.stat().st_mtime_ns, path.stat().st_size)
        for path in sorted(root.rglob("*"))
    }


def write_experiment(
    root: Path,
    pairs: list[tuple[str, str]],
    *,
    skip: int = 0,
    finish: bool = True,
    **updates: object,
) -> None:
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for(pairs, **updates))
    for index, (case, variant) in enumerate(pairs[skip:]):
        writer.run_finished(trivial_run(case, variant, index=index), {})
    writer.flush()
    if finish:
        writer.finish(
            ExperimentSummary(
                experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=len(pairs) - skip
            )
        )


def test_replay_loads_runs_in_plan_order_without_writing(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    pairs = [("c2", "v1"), ("c1", "v1"), ("c1", "v2")]
    registry = SemanticRegistry(types={"acme.score": SemanticDefinition(parent="quality.score")})
    write_experiment(root, pairs, semantic_registry=registry)
    before = snapshot(root)
    result = replay_experiment(root)
    assert snapshot(root) == before
    assert [run.run_id for run in result.runs] == [run_id(c, v) for c, v in pairs]
    assert result.complete and result.missing_runs == ()
    assert result.summary is not None and result.summary.runs == 3
    assert result.root_dir == root
    assert result.registry.is_a("acme.score", "quality.score")
    assert result.registry.is_a("serving.cost", "money.cost")
    assert "acme.score" not in DEFAULT_SEMANTIC_REGISTRY
    record = load_experiment_record(root)
    again = replay_experiment(record, root_dir=root)
    assert again.runs == result.runs


def test_replay_of_an_interrupted_experiment(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    pairs = [("c1", "v"), ("c2", "v"), ("c3", "v")]
    write_experiment(root, pairs, skip=1, finish=False)
    result = replay_experiment(root)
    assert result.missing_runs == (run_id("c1", "v"),)
    assert not result.complete
    assert result.summary is None and load_experiment_summary(root) is None


def test_missing_directory_and_experiment_file(tmp_path: Path) -> None:
    with pytest.raises(MissingRecordError, match="no record directory") as caught:
        replay_experiment(tmp_path / "nope")
    assert isinstance(caught.value, FileNotFoundError)
    assert str(tmp_path / "nope") in str(caught.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(MissingRecordError, match=r"experiment\.yaml"):
        load_experiment_record(tmp_path / "empty")
    with pytest.raises(MissingRecordError):
        load_run_record(tmp_path / "empty" / "run.yaml")
    with pytest.raises(TypeError, match="root_dir"):
        replay_experiment(experiment_for([]))


def test_run_in_the_wrong_place_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    write_experiment(root, [("c1", "v"), ("c2", "v")])
    first, second = (root / run_record_path(c, "v") for c in ("c1", "c2"))
    text = first.read_text(encoding="utf-8")
    first.unlink()
    first.write_text(second.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(RecordFormatError, match="plan puts run"):
        replay_experiment(root)
    assert text


def test_replay_with_parsed_runs_parses_only_new_or_changed_files(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    pairs = [("c1", "v"), ("c2", "v"), ("c3", "v")]
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for(pairs))
    for index, (case, variant) in enumerate(pairs[:2]):
        writer.run_finished(trivial_run(case, variant, index=index), {})
    writer.flush()
    parsed = ParsedRuns()
    first = replay_experiment(root, evidence_only=True, parsed=parsed)
    assert parsed.last_parsed == 2 and len(parsed) == 2 and len(first.runs) == 2
    again = replay_experiment(root, evidence_only=True, parsed=parsed)
    assert parsed.last_parsed == 0 and again.runs == first.runs
    writer.run_finished(trivial_run("c3", "v", index=2), {})  # recorded since
    writer.flush()
    grown = replay_experiment(root, evidence_only=True, parsed=parsed)
    assert parsed.last_parsed == 1
    assert grown.runs == replay_experiment(root, evidence_only=True).runs
    assert [run.run_id for run in grown.runs] == [run_id(c, v) for c, v in pairs]
    # A file changed on disk is parsed again; a removed one is forgotten.
    changed = root / run_record_path("c1", "v")
    changed.write_text(
        changed.read_text(encoding="utf-8").replace("status: passed", "status: failed"),
        encoding="utf-8",
    )
    (root / run_record_path("c2", "v")).unlink()
    after = replay_experiment(root, evidence_only=True, parsed=parsed)
    assert parsed.last_parsed == 1 and len(parsed) == 2
    assert [(run.run_id, run.status.value) for run in after.runs] == [
        (run_id("c1", "v"), "failed"),
        (run_id("c3", "v"), "passed"),
    ]
    # What a replay refuses is refused with kept runs too.
    changed.write_text("run: [not a run\n", encoding="utf-8")
    with pytest.raises(RecordFormatError):
        replay_experiment(root, evidence_only=True, parsed=parsed)


def test_run_files_through_a_symlink_out_of_the_record_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    write_experiment(root, [("c1", "v"), ("c2", "v"), ("c3", "v")])
    assert len(replay_experiment(root, evidence_only=True).runs) == 3
    outside = tmp_path / "outside"
    outside.mkdir()
    # The run file itself a link out of the record.
    first = root / run_record_path("c1", "v")
    (outside / "run.yaml").write_bytes(first.read_bytes())
    first.unlink()
    first.symlink_to(outside / "run.yaml")
    with pytest.raises(RecordFormatError, match="resolves outside it") as caught:
        replay_experiment(root, evidence_only=True)
    assert str(first.relative_to(root).as_posix()) in str(caught.value)
    first.unlink()
    first.write_bytes((outside / "run.yaml").read_bytes())
    # A case directory that is a link to a directory out of the record.
    case_dir = (root / run_record_path("c2", "v")).parent.parent
    moved = outside / "case"
    case_dir.rename(moved)
    case_dir.symlink_to(moved, target_is_directory=True)
    with pytest.raises(RecordFormatError, match="resolves outside it"):
        replay_experiment(root, evidence_only=True)
    case_dir.unlink()
    moved.rename(case_dir)
    # A link that stays inside the record is followed, as before.
    third = root / run_record_path("c3", "v")
    kept = root / "kept-run.yaml"
    third.rename(kept)
    third.symlink_to(kept)
    assert len(replay_experiment(root, evidence_only=True).runs) == 3


def test_trace_artifact_must_stay_inside_the_directory(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for([("c", "v")]))
    writer.run_finished(trivial_run("c", "v", trace=trivial_trace(spans=800)), {})
    writer.flush()
    path = root / run_record_path("c", "v")
    text = path.read_text(encoding="utf-8")
    outside = tmp_path / "trace.yaml"
    outside.write_bytes((root / "artifacts/run_c_v/trace.yaml").read_bytes())
    path.unlink()
    path.write_text(
        text.replace("path: artifacts/run_c_v/trace.yaml", "path: ../trace.yaml"), encoding="utf-8"
    )
    with pytest.raises(RecordFormatError, match="leaves the record directory"):
        load_run_record(path, root=root)
    path.unlink()
    path.write_text(text, encoding="utf-8")
    artifact = root / "artifacts/run_c_v/trace.yaml"
    artifact.write_bytes(artifact.read_bytes().replace(b"call_router", b"call_hacker"))
    with pytest.raises(RecordFormatError, match="sha256"):
        load_run_record(path, root=root)


def test_record_experiment_writes_an_in_memory_result(tmp_path: Path) -> None:
    pairs = [("c1", "v"), ("c2", "v")]
    ref = ArtifactRef(id="answer", name="answer", media_type="text/plain")
    runs = tuple(trivial_run(c, v, index=i, artifacts=(ref,)) for i, (c, v) in enumerate(pairs))
    source = tmp_path / "autobench.yaml"
    source.write_text("benchmark: {id: demo}\n")
    result = ExperimentResult(
        experiment=experiment_for(pairs),
        runs=runs,
        artifact_payloads={(run.run_id, "answer"): f"answer of {run.case_id}" for run in runs},
    )
    root = tmp_path / "rec"
    recorded = record_experiment(result, root, source_files=[source])
    assert recorded.root_dir == root and recorded.artifact_payloads == {}
    assert recorded.summary is not None and recorded.summary.status.passed == 2
    assert list(recorded.experiment.files) == [str(source)]
    replayed = replay_experiment(root)
    assert replayed.runs == recorded.runs
    assert replayed.experiment == recorded.experiment
    assert replayed.summary == recorded.summary
    assert (root / "artifacts/run_c2_v/answer.txt").read_text() == "answer of c2"


def test_replay_imports_no_task_module(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    write_experiment(root, [("c", "v")], files={"tasks/my_secret_task.py": "ab12"})
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from autobench.records import replay_experiment\n"
        f"result = replay_experiment(Path({str(root)!r}))\n"
        "assert len(result.runs) == 1\n"
        "banned = ('rich', 'click', 'autobench.core', 'my_secret_task', 'openai', 'anthropic')\n"
        "print([name for name in sys.modules if name.startswith(banned)])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_write_and_replay_one_thousand_runs(tmp_path: Path) -> None:
    pairs = [(f"case_{index:04d}", "v1") for index in range(1000)]
    runs = [trivial_run(case, variant, index=index) for index, (case, variant) in enumerate(pairs)]
    root = tmp_path / "rec"
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for(pairs))
    for run in runs:
        writer.run_finished(run, {})
    writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=1000))
    result = replay_experiment(root)
    assert result.runs == tuple(runs)
    assert len(os.listdir(root / "cases")) == 1000


def test_parallel_and_evidence_only_replays_read_the_same_evidence(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    pairs = [(f"c{index}", variant) for index in range(6) for variant in ("v1", "v2")]
    write_experiment(root, pairs)
    serial = replay_experiment(root, workers=1)
    parallel = replay_experiment(root, workers=2)
    assert parallel.runs == serial.runs
    light = replay_experiment(root, evidence_only=True, workers=2)
    assert light.evidence_only and not serial.evidence_only
    for full, partial in zip(serial.runs, light.runs, strict=True):
        assert partial.run == full.run and partial.scores == full.scores
        assert partial.observations == full.observations and partial.errors == full.errors
        assert partial.case.id == full.case.id and partial.output is None and partial.trace is None


@pytest.mark.parametrize("workers", [1, 2])
def test_meanwhile_runs_once_while_the_run_files_are_read(tmp_path: Path, workers: int) -> None:
    root = tmp_path / "rec"
    pairs = [(f"c{index}", "v1") for index in range(4)]
    write_experiment(root, pairs)
    calls: list[int] = []
    result = replay_experiment(root, workers=workers, meanwhile=lambda: calls.append(len(calls)))
    assert calls == [0]
    assert result.runs == replay_experiment(root, workers=1).runs
