"""Metric packs: built-ins, the registry, the plugin hooks and the registry specs use."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import types
from pathlib import Path

import pytest

from autobench import DEFAULT_METRIC_PACKS, MetricPack, MetricPackRegistry
from autobench import builtin_metric_pack_registry as facade_builtin
from autobench.core.packs import builtin_metric_pack_registry
from autobench.core.plugins import (
    hookimpl,
    metric_pack_registry,
    metric_packs_from_manager,
    new_plugin_manager,
    scorer_registry,
    semantic_registry,
    semantic_registry_from_manager,
    trace_extractor_registry,
)
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    EvaluationStatus,
    Semantic,
    SemanticDefinition,
)

BUILTIN_NAMES = ("agentic", "structured_output", "llm_usage", "performance")


def test_builtin_packs_are_drawn_from_the_catalog() -> None:
    assert DEFAULT_METRIC_PACKS.names() == BUILTIN_NAMES
    assert facade_builtin is builtin_metric_pack_registry
    for pack in DEFAULT_METRIC_PACKS:
        assert pack.semantic_types, pack.name
        for name, definition in pack.semantic_types.items():
            assert DEFAULT_SEMANTIC_REGISTRY.types[name] == definition
        for metric in pack.default_report_metrics:
            assert metric in DEFAULT_SEMANTIC_REGISTRY
        for kind in pack.scorer_factories:
            assert kind in scorer_registry().by_kind
        for extractor in pack.feedback_extractors:
            trace_extractor_registry().get(extractor)
    agentic = DEFAULT_METRIC_PACKS.require("agentic")
    assert agentic.scorer_factories == ("expected_action",)
    assert Semantic.AGENT_TOOL_SELECTION_CORRECTNESS in agentic.default_report_metrics


def test_registry_register_require_and_merge() -> None:
    registry = builtin_metric_pack_registry()
    assert registry is not builtin_metric_pack_registry()
    custom = MetricPack(
        name="support",
        semantic_types={"support.csat": SemanticDefinition(parent="quality.score")},
        aliases={"csat": "support.csat"},
    )
    registry.register(custom)
    registry.register(custom)  # the same pack again is a no-op
    assert registry.names() == (*BUILTIN_NAMES, "support")
    assert "support" not in DEFAULT_METRIC_PACKS
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(MetricPack(name="support", description="other"))
    with pytest.raises(KeyError, match="unknown metric pack 'nope'; known: agentic"):
        registry.require("nope")
    merged = registry.semantic_registry_for(["agentic", "support"])
    assert merged.is_a("csat", "quality.score")
    assert merged.is_a(Semantic.AGENT_TOOL_SELECTION_CORRECTNESS, "quality.correctness")
    assert custom.semantic_registry().types == custom.semantic_types
    clash = MetricPackRegistry(
        [
            MetricPack(name="a", semantic_types={"x.y": SemanticDefinition(unit="s")}),
            MetricPack(name="b", semantic_types={"x.y": SemanticDefinition(unit="ms")}),
        ]
    )
    with pytest.raises(ValueError, match=r"'x\.y' is defined differently by 'a' and 'b'"):
        clash.semantic_registry_for()
    with pytest.raises(ValueError):
        MetricPack(name="Bad Name")


def test_in_process_plugin_contributes_packs_and_types() -> None:
    plugin = types.ModuleType("acme_packs")

    @hookimpl
    def autobench_metric_packs() -> list[object]:
        return [{"name": "acme", "semantic_types": {"acme.wins": {"parent": "result.success"}}}]

    @hookimpl
    def autobench_semantic_types() -> dict[str, object]:
        return {"acme.losses": {"unit": "games", "shape": "integer"}}

    plugin.autobench_metric_packs = autobench_metric_packs  # type: ignore[attr-defined]
    plugin.autobench_semantic_types = autobench_semantic_types  # type: ignore[attr-defined]
    manager = new_plugin_manager(load_entry_points=False)
    manager.register(plugin)
    assert metric_packs_from_manager(manager).names() == (*BUILTIN_NAMES, "acme")
    registry = semantic_registry_from_manager(manager)
    assert registry.is_a("acme.wins", "result.success")
    assert registry.unit_of("acme.losses") == "games"


def test_a_plugin_may_not_redefine_a_builtin_type() -> None:
    plugin = types.ModuleType("bad_types")

    @hookimpl
    def autobench_semantic_types() -> dict[str, object]:
        return {"time.latency": {"unit": "ms"}}

    plugin.autobench_semantic_types = autobench_semantic_types  # type: ignore[attr-defined]
    manager = new_plugin_manager(load_entry_points=False)
    manager.register(plugin)
    with pytest.raises(ValueError, match=r"'time\.latency' is defined differently"):
        semantic_registry_from_manager(manager)


def test_installed_test_pack_is_loaded_through_the_entry_point() -> None:
    assert "support" in metric_pack_registry()
    pack = metric_pack_registry().require("support")
    assert pack.default_report_metrics == ("support.resolution.rate", "time.latency")
    registry = semantic_registry()
    assert registry.ancestors("support.resolution.rate") == (
        "support.resolution.rate",
        "quality.score",
    )
    assert registry.unit_of("support.escalation.count") == "tickets"
    assert "support.resolution.rate" not in DEFAULT_SEMANTIC_REGISTRY


TASKS = """
def run_case(ctx, case):
    ctx.metric("resolved", case.input["resolved"], semantic_type="support.resolution.rate")
    return {"ok": True}
"""


def test_spec_using_a_plugin_semantic_type_loads_and_runs(tmp_path: Path) -> None:
    (tmp_path / "support_tasks.py").write_text(TASKS)
    path = tmp_path / "autobench.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            benchmark: {id: support}
            dataset:
              cases: [{id: a, input: {resolved: 0.9}}, {id: b, input: {resolved: 0.4}}]
            task: {kind: python, target: "support_tasks:run_case"}
            variants: [{id: v1}]
            semantic_registry:
              types:
                support.resolution.rate.weekly: {parent: support.resolution.rate}
            policies:
              - {name: resolves, metric: support.resolution.rate, must_greater_equal: 0.5}
            reports:
              leaderboard:
                metrics: [{name: resolution, metric: support.resolution.rate, aggregate: mean}]
            """
        )
    )
    spec = load_benchmark_spec(path)
    assert spec.registry.is_a("support.resolution.rate", "quality.score")
    assert spec.registry.is_a("support.resolution.rate.weekly", "quality.score")
    assert spec.reports.leaderboard is not None
    assert spec.reports.leaderboard.metrics[0].semantic_type == "support.resolution.rate"
    sys.path.insert(0, str(tmp_path))
    try:
        result = asyncio.run(run_benchmark_spec(spec))
    finally:
        sys.path.remove(str(tmp_path))
    assert result.registry.is_a("support.resolution.rate", "quality.score")
    statuses = {run.case.id: run.evaluation_status for run in result.runs}
    assert statuses == {"a": EvaluationStatus.PASSED, "b": EvaluationStatus.FAILED}
