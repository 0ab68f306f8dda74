"""``repeat: K``: every case x variant runs K times with stable ids, recorded, replayed and
resumed; ``--repeat`` and ``.repeat()`` set it; K = 1 changes nothing."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.builder import Benchmark
from autobench.core.planning import build_benchmark_plan, spec_hash
from autobench.core.runtime import RunSession, run_benchmark_spec
from autobench.core.spec import SpecError, dump_benchmark_spec, load_benchmark_spec
from autobench.records import RecordDirectoryWriter, load_experiment_record, replay_experiment

TASK = """\
def run_case(ctx, case):
    repeat = int(ctx.run_id.rsplit("_r", 1)[1]) if "_r" in ctx.run_id[-4:] else 1
    ctx.metric("score", case.input["x"] * repeat, semantic_type="quality.score")
    return {"nth": repeat}
"""

SPEC = """\
benchmark:
  rep:
    cases:
      - {id: one, input: {x: 1}}
      - {id: two, input: {x: 2}}
    run:
      python: repeat_task:run_case
    variants:
      base: {}
      alt: {}
"""


def _write(root: Path, repeat: str | None = None) -> Path:
    (root / "repeat_task.py").write_text(TASK, encoding="utf-8")
    text = SPEC if repeat is None else SPEC + f"    repeat: {repeat}\n"
    (root / "autobench.yaml").write_text(text, encoding="utf-8")
    return root / "autobench.yaml"


def test_plan_ids_paths_and_order_with_three_repeats(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_write(tmp_path, "3"))
    assert spec.repeat == 3
    runs = build_benchmark_plan(spec).runs
    assert [(run.run_id, run.repeat, run.path) for run in runs[:4]] == [
        ("run_0000_one_base", 1, "cases/one/base/run.yaml"),
        ("run_0001_one_base_r2", 2, "cases/one/base/r2/run.yaml"),
        ("run_0002_one_base_r3", 3, "cases/one/base/r3/run.yaml"),
        ("run_0003_one_alt", 1, "cases/one/alt/run.yaml"),
    ]
    assert len(runs) == 12
    assert len({run.run_id for run in runs}) == len({run.path for run in runs}) == 12
    # Case-major, then variant, then repeat.
    assert [(run.case_id, run.variant_id) for run in runs[::3]] == [
        ("one", "base"),
        ("one", "alt"),
        ("two", "base"),
        ("two", "alt"),
    ]
    # Stable: planning again gives the same ids.
    assert [run.run_id for run in build_benchmark_plan(spec).runs] == [r.run_id for r in runs]


def test_repeat_one_changes_nothing(tmp_path: Path) -> None:
    plain = load_benchmark_spec(_write(tmp_path))
    (tmp_path / "one.yaml").write_text(SPEC + "    repeat: 1\n", encoding="utf-8")
    once = load_benchmark_spec(tmp_path / "one.yaml")
    assert once.repeat == plain.repeat == 1
    assert spec_hash(once) == spec_hash(plain)
    assert dump_benchmark_spec(once) == dump_benchmark_spec(plain)
    assert "repeat:" not in dump_benchmark_spec(once)
    assert [r.run_id for r in build_benchmark_plan(once).runs] == [
        "run_0000_one_base",
        "run_0001_one_alt",
        "run_0002_two_base",
        "run_0003_two_alt",
    ]


def test_dump_writes_repeat_back(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_write(tmp_path, "2"))
    text = dump_benchmark_spec(spec)
    assert "repeat: 2" in text
    (tmp_path / "again.yaml").write_text(text, encoding="utf-8")
    again = load_benchmark_spec(tmp_path / "again.yaml")
    assert again.repeat == 2 and spec_hash(again) == spec_hash(spec)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "repeat must be at least 1, not 0"),
        ("-2", "repeat must be at least 1, not -2"),
        ("two", "repeat must be an integer, not a string"),
        ("2.5", "repeat must be an integer, not a number"),
        ("true", "repeat must be an integer, not a boolean"),
    ],
)
def test_bad_repeat_is_located(tmp_path: Path, value: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(_write(tmp_path, value))
    error = caught.value
    assert (error.line, error.column) == (11, 13)
    assert error.message.startswith(message), error.message
    assert error.expected == "an integer >= 1 (runs of each case x variant)"


def test_structured_form_reads_repeat(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(
        textwrap.dedent(
            """\
            benchmark: {id: s}
            dataset: {cases: [{id: a, input: 1}]}
            variants: [{id: v}]
            repeat: 2
            """
        ),
        encoding="utf-8",
    )
    spec = load_benchmark_spec(tmp_path / "s.yaml")
    assert [r.run_id for r in build_benchmark_plan(spec).runs] == [
        "run_0000_a_v",
        "run_0001_a_v_r2",
    ]


def test_recorded_and_replayed(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_write(tmp_path, "3"))
    out = tmp_path / "out"
    result = asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(out)))
    assert len(result.runs) == 12
    second = (out / "cases/one/base/r2/run.yaml").read_text(encoding="utf-8")
    assert "id: run_0001_one_base_r2" in second and "repeat: 2" in second
    first = (out / "cases/one/base/run.yaml").read_text(encoding="utf-8")
    assert "repeat:" not in first  # written only above 1
    replayed = replay_experiment(out)
    assert [(r.run_id, r.run.repeat) for r in replayed.runs] == [
        (r.run_id, r.run.repeat) for r in result.runs
    ]
    assert [r.output for r in replayed.runs[:3]] == [{"nth": 1}, {"nth": 2}, {"nth": 3}]
    experiment = load_experiment_record(out)
    assert experiment.benchmark.spec.snapshot["repeat"] == 3
    assert experiment.plan[1].path == "cases/one/base/r2/run.yaml"


def test_resume_runs_only_the_missing_repeat(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_write(tmp_path, "3"))
    out = tmp_path / "out"
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(out)))
    (out / "cases/two/alt/r2/run.yaml").unlink()
    session = RunSession.resume(spec, out)
    assert [run.run_id for run in session.runs] == ["run_0010_two_alt_r2"]
    result = asyncio.run(session.execute())
    assert len(result.runs) == 12
    assert (out / "cases/two/alt/r2/run.yaml").is_file()


def test_builder_repeat(tmp_path: Path) -> None:
    builder = Benchmark("b").dataset([{"id": "c", "input": 1}]).variants([{"id": "v"}]).repeat(2)
    spec = builder.to_spec()
    assert spec.repeat == 2
    assert [r.run_id for r in build_benchmark_plan(spec).runs] == [
        "run_0000_c_v",
        "run_0001_c_v_r2",
    ]
    with pytest.raises(ValueError, match="repeat must be an integer >= 1"):
        builder.repeat(0)


def test_cli_repeat_overrides_and_resume_keeps_it(tmp_path: Path) -> None:
    spec_path = _write(tmp_path)
    out = tmp_path / "out"
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(
        cli, ["run", str(spec_path), "--record", str(out), "--repeat", "2", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    experiment = load_experiment_record(out)
    assert len(experiment.plan) == 8
    assert experiment.benchmark.spec.snapshot["repeat"] == 2
    assert (out / "cases/two/alt/r2/run.yaml").is_file()
    # The recorded hash is that of the spec as run (with its repeat).
    ran = load_benchmark_spec(spec_path).model_copy(update={"repeat": 2})
    assert experiment.benchmark.spec.hash == spec_hash(ran)
    # Resuming without --repeat keeps the recorded count (no spec change is reported).
    (out / "cases/one/base/r2/run.yaml").unlink()
    resumed = runner.invoke(cli, ["run", str(spec_path), "--resume", str(out), "--no-progress"])
    assert resumed.exit_code == 0, resumed.output
    assert (out / "cases/one/base/r2/run.yaml").is_file()
    bad = runner.invoke(cli, ["run", str(spec_path), "--repeat", "0", "--no-record"])
    assert bad.exit_code == 2 and "--repeat" in bad.output
