"""Reports read from the index's columns: the same bytes as from the YAML records, through
the commands (report, compare, exports), on generated records; and a run's whole record is
read from the index only when a view shows it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_support import Record, case

from autobench.cli import cli
from autobench.index import build_index, index_root, load_index
from autobench.index._columns import DamagedIndexError
from autobench.records import PlainRun, RunStatus, RunTable, plain_run, replay_experiment
from autobench.report import build_report

VARIANTS = (
    {"id": "a", "factors": {"mode": "a"}},
    {"id": "b", "factors": {"mode": "b"}},
    {"id": "c", "factors": {"mode": "c"}},
)


def _partition(record_dir: Path) -> Path:
    manifest = json.loads((index_root(record_dir) / "manifest.json").read_text())
    return index_root(record_dir) / manifest["partition"]


def _outputs(record_dir: Path, scratch: Path) -> dict[str, bytes]:
    """What the read commands print and write for ``record_dir``."""
    runner = CliRunner(env={"COLUMNS": "200"})
    target = str(record_dir)
    printed = {
        "report": ["report", target, "--runs", "all"],
        "report-failed": ["report", target, "--runs", "failed"],
        "compare": ["compare", target, "--baseline", "a", "--candidate", "b"],
        "compare-c": ["compare", target, "--baseline", "c", "--candidate", "a"],
    }
    out: dict[str, bytes] = {}
    for name, args in printed.items():
        result = runner.invoke(cli, args)
        assert result.exit_code in (0, 3), result.output
        out[name] = result.stdout_bytes
    for name in ("csv", "junit", "markdown", "yaml", "github", "parquet"):
        path = scratch / f"{name}.out"
        path.unlink(missing_ok=True)
        args = ["export", target, "--format", name, "--path", str(path)]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        out[name] = path.read_bytes()
    return out


def _typed(items: PlainRun) -> list[tuple[Any, ...]] | None:
    """``items`` compared with their values' types (``1 == 1.0 == True`` otherwise)."""
    if items is None:
        return None
    return [
        (i.semantic_type, i.name, i.value.__class__, i.value, i.unit, i.role, i.direction, i.source)
        for i in items
    ]


def _same_from_the_index_and_the_yaml(record_dir: Path, scratch: Path) -> None:
    built = build_index(record_dir)
    assert built.reportable, built.reason
    result = load_index(record_dir)
    assert result is not None and isinstance(result.runs, RunTable)
    # The columns give each run the plain values its record gives (the YAML path's input).
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert [_typed(plain_run(run)) for run in replayed.runs] == [
        _typed(items) for items in result.runs.plain
    ]
    from_index = _outputs(record_dir, scratch)
    aside = scratch / "index-aside"
    shutil.move(index_root(record_dir), aside)
    try:
        from_yaml = _outputs(record_dir, scratch)
    finally:
        shutil.move(aside, index_root(record_dir))
    assert set(from_index) == set(from_yaml)
    for name, data in from_index.items():
        assert data == from_yaml[name], name


numbers = st.one_of(
    st.integers(-(10**6), 10**6),
    # NaN and infinities are left out: JSON does not give them back, so the build marks
    # an index holding them not reportable and reports read the YAML.
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.sampled_from(["slow", "fast"]),
)
generated_case = st.fixed_dictionaries(
    {
        "value": numbers,
        "unit": st.sampled_from([None, "ms", "s", "min", "tokens"]),
        "semantic": st.sampled_from(["workload.size", "time.latency", "quality.score"]),
        "boom": st.booleans(),
        "llm": st.booleans(),
    }
)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(cases=st.lists(generated_case, min_size=2, max_size=6), repeats=st.integers(1, 2))
def test_reports_compare_and_exports_from_the_index_are_the_yamls_bytes(
    record: Record, tmp_path: Path, cases: list[dict[str, Any]], repeats: int
) -> None:
    # Scores and observations of every shape the columns hold (integers, floats,
    # booleans, text), units that convert and units that do not, errored
    # runs, LLM usage (accounting), three variants and repeats.
    generated = [case(n, **spec) for n, spec in enumerate(cases)]
    record_dir = record(generated, name="gen", variants=VARIANTS, repeats=repeats)
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    try:
        _same_from_the_index_and_the_yaml(record_dir, scratch)
    finally:
        shutil.rmtree(record_dir)
        shutil.rmtree(scratch)


def _damage(record_dir: Path, which: set[str]) -> None:
    """Replace the stored JSON of the runs ``which`` by something that is no run record."""
    runs_file = _partition(record_dir) / "runs.parquet"
    table = pq.read_table(runs_file)
    ids = table.column("run_id").to_pylist()
    texts = [
        '{"not": "a run"}' if run_id in which else text
        for run_id, text in zip(ids, table.column("record_json").to_pylist(), strict=True)
    ]
    index = table.schema.get_field_index("record_json")
    pq.write_table(table.set_column(index, "record_json", pa.array(texts)), runs_file)


def test_a_report_builds_only_the_runs_it_shows_whole(record: Record) -> None:
    # The runs that passed are reported from the columns alone: their stored JSON is never
    # read (damaging it changes nothing), while the errored runs, whose reasons and errors
    # the report shows, are read whole.
    record_dir = record([case(n, boom=n == 2) for n in range(1, 6)])
    build_index(record_dir)
    replayed = replay_experiment(record_dir, evidence_only=True)
    passed = {run.run_id for run in replayed.runs if run.status is RunStatus.PASSED}
    not_passed = {run.run_id for run in replayed.runs} - passed
    assert passed and not_passed
    _damage(record_dir, passed)
    indexed = load_index(record_dir)
    assert indexed is not None
    assert build_report(indexed) == build_report(replayed)
    _damage(record_dir, not_passed)
    damaged = load_index(record_dir)
    assert damaged is not None
    with pytest.raises(DamagedIndexError, match="autobench index"):
        build_report(damaged)
    # The command says so, with the command that rebuilds the index.
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["report", str(record_dir)])
    assert result.exit_code == 1
    # The panel wraps the message where the temporary path's length puts it.
    message = " ".join(row.strip("│ ") for row in result.output.splitlines())
    assert "not a valid run record" in message and "autobench index" in message


def test_a_run_table_is_the_sequence_of_the_replayed_runs(record: Record) -> None:
    record_dir = record([case(n, llm=n == 1, boom=n == 3) for n in range(1, 5)], repeats=2)
    build_index(record_dir)
    indexed = load_index(record_dir)
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert indexed is not None and isinstance(indexed.runs, RunTable)
    runs = indexed.runs
    assert len(runs) == len(replayed.runs) == 16
    assert runs[3] == replayed.runs[3] and runs[-1] == replayed.runs[-1]
    assert runs[2:7] == replayed.runs[2:7]
    assert list(runs) == list(replayed.runs)
    assert runs.run_ids == tuple(run.run_id for run in replayed.runs)
    assert runs.statuses == tuple(run.status for run in replayed.runs)
    assert runs.durations == tuple(run.run.duration for run in replayed.runs)
    assert indexed.missing_runs == replayed.missing_runs
    assert indexed.status_counts("a") == replayed.status_counts("a")
    assert indexed.runs_for(variant_id="b", case_id="case-2") == replayed.runs_for(
        variant_id="b", case_id="case-2"
    )
    with pytest.raises(IndexError):
        runs[16]


ODD_TASK = """
def run(ctx, case):
    data = case.input
    n = data["n"]
    if n % 5 == 1:
        ctx.diagnostic("note", "slow start", semantic_type="time.latency", unit="s")
    if n % 5 == 2:
        ctx.event("retry", 1, semantic_type="workload.size")
    if n % 5 == 3:
        ctx.metric("policy", n % 2 == 0, semantic_type="policy.result", tags={"metric": "size"})
    if n % 5 == 4:
        ctx.metric("tokens", n, semantic_type="llm.tokens.total", unit="tokens")
        ctx.metric("tokens_again", n + 1, semantic_type="llm.tokens.total", unit="tokens")
        ctx.metric("total", 2 * n + 1, semantic_type="llm.tokens.total", unit="tokens",
                   tags={"accounting": "summary"})
    if n == 0:
        ctx.metric("listed", [n, n + 1], semantic_type="quality.score")
    if n == 7:
        ctx.metric("tagged", n, semantic_type="time.latency", tags={"note": "cassette-free"})
    if n % 5 == 0:
        ctx.metric("latency", 1500 + n, semantic_type="time.latency", unit="ms")
        ctx.metric("latency_again", 1.5, semantic_type="time.latency", unit="s")
    ctx.metric("size", n, semantic_type="workload.size", unit=data.get("unit"))
    return {"value": n * 2, "quality": (n % 10) / 10}
"""


def _odd_record(tmp_path: Path) -> Path:
    """A record whose runs hold what the columns do not give back plainly: diagnostics,
    events and policy results with semantic types, accounting summaries, several candidates
    of an additive and of a non-additive type, a list value."""
    import asyncio
    import sys

    from index_support import SCORING

    from autobench import run_benchmark_spec
    from autobench.core.spec import BenchmarkSpec
    from autobench.records import record_experiment

    (tmp_path / "odd_task.py").write_text(ODD_TASK)
    sys.path.insert(0, str(tmp_path))
    data: dict[str, Any] = {
        "benchmark": {"id": "odd"},
        "dataset": {"cases": [case(n, unit="ms" if n % 3 else None) for n in range(10)]},
        "variants": list(VARIANTS),
        "scoring": SCORING,
        "task": {"target": "odd_task:run"},
    }
    spec = BenchmarkSpec.model_validate(data).model_copy(update={"base_dir": tmp_path})
    try:
        result = asyncio.run(run_benchmark_spec(spec))
    finally:
        sys.modules.pop("odd_task", None)
        sys.path.remove(str(tmp_path))
    target = tmp_path / "odd"
    record_experiment(result, target)
    return target


def test_runs_the_columns_do_not_hold_plainly_are_read_whole_with_the_same_bytes(
    tmp_path: Path,
) -> None:
    record_dir = _odd_record(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    _same_from_the_index_and_the_yaml(record_dir, scratch)
    result = load_index(record_dir)
    assert result is not None and isinstance(result.runs, RunTable)
    plain = dict(zip(result.runs.case_ids, result.runs.plain, strict=True))
    # A diagnostic, an event with a semantic type, an accounting summary, a list value:
    # read whole. A policy result and several candidates are in the plain items (the
    # projection decides from them whether it needs the whole run: for a policy result it
    # does; two latencies in two units are projected from observations built for them).
    assert plain["case-1"] is None and plain["case-2"] is None
    assert plain["case-4"] is None and plain["case-0"] is None
    assert plain["case-3"] is not None and plain["case-6"] is None
    assert plain["case-5"] is not None and plain["case-8"] is not None
    assert plain["case-7"] is None  # a tag naming cassettes: read whole (a cautious rule)
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert build_report(result) == build_report(replayed)


def test_plain_values_read_in_small_batches_are_the_records(
    record: Record, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of three rows: each batch numbers its own distinct rows and fields, the
    # rows' item numbers are offset by the items of the batches before and put in run
    # order across batches; each run's plain values are still its record's.
    from autobench.index import _plain

    monkeypatch.setattr(_plain, "_BATCH_ROWS", 3)
    generated = [case(n, value=n % 3 if n % 2 else float(n) / 4) for n in range(1, 12)]
    record_dir = record(generated, name="small", variants=VARIANTS, repeats=2)
    build_index(record_dir)
    result = load_index(record_dir)
    assert result is not None and isinstance(result.runs, RunTable)
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert len(replayed.runs) == 66
    assert [_typed(plain_run(run)) for run in replayed.runs] == [
        _typed(items) for items in result.runs.plain
    ]
    assert build_report(result) == build_report(replayed)


def _regroup(path: Path, groups: list[list[int]]) -> None:
    """Rewrite the table at ``path`` with the rows of each of ``groups`` (row numbers) as
    one row group, in that order."""
    table = pq.read_table(path)
    with pq.ParquetWriter(path, table.schema) as writer:
        for rows in groups:
            writer.write_table(table.take(pa.array(rows, type=pa.int64())))


@pytest.mark.parametrize("layout", ["aligned", "one-row-groups", "shuffled"])
def test_rows_are_matched_to_their_runs_whatever_the_row_groups(
    record: Record, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    # The index worker writes a group of runs' rows in the same row group of every table
    # ("aligned": each chunk's ids are looked up in the runs table's group of the same
    # number); row groups of one row, or rows of a run in another group than the run's
    # ("shuffled"), are matched against every run. Each run's plain values are its
    # record's either way.
    from autobench.index import _plain

    generated = [case(n, value=n % 3 if n % 2 else float(n) / 4) for n in range(1, 8)]
    record_dir = record(generated, name="groups", variants=VARIANTS)
    build_index(record_dir)
    partition = _partition(record_dir)
    run_ids = pq.read_table(partition / "runs.parquet", columns=["run_id"]).column(0)
    runs = run_ids.to_pylist()
    run_groups = [list(range(k, min(k + 4, len(runs)))) for k in range(0, len(runs), 4)]
    _regroup(partition / "runs.parquet", run_groups)
    for name in ("observations", "scores"):
        path = partition / f"{name}.parquet"
        owners = [runs.index(i) for i in pq.read_table(path).column("run_id").to_pylist()]
        if layout == "aligned":
            groups = [[k for k, o in enumerate(owners) if o in group] for group in run_groups]
        elif layout == "one-row-groups":
            groups = [[k] for k in range(len(owners))]
        else:  # the last group's rows first, the first's last: no chunk in its runs' group
            groups = [[k for k, o in enumerate(owners) if o in g] for g in run_groups][::-1]
        _regroup(path, groups)
    matched = []
    in_groups = _plain._in_groups

    def recorded(*args: Any) -> Any:
        matched.append(found := in_groups(*args))
        return found

    monkeypatch.setattr(_plain, "_in_groups", recorded)
    result = load_index(record_dir)
    assert result is not None and isinstance(result.runs, RunTable)
    if layout == "aligned":  # both tables matched group by group
        assert len(matched) == 2 and all(found is not None for found in matched)
    elif layout == "shuffled":  # tried, and refused
        assert matched == [None, None]
    else:  # other row groups than the runs table's: not tried
        assert matched == []
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert [_typed(plain_run(run)) for run in replayed.runs] == [
        _typed(items) for items in result.runs.plain
    ]
    assert build_report(result) == build_report(replayed)


def test_the_runs_cases_are_coded_by_the_plans_when_they_are_the_plans(record: Record) -> None:
    # Each run's case is its planned run's: the run table's case column is coded by the
    # plan's (one reading of the cases, their strings shared with the plan's column);
    # a run whose stored case is another keeps the stored one.
    from autobench.records import CodedColumn, plan_column

    record_dir = record([case(n) for n in range(1, 6)], name="cases", variants=VARIANTS)
    build_index(record_dir)
    result = load_index(record_dir)
    assert result is not None and isinstance(result.runs, RunTable)
    replayed = replay_experiment(record_dir, evidence_only=True)
    cases = result.runs.case_ids
    assert isinstance(cases, CodedColumn)
    assert list(cases) == [run.case_id for run in replayed.runs]
    planned = plan_column(result.experiment.plan, "case")
    assert list(planned) == [run.case for run in replayed.experiment.plan]
    assert {id(name) for name in planned} == {id(name) for name in cases.names}
    runs_file = _partition(record_dir) / "runs.parquet"
    table = pq.read_table(runs_file)
    stored = table.column("case_id").to_pylist()
    stored[3] = "case-elsewhere"
    index = table.schema.get_field_index("case_id")
    pq.write_table(table.set_column(index, "case_id", pa.array(stored)), runs_file)
    again = load_index(record_dir)
    assert again is not None and isinstance(again.runs, RunTable)
    ids = table.column("run_id").to_pylist()
    by_id = dict(zip(ids, stored, strict=True))
    assert list(again.runs.case_ids) == [by_id[run_id] for run_id in again.runs.run_ids]
    assert "case-elsewhere" in list(again.runs.case_ids)
