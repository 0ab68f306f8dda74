"""Task resolution relative to the spec's base_dir, and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.core.runtime import TaskResolutionError
from autobench.core.runtime._tasks import resolve_task


def test_module_function_resolves_under_base_dir(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def run_case(ctx, case):\n    return 'here'\n")
    assert run(make_spec(tmp_path, f"{module}:run_case")).runs[0].output == "here"


def test_package_module_and_attribute_path(tmp_path: Path) -> None:
    package = tmp_path / "rt_pkg_attr"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tasks.py").write_text(
        "class Runner:\n    @staticmethod\n    def run_case(ctx, case):\n        return 'nested'\n"
    )
    assert run(make_spec(tmp_path, "rt_pkg_attr.tasks:Runner.run_case")).runs[0].output == "nested"


def test_same_module_name_in_two_benchmark_dirs(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    for directory, answer in ((first, "one"), (second, "two")):
        directory.mkdir()
        write_task_module(
            directory, f"def run_case(ctx, case):\n    return {answer!r}\n", name="rt_shared_tasks"
        )
    assert run(make_spec(first, "rt_shared_tasks:run_case")).runs[0].output == "one"
    assert run(make_spec(second, "rt_shared_tasks:run_case")).runs[0].output == "two"


def test_falls_back_to_normal_imports(tmp_path: Path) -> None:
    assert resolve_task(make_spec(tmp_path, "operator:add")).__name__ == "add"


def test_missing_module_names_target_directory_and_cause(tmp_path: Path) -> None:
    sink = CollectingSink()
    with pytest.raises(TaskResolutionError) as info:
        run(make_spec(tmp_path, "rt_no_such_module:run_case"), sink=sink)
    message = str(info.value)
    assert "rt_no_such_module:run_case" in message and str(tmp_path) in message
    assert "ModuleNotFoundError" in message
    assert isinstance(info.value.__cause__, ImportError)
    assert sink.calls == []


def test_missing_attribute(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def other(ctx, case):\n    return 1\n")
    with pytest.raises(TaskResolutionError, match="has no attribute 'run_case'") as info:
        resolve_task(make_spec(tmp_path, f"{module}:run_case"))
    assert isinstance(info.value.__cause__, AttributeError)


def test_not_callable(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "run_case = 42\n")
    with pytest.raises(TaskResolutionError, match="not callable"):
        resolve_task(make_spec(tmp_path, f"{module}:run_case"))


def test_module_that_fails_on_import(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "import rt_missing_dependency\n")
    with pytest.raises(TaskResolutionError, match="rt_missing_dependency"):
        resolve_task(make_spec(tmp_path, f"{module}:run_case"))


def test_spec_without_task(tmp_path: Path) -> None:
    with pytest.raises(TaskResolutionError, match="no task"):
        run(make_spec(tmp_path, None))


def test_async_callable_object_is_awaited(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        class Task:
            async def __call__(self, ctx, case):
                return "async object"

        task = Task()
        """,
    )
    assert run(make_spec(tmp_path, f"{module}:task")).runs[0].output == "async object"


def test_a_task_calling_sys_exit_gives_an_errored_run_and_the_others_go_on(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        import sys

        def run(ctx, case):
            ctx.metric("before", 1)
            if case.id == "quits":
                sys.exit(3)
            return {"ok": True}
        """,
    )
    spec = make_spec(tmp_path, f"{module}:run", cases=[{"id": "quits"}, {"id": "stays"}])
    result = run(spec)
    quits, stays = result.runs
    assert quits.status.value == "errored" and stays.status.value == "passed"
    assert quits.errors[0].type == "SystemExit" and quits.errors[0].message == "3"
    assert [observation.name for observation in quits.observations] == ["before"]
