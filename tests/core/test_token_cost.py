"""The ``derive`` section and the ``token_cost`` deriver, end to end through the loader and
the runtime: costs of several calls, diagnostics instead of invented costs, pricing read once
per experiment, and the Pydantic AI usage bridge."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from runtime_support import write_task_module

from autobench import (
    PydanticAIUsage,
    TokenCostDeriverSpec,
    TokenCostInputs,
    load_benchmark_spec,
    record_pydantic_ai_usage,
    run_benchmark_spec,
)
from autobench.core.spec import SpecError
from autobench.records import ExperimentResult, ObservationKind, ObservationSource, RunRecord

PRICING = """\
pricing:
  provider: demo
  source: manual
  models:
    demo/small:
      aliases: [small]
      input: {unit: mtok, price: 0.1}
      output: {unit: mtok, price: 0.3}
    demo/large:
      input: {unit: mtok, price: 1.0}
      output: {unit: mtok, price: 3.0}
    demo/tiered:
      input:
        unit: ktok
        tiers: [{up_to: 1000, price: 1}, {price: 2}]
      output: {unit: ktok, price: 4}
"""

TASKS = """\
from autobench import PydanticAIUsage, record_pydantic_ai_usage


def two_models(ctx, case):
    with ctx.span("plan", kind="llm") as span:
        record_pydantic_ai_usage(ctx, {"input_tokens": 1000, "output_tokens": 200,
                                       "model_name": "demo/small", "provider": "demo"}, span=span)
    with ctx.span("answer", kind="llm") as span:
        span.metric("in", 500, semantic_type="llm.tokens.input")
        span.metric("out", 100, semantic_type="llm.tokens.output")
        span.factor_observation("model", "demo:demo/large", semantic_type="llm.model.name")
    return {}


def by_factor(ctx, case):
    ctx.metric("in", case.input["tokens"], semantic_type="llm.tokens.input")
    ctx.metric("out", 10, semantic_type="llm.tokens.output")
    return {}


def usage_from_input(ctx, case):
    record_pydantic_ai_usage(ctx, PydanticAIUsage(**case.input))
    return {}


def rewrite_pricing(ctx, case):
    from pathlib import Path
    pricing = Path(__file__).with_name("pricing") / "models.yaml"
    pricing.write_text(pricing.read_text().replace("price: 0.1", "price: 99"))
    record_pydantic_ai_usage(ctx, {"input_tokens": 1_000_000, "output_tokens": 0, "model_name": "small"})
    return {}
"""


def _project(tmp_path: Path, body: str, *, tasks: str = TASKS) -> Path:
    module = write_task_module(tmp_path, tasks)
    (tmp_path / "pricing").mkdir(exist_ok=True)
    (tmp_path / "pricing" / "models.yaml").write_text(PRICING)
    spec = tmp_path / "autobench.yaml"
    text = textwrap.dedent(body).replace("MODULE", module)
    if "variants:" not in text:
        text = text.replace("  cost-demo:\n", "  cost-demo:\n    variants: {default: {}}\n")
        text = text.replace(
            "benchmark: {id: cost-demo}\n",
            "benchmark: {id: cost-demo}\nvariants: [{id: default}]\n",
        )
    spec.write_text(text)
    return spec


def _run(path: Path, **kwargs: Any) -> ExperimentResult:
    return asyncio.run(run_benchmark_spec(load_benchmark_spec(path), **kwargs))


def _costs(run: RunRecord) -> list[Any]:
    return [o for o in run.observations if o.semantic_type == "money.cost"]


def _diagnostics(run: RunRecord) -> dict[str, Any]:
    return {o.name: o for o in run.observations if o.kind is ObservationKind.DIAGNOSTIC}


def test_two_calls_on_two_models_are_each_priced_and_summed(tmp_path: Path) -> None:
    spec_path = _project(
        tmp_path,
        """\
        benchmark:
          cost-demo:
            cases: [{id: c1}]
            run: {python: MODULE:two_models}
            derive:
              - kind: token_cost
                pricing: file://pricing/models.yaml
                output: {name: request_cost, semantic_type: money.cost, unit: usd, direction: minimize, role: objective}
        """,
    )
    spec = load_benchmark_spec(spec_path)
    assert (tmp_path / "pricing" / "models.yaml").resolve() in spec.source_files
    assert isinstance(spec.derive[0], TokenCostDeriverSpec)
    [run] = asyncio.run(run_benchmark_spec(spec)).runs
    [cost] = _costs(run)
    expected = (1000 * 0.1 + 200 * 0.3 + 500 * 1.0 + 100 * 3.0) / 1_000_000
    assert cost.name == "request_cost" and cost.source is ObservationSource.DERIVED
    assert cost.unit == "usd" and cost.value == pytest.approx(expected, rel=0, abs=1e-15)
    assert cost.tags == {"exact": "0.00096", "calls": "2"}
    assert "demo/small" in (cost.reason or "") and "demo:demo/large" in (cost.reason or "")
    assert not _diagnostics(run)


def test_unknown_model_gives_a_diagnostic_and_no_cost(tmp_path: Path) -> None:
    spec_path = _project(
        tmp_path,
        """\
        benchmark:
          cost-demo:
            cases:
              - {id: own, input: {input_tokens: 2000, output_tokens: 1000, model_name: demo/large, provider: demo}}
              - {id: nowhere, input: {input_tokens: 10, output_tokens: 10, model_name: mystery-9, provider: demo}}
            run: {python: MODULE:usage_from_input}
            derive: [{kind: token_cost, pricing: pricing/models.yaml}]
        """,
    )
    own, nowhere = _run(spec_path).runs
    # Priced only by the user's own pricing file.
    [cost] = _costs(own)
    assert cost.name == "token_cost" and cost.tags["exact"] == "0.005"
    # Priced nowhere: a diagnostic, and no money.cost observation at all (never 0).
    assert _costs(nowhere) == []
    diagnostic = _diagnostics(nowhere)["token_cost_unknown_pricing"]
    assert diagnostic.value == "mystery-9" and "mystery-9" in (diagnostic.reason or "")
    assert diagnostic.source is ObservationSource.DERIVED


@pytest.mark.parametrize(
    ("usage", "diagnostic"),
    [
        ({}, "token_cost_missing_inputs"),
        ({"input_tokens": 5, "model_name": "small"}, "token_cost_missing_inputs"),
        ({"input_tokens": 5, "output_tokens": 1}, "token_cost_missing_inputs"),
        (
            {"input_tokens": 5, "output_tokens": 1, "cache_read_tokens": 2, "model_name": "small"},
            "token_cost_missing_rates",
        ),
        (
            {"input_tokens": 5, "output_tokens": 1, "cache_read_tokens": 9, "model_name": "small"},
            "token_cost_ambiguous_input",
        ),
    ],
)
def test_missing_and_inconsistent_inputs_are_diagnostics(
    tmp_path: Path, usage: dict[str, Any], diagnostic: str
) -> None:
    spec_path = _project(
        tmp_path,
        f"""\
        benchmark:
          cost-demo:
            cases: [{{id: c1, input: {usage!r}}}]
            run: {{python: MODULE:usage_from_input}}
            derive: [{{kind: token_cost, pricing: pricing/models.yaml}}]
        """,
    )
    [run] = _run(spec_path).runs
    assert _costs(run) == []
    assert list(_diagnostics(run)) == [diagnostic]
    assert _diagnostics(run)[diagnostic].reason


def test_conflicting_evidence_in_one_call_is_ambiguous(tmp_path: Path) -> None:
    tasks = TASKS + textwrap.dedent(
        """

        def twice(ctx, case):
            ctx.metric("in", 5, semantic_type="llm.tokens.input")
            ctx.metric("in_again", 5, semantic_type="llm.tokens.input")
            ctx.metric("out", 1, semantic_type="llm.tokens.output")
            ctx.factor_observation("model", "small", semantic_type="llm.model.name")
            return {}


        def two_model_names(ctx, case):
            record_pydantic_ai_usage(ctx, {"input_tokens": 5, "output_tokens": 1, "model_name": "small"})
            ctx.factor_observation("model", "demo/large", semantic_type="llm.model.name")
            return {}
        """
    )
    expected = {
        # two input counts on one span with no operation id: the run total cannot tell one
        # call recorded twice from two calls, and neither can pricing
        "twice": ["ambiguous_direct_measurement", "token_cost_ambiguous_input"],
        "two_model_names": ["token_cost_ambiguous_input"],
    }
    for target in ("twice", "two_model_names"):
        spec_path = _project(
            tmp_path,
            f"""\
            benchmark:
              cost-demo:
                cases: [{{id: c1}}]
                run: {{python: MODULE:{target}}}
                derive: [{{kind: token_cost, pricing: pricing/models.yaml}}]
            """,
            tasks=tasks,
        )
        [run] = _run(spec_path).runs
        assert _costs(run) == [] and list(_diagnostics(run)) == expected[target], target


def test_model_from_variant_factor_and_tier_boundary(tmp_path: Path) -> None:
    spec_path = _project(
        tmp_path,
        """\
        benchmark:
          cost-demo:
            cases: [{id: at_limit, input: {tokens: 1000}}, {id: above, input: {tokens: 1001}}]
            run: {python: MODULE:by_factor}
            variants:
              tiered:
                factors:
                  model: {value: demo/tiered, semantic: llm.model.name}
                  provider: {value: demo, semantic: llm.provider}
            derive: [{kind: token_cost, pricing: pricing/models.yaml}]
        """,
    )
    at_limit, above = _run(spec_path).runs
    assert _costs(at_limit)[0].tags["exact"] == "1.04"  # 1000 x 1/ktok + 10 x 4/ktok
    assert _costs(above)[0].tags["exact"] == "2.042"  # every input token at the second tier


def test_pricing_file_is_read_once_per_experiment(tmp_path: Path) -> None:
    spec_path = _project(
        tmp_path,
        """\
        benchmark:
          cost-demo:
            cases: [{id: a}, {id: b}, {id: c}]
            run: {python: MODULE:rewrite_pricing}
            derive: [{kind: token_cost, pricing: pricing/models.yaml}]
        """,
    )
    result = _run(spec_path)
    # Each run rewrote the file (price 0.1 -> 99) before its cost was derived; every run is
    # still priced with the table read when the experiment started.
    assert "price: 99" in (tmp_path / "pricing" / "models.yaml").read_text()
    assert [_costs(run)[0].tags["exact"] for run in result.runs] == ["0.1", "0.1", "0.1"]


def test_structured_form_and_python_spec(tmp_path: Path) -> None:
    spec_path = _project(
        tmp_path,
        """\
        benchmark: {id: cost-demo}
        dataset: {cases: [{id: c1}]}
        task: {target: MODULE:two_models}
        derive:
          - kind: token_cost
            pricing: pricing/models.yaml
            inputs: {model: llm.model.name}
        """,
    )
    spec = load_benchmark_spec(spec_path)
    dumped = spec.model_dump(mode="json")["derive"]
    assert (
        dumped[0]["kind"] == "token_cost" and dumped[0]["inputs"] == TokenCostInputs().model_dump()
    )
    built = spec.model_copy(
        update={
            "derive": (TokenCostDeriverSpec(pricing="pricing/models.yaml"),),
            "source_files": (),
        }
    )
    [run] = asyncio.run(run_benchmark_spec(built)).runs
    assert _costs(run)[0].tags["exact"] == "0.00096"


@pytest.mark.parametrize(
    ("derive", "message"),
    [
        (
            "[{kind: magic}]",
            r"autobench.yaml:\d+:\d+: deriver 1 of 'derive' has unknown kind 'magic'",
        ),
        ("[{pricing: p.yaml}]", r"autobench.yaml:\d+:\d+: deriver 1 of 'derive' has no 'kind'"),
        (
            "[{kind: token_cost, pricing: pricing/models.yaml, colour: red}]",
            r"autobench.yaml:\d+:\d+: unknown key 'colour'",
        ),
        (
            "[{kind: token_cost, pricing: pricing/models.yaml, output: {name: c, semantic_type: money.cost, unit: eur}}]",
            "unit must be 'usd'",
        ),
        ("[{kind: token_cost, pricing: 'https://example.com/p.yaml'}]", "remote reference"),
        ("[{kind: token_cost, pricing: ../outside.yaml}]", "escapes the spec directory"),
        ("[{kind: token_cost, pricing: pricing/none.yaml}]", "does not exist"),
        (
            "[{kind: token_cost, pricing: bad.yaml}]",
            r"bad.yaml:3:\d+: invalid 'pricing.models.m.input.unit' of pricing file",
        ),
        (
            "[{kind: token_cost, pricing: pricing/models.yaml}, {kind: token_cost, pricing: pricing/models.yaml}]",
            "writes 'token_cost' like the deriver at",
        ),
    ],
)
def test_derive_section_errors_are_located(tmp_path: Path, derive: str, message: str) -> None:
    (tmp_path / "bad.yaml").write_text(
        "pricing:\n  models:\n    m: {input: {unit: gtok, price: 1}}\n"
    )
    body = (
        "benchmark:\n  cost-demo:\n    cases: [{id: c1}]\n"
        "    run: {python: MODULE:two_models}\n    derive:\n      " + derive + "\n"
    )
    spec_path = _project(tmp_path, body)
    with pytest.raises(SpecError, match=message):
        load_benchmark_spec(spec_path)


def test_pydantic_ai_usage_bridge_reads_objects_and_links_spans(tmp_path: Path) -> None:
    usage = SimpleNamespace(
        requests=2,
        input_tokens=420,
        output_tokens=83,
        cache_read_tokens=20,
        cache_write_tokens=0,
        total_tokens=503,
        details={},
        model_name="gemini-3-flash-preview",
        provider_name="openrouter",
    )
    data = PydanticAIUsage.from_usage(usage)
    assert data.provider == "openrouter" and data.total_tokens == 503 and data.requests == 2
    legacy = PydanticAIUsage.from_usage({"request_tokens": 3, "response_tokens": 4}, model_name="m")
    assert (legacy.input_tokens, legacy.output_tokens, legacy.model_name) == (3, 4, "m")

    tasks = textwrap.dedent(
        """\
        from types import SimpleNamespace
        from autobench import record_pydantic_ai_usage


        def bridge(ctx, case):
            usage = SimpleNamespace(requests=1, input_tokens=420, output_tokens=83, total_tokens=503,
                                    model_name="small", provider_name="demo")
            with ctx.span("agent_run", kind="agent") as span:
                record_pydantic_ai_usage(ctx, usage, span_id=span.id)
            return {"span": span.id}
        """
    )
    spec_path = _project(
        tmp_path,
        """\
        benchmark:
          cost-demo:
            cases: [{id: c1}]
            run: {python: MODULE:bridge}
            derive: [{kind: token_cost, pricing: pricing/models.yaml}]
        """,
        tasks=tasks,
    )
    [run] = _run(spec_path).runs
    by_semantic = {
        o.semantic_type: o
        for o in run.observations
        if o.source is ObservationSource.TASK_OBSERVATION
    }
    assert {o.span_id for o in by_semantic.values()} == {run.output["span"]}
    assert (
        by_semantic["llm.tokens.input"].value == 420
        and by_semantic["llm.tokens.input"].unit == "tokens"
    )
    assert by_semantic["llm.request.count"].value == 1
    assert by_semantic["llm.model.name"].kind is ObservationKind.FACTOR
    assert by_semantic["llm.provider"].value == "demo"
    assert _costs(run)[0].tags["exact"] == "0.0000669"
    assert record_pydantic_ai_usage is not None
