"""Every declared hook is implemented by Autobench's own plugins, and what they return
reaches the registry built from that hook."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path

import pytest

from autobench.core import _builtin_plugin
from autobench.core.native import IntegrationEntry
from autobench.core.plugins import AutobenchPlugins, AutobenchSpecs
from autobench.index import _plugin as index_plugin
from autobench.instrument.httpx import _plugin as httpx_plugin
from autobench.instrument.httpx._cassette import _installed as cassette_patches
from autobench.instrument.httpx._cassette import uninstall_cassettes
from autobench.records import ExperimentRecord
from autobench.report import _plugin as report_plugin
from autobench.report._exporters import ExporterRegistry

HOOKS = sorted(name for name in vars(AutobenchSpecs) if name.startswith("autobench_"))


OWNERS = {
    "autobench_exporters": report_plugin,
    "autobench_cassette_transports": httpx_plugin,
    "autobench_indexed_result": index_plugin,
    "autobench_record_listener": index_plugin,
}
"""The distribution implementing a hook, when it is not the core's built-ins."""


ARGUMENTS: dict[str, dict[str, object]] = {
    "autobench_indexed_result": {"record_dir": Path(__file__).parent},
    # A new recording's listener reads nothing before its first runs are durable; of the
    # experiment it reads only how many runs are planned (a worker process for many).
    "autobench_record_listener": {
        "record_dir": Path(__file__).parent,
        "experiment": ExperimentRecord.model_construct(plan=()),
        "resumed": False,
    },
}
"""The arguments of the hooks that take some (the others are called with none)."""


def _plugins(hook: str) -> AutobenchPlugins:
    """Autobench's own plugins only: the core's built-ins, and the distribution that owns
    ``hook`` (autobench-report's formats by default)."""
    return AutobenchPlugins(OWNERS.get(hook, report_plugin), load_entry_points=False)


def _installed(installers: list[Callable[[], object]]) -> bool:
    """Whether every installer patches a client; what this test installed is restored (an
    earlier test's cassette runs installed them for the whole process: they stay)."""
    before = bool(cassette_patches)
    try:
        return all(install() for install in installers) and bool(cassette_patches)
    finally:
        if not before:
            uninstall_cassettes()


def _reached(plugins: AutobenchPlugins, hook: str, contributed: object) -> bool:
    """Whether ``contributed`` (the built-in result of ``hook``) is in its registry."""
    checks: dict[str, Callable[[], bool]] = {
        "autobench_scorers": lambda: set(contributed) <= set(plugins.scorers.by_kind.values()),
        "autobench_derivers": lambda: set(contributed) <= set(plugins.derivers.by_kind.values()),
        "autobench_post_derivers": lambda: (
            set(contributed) <= set(plugins.post_derivers.by_kind.values())
        ),
        "autobench_trace_extractors": lambda: (
            {type(item) for item in plugins.trace_extractors.by_name.values()} >= set(contributed)
        ),
        "autobench_metric_packs": lambda: all(
            plugins.metric_packs.require(pack.name) == pack for pack in contributed
        ),
        "autobench_semantic_types": lambda: all(
            plugins.semantic_registry.types[name] == definition
            for name, definition in contributed.items()
        ),
        "autobench_executors": lambda: all(
            plugins.executors.get(name) is factory for name, factory in contributed.items()
        ),
        "autobench_instrumentors": lambda: all(
            {entry.id: entry for entry in plugins.integrations}[fields["id"]]
            == IntegrationEntry(**fields)
            for fields in contributed
        ),
        "autobench_cassette_transports": lambda: _installed(contributed),  # type: ignore[arg-type]
        "autobench_exporters": lambda: all(
            ExporterRegistry.from_manager(plugins.manager).get(exporter.name) is not None
            for exporter in contributed
        ),
        # A directory without an index: the hook answers None, and the command replays.
        "autobench_indexed_result": lambda: (
            plugins.manager.hook.autobench_indexed_result(**ARGUMENTS[hook]) is contributed
        ),
        # The listener that writes the columnar index as a recording's runs land.
        "autobench_record_listener": lambda: (
            [
                type(listener)
                for listener in plugins.manager.hook.autobench_record_listener(**ARGUMENTS[hook])
            ]
            == [type(contributed)]
            and callable(getattr(contributed, "runs_durable", None))
            and callable(getattr(contributed, "finished", None))
        ),
    }
    assert set(checks) == set(HOOKS), "a hook without a check: add one"
    return checks[hook]()


def test_every_hookspec_is_documented_and_typed() -> None:
    for name in HOOKS:
        function = getattr(AutobenchSpecs, name)
        assert inspect.getdoc(function), name
        returns = inspect.signature(function).return_annotation
        assert "Any" not in str(returns), f"{name} returns {returns}"


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_implemented_by_autobench_and_reaches_its_registry(hook: str) -> None:
    plugins = _plugins(hook)
    owner = OWNERS.get(hook, _builtin_plugin)
    implemented = {
        plugins.manager.get_name(impl.plugin): impl.function(**ARGUMENTS.get(hook, {}))
        for impl in getattr(plugins.manager.hook, hook).get_hookimpls()
    }
    assert set(implemented) == {plugins.manager.get_name(owner)}
    contributed = next(iter(implemented.values()))
    assert contributed or hook in ARGUMENTS, f"{hook} contributes nothing"
    assert _reached(plugins, hook, contributed)


def test_the_core_builtins_implement_every_hook_but_the_report_formats_and_cassettes() -> None:
    plugins = AutobenchPlugins(load_entry_points=False)
    implemented = {name for name in HOOKS if getattr(plugins.manager.hook, name).get_hookimpls()}
    assert implemented == set(HOOKS) - set(OWNERS)
