"""Custom semantic types say whether they add up within a run: in a spec's YAML registry, in
Python, and in an installed metric pack; undeclared types keep one value per run. Derivers read
the run totals."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Literal

from runtime_support import make_spec, run, write_task_module

from autobench.core.derive import DerivationCall, DerivedValue, DeriverSpec, PreparedDeriver
from autobench.core.spec import load_benchmark_spec
from autobench.records import (
    ObservationQuery,
    RecordDirectoryWriter,
    RunRecord,
    SemanticDefinition,
    SemanticRegistry,
    is_summary,
    replay_experiment,
    run_observations,
)

TASK = """
def run_case(ctx, case):
    for index, amount in enumerate(case.input["refunds"]):
        with ctx.span(f"refund_{index}", kind="tool") as span:
            span.metric("refund", amount, semantic_type="business.refunds")
            span.metric("mood", amount, semantic_type="business.mood")
            span.metric("escalations", 1, semantic_type="support.escalation.count")
    return {}
"""


def _values(run: RunRecord, registry: SemanticRegistry, *semantics: str) -> dict[str, object]:
    query = ObservationQuery(observations=run_observations(run), registry=registry)
    return {semantic: query.values(semantic) for semantic in semantics}


def test_a_yaml_registry_type_declared_additive_is_summed(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASK)
    path = tmp_path / "autobench.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            benchmark:
              refunds:
                dataset:
                  cases: [{{id: c1, input: {{refunds: [5, 7, 9]}}}}]
                run: {{python: "{module}:run_case"}}
                variants: {{v1: {{}}}}
                semantic_registry:
                  types:
                    business.refunds: {{unit: usd, shape: number, additive: true}}
                    business.mood: {{shape: number}}
            """
        )
    )
    spec = load_benchmark_spec(path)
    assert spec.registry.is_additive("business.refunds")
    assert not spec.registry.is_additive("business.mood")
    result = run(spec, sink=RecordDirectoryWriter(tmp_path / "rec"))
    [recorded] = result.runs
    values = _values(
        recorded, result.registry, "business.refunds", "business.mood", "support.escalation.count"
    )
    # declared additive: the run total; undeclared: the first value, as before
    assert values == {
        "business.refunds": [21],
        "business.mood": [5],
        # the installed test metric pack declares its escalation count additive
        "support.escalation.count": [3],
    }
    query = ObservationQuery(observations=run_observations(recorded), registry=result.registry)
    total = query.first_exact("business.refunds")
    assert total is not None and is_summary(total) and total.tags["operations"] == "3"
    # replay knows the declarations from the record alone (the spec's and the pack's types
    # are in experiment.yaml)
    replayed = replay_experiment(tmp_path / "rec")
    assert replayed.registry.is_additive("support.escalation.count")
    [again] = replayed.runs
    assert _values(again, replayed.registry, "business.refunds", "support.escalation.count") == {
        "business.refunds": [21],
        "support.escalation.count": [3],
    }


def test_a_python_registry_declares_additivity_too(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(
        tmp_path,
        f"{module}:run_case",
        cases=({"id": "c1", "input": {"refunds": [1, 2]}},),
        semantic_registry=SemanticRegistry(
            types={"business.mood": SemanticDefinition(shape="number", additive=True)}
        ),
    )
    result = run(spec)
    [recorded] = result.runs
    assert _values(recorded, result.registry, "business.mood", "business.refunds") == {
        "business.mood": [3],
        "business.refunds": [1],  # not declared here: one value per run
    }


class TokensPerRequestSpec(DeriverSpec):
    """A third-party deriver: input tokens per model request, from the run's projected totals."""

    kind: Literal["tokens_per_request"] = "tokens_per_request"

    def prepare(self, *, base_dir: Path | None, registry: SemanticRegistry) -> PreparedDeriver:
        return self

    def derive(self, call: DerivationCall) -> list[DerivedValue]:
        query = ObservationQuery(observations=call.observations, registry=call.registry)
        tokens, requests = (
            query.first_exact("llm.tokens.input"),
            query.first_exact("llm.request.count"),
        )
        assert tokens is not None and requests is not None
        return [DerivedValue(name="tokens_per_request", value=tokens.value / requests.value)]


def test_a_deriver_reads_the_run_totals(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        from autobench import record_pydantic_ai_usage

        def run_case(ctx, case):
            for tokens in (50, 80):
                with ctx.span("request", kind="llm") as span:
                    record_pydantic_ai_usage(span, {"requests": 1, "input_tokens": tokens})
            record_pydantic_ai_usage(ctx, {"requests": 2, "input_tokens": 130})
            return {}
        """,
    )
    spec = make_spec(tmp_path, f"{module}:run_case", derive=[TokensPerRequestSpec()])
    [recorded] = run(spec).runs
    derived = next(o for o in recorded.observations if o.name == "tokens_per_request")
    assert derived.value == 65  # 130 tokens over 2 requests, the run-level usage not added
