"""Directions from the semantic catalog: a type's own or inherited direction, else its
namespace's; a metric pack's (or a spec's) entries declare directions the same way; a
direction the observations declare wins over the catalog."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    Direction,
    RecordDirectoryWriter,
    SemanticDefinition,
    replay_experiment,
)
from autobench.report import build_leaderboard

MAX, MIN = Direction.MAXIMIZE, Direction.MINIMIZE


@pytest.mark.parametrize(
    ("semantic", "direction"),
    [
        ("quality.score", MAX),
        ("quality.helpfulness", MAX),  # unregistered: its namespace's
        ("agent.plan.quality", MAX),  # a child of quality.score
        ("result.success", MAX),
        ("result.escalated", MAX),
        ("policy.result", MAX),  # a child of result.success
        ("time.latency", MIN),
        ("time.render", MIN),
        ("workflow.approval.wait", MIN),  # a child of time.latency
        ("money.cost", MIN),
        ("serving.cost", MIN),  # a child of money.cost
        ("llm.tokens.cache_read", MIN),
        ("performance.speedup", MAX),
        ("data.bytes", None),
        ("custom.vibe", None),
        ("qualityish.score", None),  # a namespace is a whole dotted segment
    ],
)
def test_built_in_directions(semantic: str, direction: Direction | None) -> None:
    assert DEFAULT_SEMANTIC_REGISTRY.direction_of(semantic) is direction


def test_a_pack_declares_a_namespace_and_a_type() -> None:
    registry = DEFAULT_SEMANTIC_REGISTRY.merged(
        types={
            "safety": SemanticDefinition(direction=MAX),
            "safety.leak": SemanticDefinition(direction=MIN, shape="number"),
            "quality.toxicity": SemanticDefinition(direction=MIN),
        }
    )
    assert registry.direction_of("safety.refusal.rate") is MAX
    assert registry.direction_of("safety.leak") is MIN
    assert registry.direction_of("quality.toxicity") is MIN  # the type's own wins
    assert SemanticDefinition(unit="s").model_dump() == {
        "parent": None,
        "unit": "s",
        "shape": None,
        "description": None,
        "additive": None,
    }  # no `direction: null` in a record that had none


TASK = """\
def run_case(ctx, case):
    ctx.metric("fresh", 0.9 if ctx.factor("m") == "a" else 0.5, semantic_type="quality.fresh")
    ctx.metric("errs", 2 if ctx.factor("m") == "a" else 1, semantic_type="quality.errors",
               direction="minimize", role="objective")
    ctx.metric("risk", 3 if ctx.factor("m") == "a" else 4, semantic_type="safety.risk",
               role="objective")
    return None
"""

SPEC = """\
benchmark:
  dirs:
    cases: [{id: c1, input: 1}, {id: c2, input: 2}]
    run: {python: dir_task:run_case}
    variants: {a: {factors: {m: a}}, b: {factors: {m: b}}}
    semantic_registry:
      types:
        safety.risk: {direction: minimize}
    report:
      leaderboard:
        show:
          fresh: {metric: quality.fresh}
          errs: {metric: quality.errors}
          risk: {metric: safety.risk}
"""


def test_declared_direction_wins_and_spec_entries_count(tmp_path: Path) -> None:
    (tmp_path / "dir_task.py").write_text(TASK, encoding="utf-8")
    (tmp_path / "autobench.yaml").write_text(SPEC, encoding="utf-8")
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(tmp_path / "out")))
    board = build_leaderboard(replay_experiment(tmp_path / "out"))
    directions = {column.name: column.direction for column in board.columns}
    assert directions == {"fresh": MAX, "errs": MIN, "risk": MIN}
    assert board.best == {"fresh": ("a",), "errs": ("b",), "risk": ("a",)}
