"""report, compare, export and --fail-on on a real recorded experiment."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import replay_experiment
from autobench.report import build_report, exporter_registry


@pytest.fixture
def recorded(runner: CliRunner, spec_dir: Path) -> Path:
    record = spec_dir / "rec"
    result = runner.invoke(
        cli, ["run", str(spec_dir / "autobench.yaml"), "--record", str(record), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    return record


def test_run_ends_with_the_report(runner: CliRunner, spec_dir: Path) -> None:
    result = runner.invoke(
        cli, ["run", str(spec_dir / "autobench.yaml"), "--no-record", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    for heading in (
        "Experiment",
        "Variants",
        "Leaderboard",
        "Case matrix",
        "Compare double -> triple",
    ):
        assert heading in result.output


def test_report_shows_every_view_from_records_alone(
    runner: CliRunner, spec_dir: Path, recorded: Path
) -> None:
    (spec_dir / "cli_task.py").unlink()
    result = runner.invoke(cli, ["report", str(recorded)])
    assert result.exit_code == 0, result.output
    assert "passed 2  failed 2" in result.output
    assert "factor=2" in result.output and "factor=3" in result.output
    assert "constraint correct failed" in result.output or "correct" in result.output
    assert "Why runs did not pass" in result.output


def test_fail_on_gates_run_and_report(runner: CliRunner, spec_dir: Path, recorded: Path) -> None:
    gated = runner.invoke(cli, ["report", str(recorded), "--fail-on", "failed,errored"])
    assert gated.exit_code == 3
    assert "--fail-on: 2 run(s) failed" in gated.output
    assert runner.invoke(cli, ["report", str(recorded), "--fail-on", "errored"]).exit_code == 0
    bad = runner.invoke(cli, ["report", str(recorded), "--fail-on", "broken"])
    assert bad.exit_code == 2 and "unknown status broken" in bad.output
    run = runner.invoke(
        cli,
        [
            "run",
            str(spec_dir / "autobench.yaml"),
            "--no-record",
            "--no-progress",
            "--fail-on",
            "failed",
        ],
    )
    assert run.exit_code == 3


def test_compare_pairs_by_case_and_refuses_unknown_ids(runner: CliRunner, recorded: Path) -> None:
    result = runner.invoke(
        cli, ["compare", str(recorded), "--baseline", "double", "--candidate", "triple"]
    )
    assert result.exit_code == 0, result.output
    assert "paired cases     2" in result.output
    assert "factor: 2 -> 3" in result.output
    assert "cause" not in result.output.lower()
    unknown = runner.invoke(
        cli, ["compare", str(recorded), "--baseline", "double", "--candidate", "quadruple"]
    )
    assert unknown.exit_code == 1
    assert "quadruple" in unknown.output and "double, triple" in unknown.output


def test_export_writes_the_file_and_previews_it(
    runner: CliRunner, recorded: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "runs.csv"
    result = runner.invoke(cli, ["export", str(recorded), "--format", "csv", "--path", str(target)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(target.read_text().splitlines()))
    assert len(rows) == 4 and {row["status"] for row in rows} == {"passed", "failed"}
    assert "wrote" in result.output and "4 rows" in result.output
    yaml_target = tmp_path / "report.yaml"
    shown = runner.invoke(
        cli, ["export", str(recorded), "--format", "yaml", "--path", str(yaml_target)]
    )
    assert shown.exit_code == 0
    assert yaml_target.read_text().count("\n") > 20
    assert "record:" not in shown.output.split("\n")[0]
    junit = runner.invoke(
        cli, ["export", str(recorded), "--format", "junit", "--path", str(tmp_path / "junit.xml")]
    )
    assert junit.exit_code == 0 and "<testsuite" in (tmp_path / "junit.xml").read_text()


def test_html_export_reads_the_traces_in_one_pass_to_the_same_page(
    runner: CliRunner, recorded: Path, tmp_path: Path
) -> None:
    """The html exporter needs traces: the command replays them with the runs, and the page
    is the one the exporter writes from an evidence-only replay (which reads them again)."""
    target = tmp_path / "report.html"
    result = runner.invoke(
        cli, ["export", str(recorded), "--format", "html", "--path", str(target)]
    )
    assert result.exit_code == 0, result.output
    evidence = replay_experiment(recorded, evidence_only=True)
    exporter = exporter_registry().get("html")
    assert exporter.needs_traces is True  # type: ignore[attr-defined]
    assert target.read_text(encoding="utf-8") == exporter.export(build_report(evidence), evidence)
    assert '"benchmark.run"' in target.read_text(encoding="utf-8")  # the waterfalls' spans


def test_export_offers_plugin_formats_and_refuses_unknown_ones(
    runner: CliRunner, recorded: Path, tmp_path: Path
) -> None:
    plugin = runner.invoke(
        cli,
        ["export", str(recorded), "--format", "json-lines", "--path", str(tmp_path / "runs.jsonl")],
    )
    assert plugin.exit_code == 0, plugin.output
    unknown = runner.invoke(
        cli, ["export", str(recorded), "--format", "xlsx", "--path", str(tmp_path / "x.xlsx")]
    )
    assert unknown.exit_code == 2  # a bad option value is a usage error
    assert "Invalid value for '--format'" in unknown.output
    assert "json-lines" in unknown.output and "markdown" in unknown.output
    assert not (tmp_path / "x.xlsx").exists()


def test_export_never_overwrites_a_record(runner: CliRunner, recorded: Path) -> None:
    before = (recorded / "summary.yaml").read_bytes()
    result = runner.invoke(
        cli, ["export", str(recorded), "--format", "yaml", "--path", str(recorded / "summary.yaml")]
    )
    assert result.exit_code == 1
    assert (recorded / "summary.yaml").read_bytes() == before


def test_no_color_and_non_terminal_output_have_no_colour_codes(
    spec_dir: Path, recorded: Path
) -> None:
    colour = re.compile(r"\x1b\[(?:3|9)\d")
    forced = CliRunner(env={"COLUMNS": "80", "FORCE_COLOR": "1"}).invoke(
        cli, ["report", str(recorded)]
    )
    assert colour.search(forced.output)
    plain = CliRunner(env={"COLUMNS": "80", "FORCE_COLOR": "1", "NO_COLOR": "1"}).invoke(
        cli, ["report", str(recorded)]
    )
    assert plain.exit_code == 0 and not colour.search(plain.output)


def test_export_files_get_normal_permissions_and_write_errors_are_reported(
    runner: CliRunner, recorded: Path, tmp_path: Path
) -> None:
    target = tmp_path / "runs.md"
    assert (
        runner.invoke(
            cli, ["export", str(recorded), "--format", "markdown", "--path", str(target)]
        ).exit_code
        == 0
    )
    assert target.stat().st_mode & 0o044 == 0o044
    (tmp_path / "blocker").write_text("a file, not a directory")
    failed = runner.invoke(
        cli,
        ["export", str(recorded), "--format", "csv", "--path", str(tmp_path / "blocker" / "x.csv")],
    )
    assert (
        failed.exit_code == 1
        and "Export failed" in failed.output
        and "Traceback" not in failed.output
    )


def test_fail_on_refuses_an_empty_list(runner: CliRunner, recorded: Path) -> None:
    assert runner.invoke(cli, ["report", str(recorded), "--fail-on", ""]).exit_code == 2
    assert runner.invoke(cli, ["report", str(recorded), "--fail-on", "FAILED"]).exit_code == 3


def test_the_csv_preview_counts_every_row_and_shows_the_first() -> None:
    from rich.console import Console

    from autobench.cli._export import _csv_preview

    lines = ["case,variant,status,quality.score"]
    lines += [f'case-{n},a,failed,"line one\nline two {n}"' for n in range(20)]
    console = Console(width=120, record=True)
    console.print(_csv_preview(io.StringIO("\n".join(lines) + "\n")))
    shown = console.export_text()
    assert "20 rows, 4 columns in the file; showing 8 rows and 4 columns" in shown
    assert "case-7" in shown and "case-8" not in shown
