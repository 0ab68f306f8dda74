"""Executors chosen by name, and plugins passed as an object instead of reached as a global.

A third-party-style executor (``recording``: the local executor, wrapped, noting each use)
arrives through a plugin registered in code on the test's own :class:`AutobenchPlugins`;
the spec, the builder and ``run_benchmark_spec`` select it by name.
"""

from __future__ import annotations

import asyncio
import copy
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.builder import Benchmark
from autobench.core.planning import MatrixRunSpec
from autobench.core.plugins import (
    AutobenchPlugins,
    Executor,
    UnknownExecutorError,
    default_plugins,
    hookimpl,
)
from autobench.core.runtime import run_benchmark_spec
from autobench.core.runtime._executor import MatrixExecutor, local_executor
from autobench.core.runtime._progress import ProgressCallback
from autobench.core.runtime._run import RunSetup
from autobench.core.spec import (
    SpecError,
    dump_benchmark_spec,
    load_benchmark_spec,
    load_benchmark_spec_text,
)
from autobench.core.spec._models import ExecutorSpec
from autobench.records import ExperimentSink, RecordDirectoryWriter, replay_experiment


class RecordingExecutors:
    """A plugin adding executor ``recording``: the local executor, noting the runs it was
    given and the options written beside its name."""

    def __init__(self) -> None:
        self.used: list[tuple[tuple[str, ...], dict[str, Any]]] = []

    @hookimpl
    def autobench_executors(self) -> Mapping[str, Callable[..., Executor]]:
        return {"recording": self.build}

    def build(
        self,
        setup: RunSetup,
        runs: Sequence[MatrixRunSpec],
        *,
        concurrency_limit: int,
        sink: ExperimentSink | None,
        progress: ProgressCallback | None,
        options: Mapping[str, Any],
    ) -> Executor:
        self.used.append((tuple(run.run_id for run in runs), dict(options)))
        executor = local_executor(
            setup,
            runs,
            concurrency_limit=concurrency_limit,
            sink=sink,
            progress=progress,
            options={},
        )
        assert isinstance(executor, MatrixExecutor) and isinstance(executor, Executor)
        return executor


TASK = """
def run_case(ctx, case):
    return {"value": case.input["x"] * ctx.factor("factor")}
"""


def spec_text(executor: str | None) -> str:
    body = """
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
    text = textwrap.dedent(body)
    return text if executor is None else text + f"    executor: {executor}\n"


def write_spec(directory: Path, executor: str | None) -> Path:
    (directory / "executor_task.py").write_text(TASK)
    path = directory / "autobench.yaml"
    path.write_text(spec_text(executor))
    return path


def test_a_spec_file_names_the_local_executor(tmp_path: Path) -> None:
    path = write_spec(tmp_path, "local")
    spec = load_benchmark_spec(path)
    assert spec.executor is not None and (spec.executor.name, spec.executor.options) == (
        "local",
        {},
    )
    result = asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(tmp_path / "rec")))
    assert [run.output for run in result.runs] == [{"value": 2}, {"value": 4}]
    recorded = replay_experiment(tmp_path / "rec")
    assert recorded.experiment.benchmark.spec is not None
    assert recorded.experiment.benchmark.spec.snapshot["executor"] == {"name": "local"}
    # written back in the DSL and read again: the same executor
    again = load_benchmark_spec_text(dump_benchmark_spec(spec), path=tmp_path / "again.yaml")
    assert again.executor == spec.executor


def test_a_spec_without_an_executor_keeps_its_hash_shape(tmp_path: Path) -> None:
    spec = load_benchmark_spec(write_spec(tmp_path, None))
    assert spec.executor is None
    assert "executor" not in spec.model_dump()


@pytest.mark.parametrize(
    ("executor", "where", "message"),
    [
        (
            "lcoal",
            "12:15",
            "unknown executor 'lcoal' (did you mean 'local'?) (expected one of: local, ray)",
        ),
        (
            "{name: dask, address: auto}",
            "12:22",
            "unknown executor 'dask' (expected one of: local, ray)",
        ),
        (
            "{address: auto}",
            "12:15",
            "executor needs a 'name' (expected executor: <name> or executor: "
            "{name: <name>, <option>: <value>, ...})",
        ),
        ("[local]", "12:15", "executor must be a name or a mapping, not a list"),
    ],
)
def test_an_unknown_executor_is_a_located_spec_error(
    tmp_path: Path, executor: str, where: str, message: str
) -> None:
    path = write_spec(tmp_path, executor)
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(path)
    assert str(caught.value).startswith(f"{path}:{where}: {message}")


def test_the_structured_form_takes_the_executor_at_the_top(tmp_path: Path) -> None:
    text = "benchmark: {id: s}\nexecutor: {name: lcal}\n"
    with pytest.raises(SpecError, match=r"autobench.yaml:2:18: unknown executor 'lcal'"):
        load_benchmark_spec_text(text, path=tmp_path / "autobench.yaml")
    spec = load_benchmark_spec_text("benchmark: {id: s}\nexecutor: local\n")
    assert spec.executor is not None and spec.executor.name == "local"


def test_a_plugin_executor_is_chosen_by_name_from_the_spec(tmp_path: Path) -> None:
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    path = write_spec(tmp_path, "{name: recording, label: nightly}")
    spec = load_benchmark_spec(path, plugins=plugins)
    assert spec.plugins is plugins
    result = asyncio.run(run_benchmark_spec(spec))
    assert [run.output for run in result.runs] == [{"value": 2}, {"value": 4}]
    assert plugin.used == [
        (tuple(run.run_id for run in result.runs), {"label": "nightly"}),
    ]
    # the process-wide plugins know no such executor
    with pytest.raises(SpecError, match="unknown executor 'recording'"):
        load_benchmark_spec(path)


def test_the_caller_names_the_executor_over_the_spec(tmp_path: Path) -> None:
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    spec = load_benchmark_spec(write_spec(tmp_path, "local"), plugins=plugins)
    asyncio.run(run_benchmark_spec(spec, executor="recording"))
    assert len(plugin.used) == 1 and plugin.used[0][1] == {}  # local's options are not its
    with pytest.raises(
        UnknownExecutorError, match="unknown executor 'nope'; known executors: local, recording"
    ):
        asyncio.run(run_benchmark_spec(spec, executor="nope"))


def test_the_local_executor_takes_no_options(tmp_path: Path) -> None:
    spec = load_benchmark_spec(write_spec(tmp_path, "{name: local, workers: 4}"))
    assert spec.executor is not None and spec.executor.options == {"workers": 4}
    record = tmp_path / "record"
    with pytest.raises(ValueError, match="the local executor takes no options, got: workers"):
        asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(record)))
    assert not record.exists()  # refused before the sink started: no empty experiment


def test_the_builder_names_an_executor(tmp_path: Path) -> None:
    (tmp_path / "executor_task.py").write_text(TASK)
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    builder = (
        Benchmark("built", plugins=plugins)
        .dataset([{"id": "one", "input": {"x": 3}}])
        .variants([{"id": "v", "factors": {"factor": 2}}])
        .task("executor_task:run_case")
        .base_dir(tmp_path)
    )
    result = builder.executor("recording", label="ci").run()
    assert [run.output for run in result.runs] == [{"value": 6}]
    assert plugin.used[0][1] == {"label": "ci"}
    assert builder.executor("local").to_spec().executor == ExecutorSpec(name="local")
    assert builder.to_spec().executor is None
    with pytest.raises(UnknownExecutorError, match="known executors: local, recording"):
        builder.executor("ray")
    with pytest.raises(UnknownExecutorError, match=r"known executors: local, ray$"):
        Benchmark("built").executor("recording")


def test_the_builtin_plugins_offer_the_local_executor(tmp_path: Path) -> None:
    plugins = AutobenchPlugins(load_entry_points=False)
    assert plugins.executors.names() == ("local",)
    assert plugins.executors.get("local") is local_executor
    spec = load_benchmark_spec(write_spec(tmp_path, None), plugins=plugins)
    assert spec.plugins is plugins


def test_two_plugins_claiming_one_executor_name_are_refused() -> None:
    class Clash:
        @hookimpl
        def autobench_executors(self) -> Mapping[str, Callable[..., Executor]]:
            return {"local": RecordingExecutors().build}

    plugins = AutobenchPlugins(Clash(), load_entry_points=False)
    with pytest.raises(ValueError, match="executor 'local' is registered twice"):
        plugins.executors  # noqa: B018


SCRIPT = """
import asyncio, sys
from typing import ClassVar, Literal

from autobench.core import plugins as plugin_module
from autobench.core.plugins import AutobenchPlugins, hookimpl
from autobench.core.runtime import run_benchmark_spec
from autobench.core.runtime._executor import local_executor
from autobench.core.scoring import ScorerSpec
from autobench.core.spec import SpecError, load_benchmark_spec


class LengthScorer(ScorerSpec):
    keyword: ClassVar[str] = "length"
    kind: Literal["length"] = "length"
    path: str

    async def score(self, call):
        return len(call.resolve(self.path))


class Plugin:
    used = 0

    @hookimpl
    def autobench_scorers(self):
        return [LengthScorer]

    @hookimpl
    def autobench_executors(self):
        return {"counting": self.build}

    def build(self, setup, runs, **options):
        Plugin.used += 1
        return local_executor(setup, runs, **options)


plugins = AutobenchPlugins(Plugin(), load_entry_points=False)
spec = load_benchmark_spec(sys.argv[1], plugins=plugins)
result = asyncio.run(run_benchmark_spec(spec))
print([score.value for run in result.runs for score in run.scores], Plugin.used)
print(plugin_module.plugin_manager.cache_info().currsize, plugin_module.default_plugins.cache_info().currsize)
try:
    load_benchmark_spec(sys.argv[1])
except SpecError as error:
    print(error.message)
print(plugin_module.plugin_manager.cache_info().currsize)
"""


def test_an_own_manager_loads_and_runs_a_spec_without_building_the_default(
    tmp_path: Path,
) -> None:
    # In a fresh interpreter: the process-wide manager (and its entry points) is never built
    # while a spec is loaded and run with the caller's plugins; a spec loaded without them
    # does not know the plugin's scorer keyword.
    (tmp_path / "executor_task.py").write_text(TASK)
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        spec_text("counting").replace("value: {value: output.value}", "size: {length: case.id}")
    )
    script = tmp_path / "own_manager.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(spec)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[3, 3] 1",
        "0 0",
        "scorer 'size' has no scoring action",
        "1",
    ]


def test_a_spec_keeps_its_plugins_without_making_them_content(tmp_path: Path) -> None:
    plugins = AutobenchPlugins(RecordingExecutors(), load_entry_points=False)
    path = write_spec(tmp_path, None)
    spec = load_benchmark_spec(path, plugins=plugins)
    assert spec == load_benchmark_spec(path)  # equal content, other plugins
    assert spec.model_copy(update={"strict_scalars": True}).plugins is plugins
    assert copy.deepcopy(spec).plugins is plugins
    assert pickle.loads(pickle.dumps(spec)).plugins is default_plugins()


# The command line: `autobench run --executor NAME`, with plugins given as the click object.


def test_the_spec_names_a_plugin_executor(tmp_path: Path) -> None:
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    spec = write_spec(tmp_path, "{name: recording, label: cli}")
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--no-record", "--no-progress"], obj=plugins
    )
    assert result.exit_code == 0, result.output
    assert [options for _, options in plugin.used] == [{"label": "cli"}]
    assert "executors-demo" in result.output


def test_executor_option_overrides_the_spec(tmp_path: Path) -> None:
    plugin = RecordingExecutors()
    plugins = AutobenchPlugins(plugin, load_entry_points=False)
    spec = write_spec(tmp_path, "local")
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli,
        ["run", str(spec), "--executor", "recording", "--record", str(tmp_path / "rec")],
        obj=plugins,
    )
    assert result.exit_code == 0, result.output
    assert len(plugin.used) == 1 and len(plugin.used[0][0]) == 2
    assert (tmp_path / "rec" / "summary.yaml").is_file()


def test_an_unknown_executor_option_is_a_usage_error(tmp_path: Path) -> None:
    plugins = AutobenchPlugins(RecordingExecutors(), load_entry_points=False)
    spec = write_spec(tmp_path, None)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--executor", "ray", "--no-record"], obj=plugins
    )
    assert result.exit_code == 2
    assert "Invalid value for '--executor': unknown executor 'ray'; known executors: " in (
        result.output
    )
    assert "local, recording" in result.output
    # without the test's plugins, the process-wide ones know only the built-in executor
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--executor", "recording", "--no-record"]
    )
    assert result.exit_code == 2
    assert "known executors: local" in result.output


def test_an_unknown_executor_in_the_spec_is_located(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "recording")
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--no-record", "--no-progress"]
    )
    assert result.exit_code == 1
    flat = " ".join(result.output.split())
    assert "Invalid benchmark spec" in flat
    assert "autobench.yaml:12:15: unknown executor 'recording'" in flat
    assert "(expected one of: local, ray)" in flat
