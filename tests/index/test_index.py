"""The columnar index: what it holds, when it is trusted, and reports read from it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_support import Record, case

from autobench.cli import cli
from autobench.index import (
    TABLES,
    _sources,
    build_index,
    index_root,
    index_status,
    load_index,
    restamp_index,
)
from autobench.index._columns import DamagedIndexError
from autobench.index._layout import FORMAT
from autobench.index._restamp import _restamp
from autobench.index._sources import STAMP_COLUMNS, stamp_of, stored_stamps
from autobench.records import PlanTable, replay_experiment
from autobench.report import build_report, exporter_registry


def _partition(record_dir: Path) -> Path:
    manifest = json.loads((index_root(record_dir) / "manifest.json").read_text())
    return index_root(record_dir) / manifest["partition"]


def _same_as_replay(record_dir: Path) -> None:
    indexed = load_index(record_dir)
    assert indexed is not None
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert indexed.experiment == replayed.experiment
    assert isinstance(indexed.experiment.plan, PlanTable)  # the plan's columns, not models
    assert list(indexed.experiment.plan) == list(replayed.experiment.plan)
    assert indexed.missing_runs == replayed.missing_runs
    assert indexed.runs == replayed.runs
    assert indexed.summary == replayed.summary
    assert indexed.evidence_only and indexed.root_dir == replayed.root_dir
    from_index, from_yaml = build_report(indexed), build_report(replayed)
    assert from_index == from_yaml
    for name in ("csv", "yaml", "markdown"):
        exporter = exporter_registry().get(name)
        assert exporter.export(from_index, indexed) == exporter.export(from_yaml, replayed)


values = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    metrics=st.lists(values, min_size=1, max_size=6),
    boom=st.sets(st.integers(0, 5), max_size=2),
    llm=st.booleans(),
    repeats=st.integers(1, 2),
)
def test_the_index_gives_back_what_replay_gives_and_the_same_reports(
    record: Record, metrics: list[object], boom: set[int], llm: bool, repeats: int
) -> None:
    cases = [case(n, value, boom=n in boom, llm=llm) for n, value in enumerate(metrics)]
    record_dir = record(cases, name="hyp", repeats=repeats)
    try:
        built = build_index(record_dir)
        assert built.reportable, built.reason
        assert built.runs == len(metrics) * 2 * repeats
        _same_as_replay(record_dir)
    finally:
        shutil.rmtree(record_dir)


def test_every_table_ties_its_rows_to_the_run_file_hash(record: Record) -> None:
    record_dir = record([case(1, llm=True), case(2, 2.5), case(3, True)])
    built = build_index(record_dir)
    assert set(built.rows) == set(TABLES)
    assert built.rows["runs"] == 6 and built.rows["llm_calls"] == 2
    partition = _partition(record_dir)
    assert partition.parent.name == "benchmark=index-test"
    runs = pq.read_table(partition / "runs.parquet").to_pylist()
    import hashlib

    for row in runs:
        data = (record_dir / row["path"]).read_bytes()
        assert row["file_sha256"] == hashlib.sha256(data).hexdigest()
    by_run = {row["run_id"]: row["file_sha256"] for row in runs}
    for table in TABLES:
        for row in pq.read_table(partition / f"{table}.parquet").to_pylist():
            assert row["file_sha256"] == by_run[row["run_id"]]
    calls = pq.read_table(partition / "llm_calls.parquet").to_pylist()
    assert {(c["model"], c["provider"], c["input_tokens"], c["output_tokens"]) for c in calls} == {
        ("gpt-test", "openai", 11, 3)
    }
    observations = pq.read_table(partition / "observations.parquet").to_pylist()
    sizes = {o["value_num"] for o in observations if o["name"] == "size"}
    assert 2.5 in sizes and 1.0 in sizes
    assert any(o["value_bool"] is True for o in observations if o["name"] == "size")


@pytest.mark.parametrize("child", [False, True], ids=["in-process", "stamp-child"])
def test_a_changed_added_or_removed_source_makes_the_index_stale(
    record: Record, child: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stamps of a large record's sources are read by a child process: the same rules.
    monkeypatch.setattr(_sources, "CHILD_FROM", 0 if child else 10**9)
    record_dir = record([case(1), case(2)])
    build_index(record_dir)
    assert index_status(record_dir).fresh
    run_file = record_dir / "cases" / "case-1" / "a" / "run.yaml"
    text = run_file.read_text()
    run_file.write_text(text.replace("name: quality\n  value: 0.1", "name: quality\n  value: 0.9"))
    status = index_status(record_dir)
    assert not status.fresh and status.reason == "cases/case-1/a/run.yaml changed"
    assert load_index(record_dir) is None
    build_index(record_dir)
    assert index_status(record_dir).fresh
    _same_as_replay(record_dir)
    run_file.unlink()
    assert index_status(record_dir).reason == "cases/case-1/a/run.yaml was removed"
    build_index(record_dir)
    _same_as_replay(record_dir)
    (record_dir / "post_derived.yaml").write_text("record: {type: post_derived, version: 1}\n")
    assert index_status(record_dir).reason == "post_derived.yaml was added"
    (record_dir / "post_derived.yaml").unlink()
    build_index(record_dir)
    assert index_status(record_dir).fresh
    # A file rewritten with the same bytes (a new stamp) is still the same source.
    other = record_dir / "cases" / "case-2" / "b" / "run.yaml"
    same = other.read_bytes()
    other.unlink()
    other.write_bytes(same)
    assert index_status(record_dir).fresh
    assert load_index(record_dir) is not None
    other.write_bytes(same + b"# one more line\n")
    assert index_status(record_dir).reason == "cases/case-2/b/run.yaml changed"
    assert load_index(record_dir) is None


def test_a_copied_record_keeps_a_fresh_index_by_its_hashes(record: Record, tmp_path: Path) -> None:
    record_dir = record([case(1), case(2)])
    build_index(record_dir)
    copy = tmp_path / "copy"
    shutil.copytree(record_dir, copy)  # new inodes and times: the hashes decide
    assert index_status(copy).fresh
    _same_as_replay(copy)


def test_the_index_command_renews_a_copied_records_stamps_not_a_changed_ones(
    record: Record, tmp_path: Path
) -> None:
    record_dir = record([case(1), case(2)])
    build_index(record_dir)
    copy, changed = tmp_path / "copy", tmp_path / "changed"
    shutil.copytree(record_dir, copy)
    shutil.copytree(record_dir, changed)
    files = index_root(copy) / "files.parquet"

    def stale_stamps(root: Path) -> list[str]:
        table = pq.read_table(index_root(root) / "files.parquet", columns=STAMP_COLUMNS)
        return [path for path, was in stored_stamps(table) if stamp_of(root / path) != was]

    sources = len(stale_stamps(copy))
    # every source of a copy: 4 runs, experiment.yaml and summary.yaml
    assert sources == 6 and stale_stamps(record_dir) == []
    done = CliRunner().invoke(cli, ["index", str(copy)])
    assert done.exit_code == 0, done.output
    assert f"index fresh (the stamps of {sources} copied files renewed)" in done.output
    assert stale_stamps(copy) == [] and index_status(copy).fresh
    assert restamp_index(copy) == 0  # nothing left to renew
    _same_as_replay(copy)
    # A file whose bytes changed: stale, the files table untouched, the index rebuilt.
    run_file = changed / "cases" / "case-1" / "a" / "run.yaml"
    run_file.write_text(run_file.read_text() + "\n")
    before = (index_root(changed) / "files.parquet").read_bytes()
    assert restamp_index(changed) == 0
    assert (index_root(changed) / "files.parquet").read_bytes() == before
    assert index_status(changed).reason == "cases/case-1/a/run.yaml changed"
    assert files.is_file()


def test_renewed_stamps_never_land_in_an_index_put_in_place_meanwhile(
    record: Record, tmp_path: Path
) -> None:
    # The index read is held by a descriptor of its directory: when a rebuild (or a live
    # run) renames a new index into place meanwhile, the renewed stamps go to the old one.
    record_dir = record([case(1), case(2)])
    build_index(record_dir)
    copy = tmp_path / "copy"
    shutil.copytree(record_dir, copy)
    directory = os.open(index_root(copy), os.O_RDONLY)
    try:
        old = copy / ".index.old-test"
        index_root(copy).rename(old)
        build_index(copy)  # the new index, with the copy's own stamps
        new_files = (index_root(copy) / "files.parquet").read_bytes()
        assert _restamp(copy, directory) == 6
    finally:
        os.close(directory)
    assert (index_root(copy) / "files.parquet").read_bytes() == new_files
    renewed = pq.read_table(old / "files.parquet", columns=STAMP_COLUMNS)
    assert all(stamp_of(copy / path) == was for path, was in stored_stamps(renewed))


def test_an_index_of_another_format_or_a_damaged_one_is_not_trusted(record: Record) -> None:
    record_dir = record([case(1)])
    build_index(record_dir)
    manifest = index_root(record_dir) / "manifest.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "format": 0}))
    assert index_status(record_dir).reason == f"index format 0, not {FORMAT}"
    manifest.write_text("{not json")
    assert index_status(record_dir).reason == "no index"
    assert load_index(record_dir) is None


def test_a_record_with_missing_runs_reads_back_its_plan_and_missing_runs(
    record: Record,
) -> None:
    record_dir = record([case(1), case(2), case(3)])
    experiment = replay_experiment(record_dir).experiment
    for planned in experiment.plan[1::2]:  # as an interrupted experiment leaves it
        (record_dir / planned.path).unlink()
    build_index(record_dir)
    indexed = load_index(record_dir)
    assert indexed is not None
    assert indexed.missing_runs == tuple(planned.id for planned in experiment.plan[1::2])
    assert [run.run_id for run in indexed.runs] == [p.id for p in experiment.plan[::2]]
    _same_as_replay(record_dir)


def test_an_index_whose_plan_table_is_damaged_is_not_read(record: Record) -> None:
    import pyarrow as pa

    record_dir = record([case(1)])
    build_index(record_dir)
    plan = index_root(record_dir) / "plan.parquet"
    table = pq.read_table(plan)
    assert table.column("id").to_pylist() == [
        p.id for p in replay_experiment(record_dir).experiment.plan
    ]
    pq.write_table(table.drop_columns(["input"]).append_column("input", pa.array([1, 2])), plan)
    assert load_index(record_dir) is None
    plan.write_bytes(b"not parquet")
    assert load_index(record_dir) is None


def test_report_reads_a_fresh_index_and_the_yaml_once_it_is_stale(
    record: Record, tmp_path: Path
) -> None:
    # The index is trusted while its sources are unchanged: a value altered in the index
    # alone shows in the report (it was read), and no longer once the YAML changed.
    # Reports read a run's metric values from the scores and observations tables.
    record_dir = record([case(1), case(2)])
    build_index(record_dir)
    scores_file = _partition(record_dir) / "scores.parquet"
    table = pq.read_table(scores_file)
    altered = [value == 0.1 for value in table.column("value_num").to_pylist()]
    assert any(altered)
    import pyarrow as pa

    for name, value in (("value_num", 0.7), ("value_json", "0.7")):
        index = table.schema.get_field_index(name)
        column = [
            value if flag else old
            for flag, old in zip(altered, table.column(name).to_pylist(), strict=True)
        ]
        table = table.set_column(index, name, pa.array(column, table.schema.field(name).type))
    pq.write_table(table, scores_file)
    runner = CliRunner(env={"COLUMNS": "200"})
    out = tmp_path / "runs.csv"
    assert (
        runner.invoke(
            cli, ["export", str(record_dir), "--format", "csv", "--path", str(out)]
        ).exit_code
        == 0
    )
    assert "0.7" in out.read_text() and "0.1" not in out.read_text()
    yaml_file = record_dir / "cases" / "case-2" / "b" / "run.yaml"
    yaml_file.write_text(yaml_file.read_text() + "\n")
    assert (
        runner.invoke(
            cli, ["export", str(record_dir), "--format", "csv", "--path", str(out)]
        ).exit_code
        == 0
    )
    assert "0.1" in out.read_text() and "0.7" not in out.read_text()


def test_query_runs_sql_over_many_experiments(record: Record, tmp_path: Path) -> None:
    record([case(1), case(2)], name="many/first", benchmark="alpha")
    record([case(1), case(2), case(3)], name="many/second", benchmark="beta")
    runner = CliRunner(env={"COLUMNS": "200"})
    sql = "select benchmark, count(*) as runs from runs group by benchmark order by benchmark"
    result = runner.invoke(cli, ["query", str(tmp_path / "many"), sql, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [
        {"benchmark": "alpha", "runs": 4},
        {"benchmark": "beta", "runs": 6},
    ]
    assert "indexing" in result.stderr
    sql = (
        "select r.benchmark, s.name, sum(s.value_num) as total from scores s join runs r "
        "using (run_id, benchmark, experiment) where s.name = 'quality' group by all order by all"
    )
    result = runner.invoke(cli, ["query", str(tmp_path / "many"), sql, "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "benchmark,name,total"
    assert "indexing" not in result.stderr  # fresh now
    table = runner.invoke(cli, ["query", str(tmp_path / "many"), "select 1 as one"])
    assert table.exit_code == 0 and "one" in table.stdout and "1 rows" in table.stdout
    bad = runner.invoke(cli, ["query", str(tmp_path / "many"), "select nope from runs"])
    assert bad.exit_code == 1 and "nope" in bad.output


def test_index_command_builds_checks_and_leaves_a_fresh_index(record: Record) -> None:
    record_dir = record([case(1)])
    runner = CliRunner(env={"COLUMNS": "200"})
    assert runner.invoke(cli, ["index", "--check", str(record_dir)]).exit_code == 1
    built = runner.invoke(cli, ["index", str(record_dir)])
    assert built.exit_code == 0 and "indexed 2 runs (no index)" in built.output
    again = runner.invoke(cli, ["index", str(record_dir)])
    assert again.exit_code == 0 and "index fresh" in again.output
    assert runner.invoke(cli, ["index", "--check", str(record_dir)]).exit_code == 0


def test_parquet_export_has_the_csv_values_typed(record: Record, tmp_path: Path) -> None:
    record_dir = record([case(1), case(2), case(3)])
    runner = CliRunner(env={"COLUMNS": "200"})
    target = tmp_path / "runs.parquet"
    result = runner.invoke(
        cli, ["export", str(record_dir), "--format", "parquet", "--path", str(target)]
    )
    assert result.exit_code == 0, result.output
    table = pq.read_table(target)
    assert table.num_rows == 6
    assert str(table.schema.field("quality.score").type) == "double"
    assert str(table.schema.field("workload.size").type) == "int64"
    rows = table.to_pylist()
    assert {row["benchmark"] for row in rows} == {"index-test"}
    assert sorted(row["quality.score"] for row in rows) == [0.1, 0.1, 0.2, 0.2, 0.3, 0.3]


def test_loading_the_plugin_imports_neither_pyarrow_nor_duckdb() -> None:
    code = (
        "import sys\n"
        "from autobench.core.plugins import plugin_manager\n"
        "manager = plugin_manager()\n"
        "assert 'index' in {name for name, _ in manager.list_name_plugin()}\n"
        "assert 'pyarrow' not in sys.modules and 'duckdb' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_record_below_a_directory_is_an_error(tmp_path: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(cli, ["query", str(tmp_path), "select 1"])
    assert result.exit_code == 1 and "no recorded experiment" in result.output
    assert index_status(tmp_path).reason == "no index"


def test_an_index_whose_run_json_is_not_a_valid_run_fails_when_the_run_is_used(
    record: Record,
) -> None:
    # Runs are validated when first used, not on load: a runs table edited into something
    # that is not a run record is refused, with the command that rebuilds it, as soon as a
    # reader builds that run; never a half-built run.
    record_dir = record([case(1), case(2)])
    build_index(record_dir)
    runs_file = _partition(record_dir) / "runs.parquet"
    table = pq.read_table(runs_file)
    texts = table.column("record_json").to_pylist()
    damaged = json.loads(texts[0])
    damaged["run_id"] = {"not": "a string"}
    import pyarrow as pa

    index = table.schema.get_field_index("record_json")
    column = pa.array([json.dumps(damaged), *texts[1:]])
    pq.write_table(table.set_column(index, "record_json", column), runs_file)
    assert index_status(record_dir).fresh  # the YAML did not change...
    result = load_index(record_dir)
    assert result is not None
    with pytest.raises(DamagedIndexError, match="autobench index"):
        list(result.runs)  # ...but the run does not validate


_MODULES_AFTER = """
import json, sys
from autobench.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="autobench")
except SystemExit as end:
    code = end.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _report_in_a_fresh_process(record_dir: Path) -> tuple[str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER, "report", str(record_dir)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "120"},
    )
    text, _, last = done.stdout.rstrip("\n").rpartition("\n")
    found = json.loads(last)
    assert found["code"] in (0, None), done.stderr
    return text, set(found["modules"])


def test_report_from_the_index_imports_no_runtime_scipy_or_duckdb(
    record: Record, tmp_path: Path
) -> None:
    # The whole command in a fresh interpreter: what it prints is what the YAML gives, and
    # it loaded pyarrow (it read the index) but not what a report does not need.
    record_dir = record([case(n, n * 1.5) for n in range(12)], name="fresh")
    yaml_dir = tmp_path / "plain"  # a path of the same length: the panels are as wide
    shutil.copytree(record_dir, yaml_dir)
    build_index(record_dir)
    from_index, modules = _report_in_a_fresh_process(record_dir)
    from_yaml, yaml_modules = _report_in_a_fresh_process(yaml_dir)
    assert "pyarrow" in modules and "pyarrow" not in yaml_modules
    assert from_index.replace(str(record_dir), "DIR") == from_yaml.replace(str(yaml_dir), "DIR")
    assert "Leaderboard" in from_index
    unneeded = (
        "scipy",
        "duckdb",
        "pyarrow.dataset",
        "pyarrow.acero",
        "pyarrow.compute",  # a tenth of a second of wrappers: the index calls the kernels
        "autobench.core.runtime",
    )
    assert [name for name in unneeded if name in modules] == []


NO_METRIC_TASK = """
def run(ctx, case):
    return {"value": case.input["n"] * 2}
"""


def test_a_report_from_an_index_with_empty_tables_imports_no_pandas(tmp_path: Path) -> None:
    # Runs that record no metric leave the observations table without rows; reading it
    # must not reach pyarrow's pandas shim (pa.array([]) imports pandas when installed).
    (tmp_path / "no_metric_task.py").write_text(NO_METRIC_TASK)
    cases = "\n".join(
        f"        - {{id: case-{n}, input: {{n: {n}}}, expected: {{value: {2 * n}}}}}"
        for n in range(6)
    )
    (tmp_path / "autobench.yaml").write_text(
        "benchmark:\n  no-metric:\n    dataset:\n      cases:\n"
        + cases
        + "\n    run:\n      python: no_metric_task:run\n"
        + "    variants:\n      a: {factors: {mode: a}}\n"
        + "    score:\n      correct:\n"
        + "        exact: {actual: output.value, expected: case.expected.value}\n"
        + "        semantic: quality.correctness\n"
    )
    record_dir = tmp_path / "rec"
    subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER, "run", "autobench.yaml", "--record", "rec"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    assert index_status(record_dir).fresh
    observations = list((record_dir / "index").rglob("observations.parquet"))
    assert observations and pq.read_metadata(observations[0]).num_rows == 0
    text, modules = _report_in_a_fresh_process(record_dir)
    assert "pyarrow" in modules and "Leaderboard" in text
    assert "pandas" not in modules


def test_a_streamed_index_holds_the_tables_of_a_replayed_one(record: Record) -> None:
    """``build_index`` reads a record with only summaries beside its runs a group of run
    files at a time (flat memory); its tables are those of the whole replay, an absent run
    included."""
    from autobench.index._build import replay_index
    from autobench.index._live import stream_index

    record_dir = record([case(1, llm=True), case(2, 2.5, boom=True), case(3, True), case(4)])
    experiment = replay_experiment(record_dir).experiment
    (record_dir / experiment.plan[3].path).unlink()  # as an interrupted experiment leaves it
    streamed = stream_index(record_dir)
    assert streamed is not None and streamed.reportable, streamed
    partition = _partition(record_dir)
    tables = {
        path.name: pq.read_table(path)
        for path in [*partition.glob("*.parquet"), *index_root(record_dir).glob("*.parquet")]
    }
    replayed = replay_index(record_dir)
    assert (streamed.runs, streamed.rows) == (replayed.runs, replayed.rows) == (7, streamed.rows)
    for name, table in tables.items():
        where = partition if (partition / name).exists() else index_root(record_dir)
        assert pq.read_table(where / name).equals(table), name
    (record_dir / "post_derived.yaml").write_text("")  # a post-derived record: replayed
    assert stream_index(record_dir) is None


def test_run_files_swapped_between_two_planned_runs_are_indexed_as_replay_reads_them(
    record: Record,
) -> None:
    """A tampered record whose two run files traded places: the streamed build finds the
    runs at other planned runs' paths and leaves the record to the replay, so the index
    says what replay says (or fails as replay fails)."""
    from autobench.index._build import replay_index

    record_dir = record([case(1), case(2, 2.5)])
    plan = replay_experiment(record_dir).experiment.plan
    first, second = record_dir / plan[0].path, record_dir / plan[2].path
    first_bytes, second_bytes = first.read_bytes(), second.read_bytes()
    first.write_bytes(second_bytes)
    second.write_bytes(first_bytes)
    try:
        replayed = replay_index(record_dir)
    except Exception as error:  # replay refuses the record: so does the build
        with pytest.raises(type(error)):
            build_index(record_dir)
        return
    built = build_index(record_dir)
    assert (built.runs, built.rows, built.reportable) == (
        replayed.runs,
        replayed.rows,
        replayed.reportable,
    )
