"""``autobench schema`` writes the editor schemas (the real command, through click)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.schemas import editor_schemas, schema_text, schema_version

NAMES = ("benchmark_schema.json", "dataset_schema.json", "pricing_schema.json")


def test_schema_writes_into_dir(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "out" / "nested"
    result = runner.invoke(cli, ["schema", "--dir", str(target)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in target.iterdir()) == list(NAMES)  # no temporary file left
    expected = editor_schemas()
    for name in NAMES:
        assert (target / name).read_text(encoding="utf-8") == schema_text(expected[name])
        assert name in result.output
    assert "# yaml-language-server: $schema=" in result.output


def test_schema_replaces_a_stale_file(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "benchmark_schema.json").write_text("{}")
    result = runner.invoke(cli, ["schema", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "benchmark_schema.json").read_text())["title"]


def test_schema_defaults_to_the_checkout_root(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    inner = tmp_path / "benchmarks" / "support"
    inner.mkdir(parents=True)
    monkeypatch.chdir(inner)
    result = runner.invoke(cli, ["schema"])
    assert result.exit_code == 0, result.output
    written = tmp_path / "schemas" / schema_version()
    assert sorted(p.name for p in written.iterdir()) == list(NAMES)
    header = f"$schema=../../schemas/{schema_version()}/benchmark_schema.json"
    assert header in result.output


def test_schema_outside_a_checkout_writes_under_the_current_directory(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if any((parent / ".git").exists() for parent in tmp_path.parents):
        pytest.skip("the temporary directory lies inside a git checkout")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["schema"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "schemas" / schema_version() / "benchmark_schema.json").is_file()


def test_schema_reports_an_unwritable_directory(runner: CliRunner, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = runner.invoke(cli, ["schema", "--dir", str(blocker / "schemas")])
    assert result.exit_code == 1
    assert "cannot write the schemas into" in result.output
    assert "Traceback" not in result.output


def test_schema_help_explains_the_header(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["schema", "--help"])
    assert result.exit_code == 0
    assert "--dir" in result.output
    assert "# yaml-language-server: $schema=" in result.output
    top = runner.invoke(cli, ["--help"])
    assert "schema" in top.output


def test_with_plugins_the_installed_judge_kind_is_in_the_schema(
    runner: CliRunner, tmp_path: Path
) -> None:
    """The built-in schema has no ``judge`` kind (it comes from autobench-judge);
    ``--with-plugins`` writes the installed plugins' kinds, the judge's among them."""
    plain, with_plugins = tmp_path / "plain", tmp_path / "plugins"
    assert runner.invoke(cli, ["schema", "--dir", str(plain)]).exit_code == 0
    done = runner.invoke(cli, ["schema", "--dir", str(with_plugins), "--with-plugins"])
    assert done.exit_code == 0, done.output
    assert '"judge"' not in (plain / "benchmark_schema.json").read_text()
    assert '"judge"' in (with_plugins / "benchmark_schema.json").read_text()
