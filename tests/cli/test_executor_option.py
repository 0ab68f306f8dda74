"""``autobench run --executor NAME``, and plugins handed to the command as its click object."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.plugins import AutobenchPlugins, Executor, hookimpl
from autobench.core.runtime._executor import local_executor


class RecordingExecutors:
    """A third-party-style plugin: executor ``recording`` is the local one, noting the runs
    and options it was given."""

    def __init__(self) -> None:
        self.used: list[tuple[tuple[str, ...], dict[str, Any]]] = []

    @hookimpl
    def autobench_executors(self) -> Mapping[str, Callable[..., Executor]]:
        return {"recording": self.build}

    def build(self, setup: Any, runs: Any, *, options: Mapping[str, Any], **rest: Any) -> Executor:
        self.used.append((tuple(run.run_id for run in runs), dict(options)))
        return local_executor(setup, runs, options={}, **rest)


def write_spec(directory: Path, executor: str | None) -> Path:
    (directory / "executor_task.py").write_text(
        "def run_case(ctx, case):\n    return {'value': case.input['x'] * ctx.factor('factor')}\n"
    )
    text = textwrap.dedent(
        """
        benchmark:
          executors-demo:
            cases:
              - {id: one, input: {x: 1}}
              - {id: two, input: {x: 2}}
            run: {python: executor_task:run_case}
            variants:
              double: {factors: {factor: 2}}
            score:
              value: {value: output.value}
        """
    )
    path = directory / "autobench.yaml"
    path.write_text(text if executor is None else text + f"    executor: {executor}\n")
    return path


def test_the_spec_names_a_plugin_executor(runner: CliRunner, tmp_path: Path) -> None:
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    spec = write_spec(tmp_path, "{name: recording, label: cli}")
    result = runner.invoke(cli, ["run", str(spec), "--no-record", "--no-progress"], obj=plugins)
    assert result.exit_code == 0, result.output
    assert [options for _, options in plugin.used] == [{"label": "cli"}]
    assert "executors-demo" in result.output


def test_executor_option_overrides_the_spec(runner: CliRunner, tmp_path: Path) -> None:
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    spec = write_spec(tmp_path, "local")
    result = runner.invoke(
        cli,
        ["run", str(spec), "--executor", "recording", "--record", str(tmp_path / "rec")],
        obj=plugins,
    )
    assert result.exit_code == 0, result.output
    assert len(plugin.used) == 1 and len(plugin.used[0][0]) == 2
    assert (tmp_path / "rec" / "summary.yaml").is_file()


def test_an_unknown_executor_option_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    plugins = AutobenchPlugins(RecordingExecutors(), load_entry_points=False)
    spec = write_spec(tmp_path, None)
    result = runner.invoke(cli, ["run", str(spec), "--executor", "ray", "--no-record"], obj=plugins)
    assert result.exit_code == 2
    assert "Invalid value for '--executor': unknown executor 'ray'; known executors: " in (
        result.output
    )
    assert "local, recording" in result.output
    # without the test's plugins, the process-wide ones know only the built-in executor
    result = runner.invoke(cli, ["run", str(spec), "--executor", "recording", "--no-record"])
    assert result.exit_code == 2
    assert "known executors: local" in result.output


def test_an_unknown_executor_in_the_spec_is_located(runner: CliRunner, tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "recording")
    result = runner.invoke(cli, ["run", str(spec), "--no-record", "--no-progress"])
    assert result.exit_code == 1
    flat = " ".join(result.output.split())
    assert "Invalid benchmark spec" in flat
    assert "autobench.yaml:12:15: unknown executor 'recording'" in flat
    assert "(expected one of: local)" in flat
