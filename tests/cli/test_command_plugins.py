"""`autobench export` and `autobench replay --extract` read the plugins handed to the command
as its click object: export formats and trace extractors come from them, not the defaults."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.abp import AutobenchError
from autobench.cli import cli
from autobench.core.plugins import AutobenchPlugins, hookimpl
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import (
    ExperimentResult,
    RecordDirectoryWriter,
    load_extraction_record,
    replay_experiment,
)
from autobench.report import Exporter, Report

TASK = """\
def run(ctx, case):
    with ctx.span("llm", kind="llm", usage={"input_tokens": case.input["x"], "output_tokens": 5}):
        pass
    return {"value": case.input["x"]}
"""

SPEC = """\
benchmark:
  plugins-demo:
    cases:
      - {id: one, input: {x: 3}}
      - {id: two, input: {x: 4}}
    run: {python: plugins_task:run}
    variants:
      base: {factors: {}}
"""


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real record directory of two runs, each with one LLM span carrying usage."""
    (tmp_path / "plugins_task.py").write_text(TASK)
    (tmp_path / "autobench.yaml").write_text(SPEC)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")
    directory = tmp_path / "record"
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(directory)))
    return directory


class RunCountExporter:
    """A test-only export format: one line with the number of runs."""

    name = "runcount"
    extension = "txt"
    description = "the number of runs"

    def export(self, report: Report, result: ExperimentResult) -> str:
        return f"runs: {len(result.runs)}\n"


class LostConnectionError(RuntimeError):
    """What the failing test format raises after its first piece."""


class FailingExporter:
    """A test-only format made in pieces (``chunks``) that fails after the first one, as
    an exporter reading from a source that goes away midway would."""

    name = "halfway"
    extension = "txt"
    description = "one line per run, then a failure"

    def export(self, report: Report, result: ExperimentResult) -> str:
        return "".join(self.chunks(report, result))

    def chunks(self, report: Report, result: ExperimentResult) -> Iterator[str]:
        yield "".join(f"{run_id}\n" for run_id in report.run_rows.run_ids)
        raise LostConnectionError("the source went away after 2 runs")


class RunCountPlugin:
    @hookimpl
    def autobench_exporters(self) -> Sequence[Exporter]:
        return (RunCountExporter(),)


class SourceGoneError(AutobenchError):
    """An error a format raises on purpose (its panel keeps its own title)."""


class RefusingExporter(FailingExporter):
    """``halfway`` failing with an Autobench error instead."""

    name = "refusing"

    def chunks(self, report: Report, result: ExperimentResult) -> Iterator[str]:
        yield "one piece\n"
        raise SourceGoneError("the source is gone; export it again later")


class FailingPlugin:
    @hookimpl
    def autobench_exporters(self) -> Sequence[Exporter]:
        return (FailingExporter(), RefusingExporter())


def test_export_uses_the_commands_plugins(runner: CliRunner, record: Path, tmp_path: Path) -> None:
    import autobench.report._plugin as report_builtins

    plugins = AutobenchPlugins(RunCountPlugin(), report_builtins, load_entry_points=False)
    target = tmp_path / "count.txt"
    args = ["export", str(record), "--format", "runcount", "--path", str(target)]
    result = runner.invoke(cli, args, obj=plugins)
    assert result.exit_code == 0, result.output
    assert target.read_text() == "runs: 2\n"
    # the built-in formats are there because the test registered report's plugin
    csv_target = tmp_path / "runs.csv"
    args = ["export", str(record), "--format", "csv", "--path", str(csv_target)]
    assert runner.invoke(cli, args, obj=plugins).exit_code == 0
    assert csv_target.read_text().startswith("run,case,variant")


def test_export_without_the_plugins_does_not_know_the_format(
    runner: CliRunner, record: Path, tmp_path: Path
) -> None:
    target = tmp_path / "count.txt"
    args = ["export", str(record), "--format", "runcount", "--path", str(target)]
    result = runner.invoke(cli, args)  # the process default: no test-only format
    assert result.exit_code == 2
    assert "'runcount' is not a known export format" in result.output
    # plugins without report's built-in exporters know only the test-only format
    plugins = AutobenchPlugins(RunCountPlugin(), load_entry_points=False)
    args = ["export", str(record), "--format", "csv", "--path", str(target)]
    result = runner.invoke(cli, args, obj=plugins)
    assert result.exit_code == 2
    assert "known formats: runcount" in result.output
    assert not target.exists()


@pytest.mark.parametrize("existing", [None, "the previous export\n"])
def test_an_export_that_fails_midway_leaves_no_half_file(
    runner: CliRunner, record: Path, tmp_path: Path, existing: str | None
) -> None:
    plugins = AutobenchPlugins(FailingPlugin(), load_entry_points=False)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "runs.txt"
    if existing is not None:
        target.write_text(existing)
    args = ["export", str(record), "--format", "halfway", "--path", str(target)]
    result = runner.invoke(cli, args, obj=plugins)
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, LostConnectionError)  # shown, not a traceback
    shown = _unboxed(result.output)
    assert "Exportfailed" in shown
    assert (
        _unboxed("the halfway export failed after 1 pieces: LostConnectionError: the source")
        in shown
    )
    if existing is None:
        assert _unboxed(f"{target} was not written") in shown
        assert list(out.iterdir()) == []  # neither the file nor its temporary file
    else:
        assert _unboxed(f"{target} was left as it was") in shown
        assert list(out.iterdir()) == [target] and target.read_text() == existing


def test_an_error_a_format_raises_on_purpose_keeps_its_panel(
    runner: CliRunner, record: Path, tmp_path: Path
) -> None:
    plugins = AutobenchPlugins(FailingPlugin(), load_entry_points=False)
    target = tmp_path / "out" / "runs.txt"
    args = ["export", str(record), "--format", "refusing", "--path", str(target)]
    result = runner.invoke(cli, args, obj=plugins)
    assert result.exit_code == 1, result.output
    shown = _unboxed(result.output)
    assert "Sourcegoneerror" in shown and "thesourceisgone;exportitagainlater" in shown
    assert list(target.parent.iterdir()) == []


def _unboxed(text: str) -> str:
    """``text`` without white space and the error panel's borders (a long path is folded
    across the panel's lines, at a place that moves with the temporary path's length)."""
    return re.sub(r"[\s│╭╮╰╯─]+", "", text)


def _usage_tokens(record: Path, derived: str) -> dict[str, object]:
    extraction = load_extraction_record(record / derived)
    return {
        str(item.semantic_type): item.value
        for item in extraction.observations
        if str(item.semantic_type).startswith("llm.tokens.")
    }


def test_replay_extract_writes_derived_records(runner: CliRunner, record: Path) -> None:
    plugins = AutobenchPlugins(load_entry_points=False)
    result = runner.invoke(cli, ["replay", str(record), "--extract", "usage"], obj=plugins)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 2
    tokens = {}
    for line in lines:
        run_id, path = line.split(": ", 1)
        derived = Path(path).relative_to(record).as_posix()
        assert derived.startswith("derived/usage/3/cases/")
        assert derived.endswith("/extraction.yaml")
        tokens[run_id] = _usage_tokens(record, derived)
    assert sorted(
        (values["llm.tokens.input"], values["llm.tokens.output"]) for values in tokens.values()
    ) == [(3, 5), (4, 5)]
    # replay now appends the derived observations; the recorded runs are untouched
    replayed = replay_experiment(record)
    assert {run.case.id for run in replayed.runs} == {"one", "two"}
    # extracting the same extractor version again is refused, never overwritten
    again = runner.invoke(cli, ["replay", str(record), "--extract", "usage"], obj=plugins)
    assert again.exit_code == 1
    assert "already" in " ".join(again.output.split())


def test_replay_extract_composes_several(runner: CliRunner, record: Path) -> None:
    args = ["replay", str(record), "--extract", "span", "--extract", "usage"]
    result = runner.invoke(cli, args, obj=AutobenchPlugins(load_entry_points=False))
    assert result.exit_code == 0, result.output
    paths = [line.split(": ", 1)[1] for line in result.output.strip().splitlines()]
    assert len(paths) == 2
    assert all("/derived/composite/" in path for path in paths)
    derived = Path(paths[0]).relative_to(record).as_posix()
    extraction = load_extraction_record(record / derived)
    assert [part.name for part in extraction.lineage.components] == ["span", "usage"]
    assert "llm.tokens.input" in {item.semantic_type for item in extraction.observations}


def test_replay_extract_unknown_name_is_a_usage_error(runner: CliRunner, record: Path) -> None:
    args = ["replay", str(record), "--extract", "usage", "--extract", "nope"]
    result = runner.invoke(cli, args, obj=AutobenchPlugins(load_entry_points=False))
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "Invalid value for '--extract': unknown trace extractor 'nope'" in flat
    assert "known extractors: signal, span, usage" in flat
    assert not (record / "derived").exists()


def test_replay_without_extract_shows_the_report(runner: CliRunner, record: Path) -> None:
    result = runner.invoke(cli, ["replay", str(record)])
    assert result.exit_code == 0, result.output
    assert "plugins-demo" in result.output
    assert not (record / "derived").exists()


def test_help_mentions_extract(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["replay", "--help"])
    assert "--extract NAME" in result.output
    assert "derived record" in " ".join(result.output.split())
