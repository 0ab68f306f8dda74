from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli


def test_version_names_every_distribution(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0
    for name in (
        "autobench-abp",
        "autobench-records",
        "autobench-core",
        "autobench-report",
        "autobench-cli",
    ):
        assert f"{name} 0.1.0" in result.output


def test_validate_shows_counts_and_never_runs_the_task(runner: CliRunner, spec_dir: Path) -> None:
    (spec_dir / "cli_task.py").write_text(
        "def run_case(ctx, case):\n    raise SystemExit('ran!')\n"
    )
    result = runner.invoke(cli, ["validate", str(spec_dir / "autobench.yaml")])
    assert result.exit_code == 0, result.output
    assert "cli-demo" in result.output
    assert "planned runs  4" in result.output
    # --no-import does not even import the task's module
    (spec_dir / "cli_task.py").write_text("raise SystemExit('imported!')\n")
    result = runner.invoke(cli, ["validate", "--no-import", str(spec_dir / "autobench.yaml")])
    assert result.exit_code == 0, result.output
    assert "planned runs  4" in result.output


def test_run_records_and_replay_reads_back(runner: CliRunner, spec_dir: Path) -> None:
    record = spec_dir / "runs" / "first"
    result = runner.invoke(
        cli, ["run", str(spec_dir / "autobench.yaml"), "--record", str(record), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert (record / "experiment.yaml").is_file() and (record / "summary.yaml").is_file()
    assert len(list(record.glob("cases/*/*/run.yaml"))) == 4
    assert "passed 2" in result.output and "failed 2" in result.output
    (spec_dir / "cli_task.py").unlink()
    replay = runner.invoke(cli, ["replay", str(record)])
    assert replay.exit_code == 0, replay.output
    assert "4 of 4 planned" in replay.output


def test_default_record_location_and_no_record(
    runner: CliRunner, spec_dir: Path, monkeypatch: object
) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.chdir(spec_dir)
    result = runner.invoke(cli, ["run", "autobench.yaml", "--no-record", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert not (spec_dir / ".autobench").exists()
    result = runner.invoke(
        cli, ["run", "autobench.yaml", "--no-progress", "--experiment-id", "exp_fixed"]
    )
    assert result.exit_code == 0, result.output
    assert (spec_dir / ".autobench" / "cli-demo" / "exp_fixed" / "experiment.yaml").is_file()


def test_existing_experiment_directory_is_never_overwritten(
    runner: CliRunner, spec_dir: Path
) -> None:
    record = spec_dir / "runs"
    args = ["run", str(spec_dir / "autobench.yaml"), "--record", str(record), "--no-progress"]
    assert runner.invoke(cli, args).exit_code == 0
    before = (record / "experiment.yaml").read_bytes()
    again = runner.invoke(cli, args)
    assert again.exit_code == 1
    assert str(record) in again.output
    assert (record / "experiment.yaml").read_bytes() == before


def test_invalid_yaml_names_file_line_and_column(runner: CliRunner, spec_dir: Path) -> None:
    spec = spec_dir / "autobench.yaml"
    spec.write_text(spec.read_text().replace("description: Multiply", "descripton: Multiply"))
    result = runner.invoke(cli, ["run", str(spec), "--no-record"])
    assert result.exit_code == 1
    assert "autobench.yaml:4:5" in result.output
    assert "descripton" in result.output


def test_unresolved_task_fails_before_any_run(runner: CliRunner, spec_dir: Path) -> None:
    spec = spec_dir / "autobench.yaml"
    spec.write_text(spec.read_text().replace("cli_task:run_case", "missing_module:run_case"))
    result = runner.invoke(
        cli, ["run", str(spec), "--record", str(spec_dir / "rec"), "--no-progress"]
    )
    assert result.exit_code == 1
    assert "missing_module" in result.output
    assert not (spec_dir / "rec" / "cases").exists()


def test_missing_records_exit_non_zero(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["replay", str(tmp_path / "nothing-here")])
    assert result.exit_code == 1
    assert "nothing-here" in result.output


def test_a_task_module_that_fails_to_import_shows_where(runner: CliRunner, spec_dir: Path) -> None:
    (spec_dir / "cli_task.py").write_text("import a_dependency_that_is_missing\n")
    result = runner.invoke(cli, ["run", str(spec_dir / "autobench.yaml"), "--no-record"])
    assert result.exit_code == 1
    assert "Task module failed to import" in result.output
    assert "autobench.yaml:10:15: cannot import module 'cli_task'" in result.output
    assert 'cli_task.py", line 1, in <module>' in result.output
    assert "importlib" not in result.output
