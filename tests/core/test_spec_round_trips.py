"""Round trips of whole specs, property-tested over generated ones: a spec dumped and validated
again is the same spec, and a built spec written as DSL YAML and loaded back is the same spec
(cases, variants with factors, scorers, derivers, policies, post-derivers, reports)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from autobench import (
    Benchmark,
    BenchmarkSpec,
    PolicySpec,
    build_benchmark_plan,
    dump_benchmark_spec,
)
from autobench.core.spec import load_benchmark_spec_text

SEMANTICS = ["quality.correctness", "time.latency", "result.success", "llm.tokens.input"]
_IDS = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    _TEXT,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_TEXT.filter(bool), inner, max_size=3)
    ),
    max_leaves=6,
)


def _maybe(draw: Any, options: dict[str, Any], key: str, strategy: Any) -> None:
    if draw(st.booleans()):
        options[key] = draw(strategy)


@st.composite
def _cases(draw: Any) -> list[dict[str, Any]]:
    cases = []
    for case_id in draw(st.lists(_IDS, min_size=1, max_size=3, unique=True)):
        case: dict[str, Any] = {"id": case_id, "input": draw(_VALUES)}
        _maybe(draw, case, "expected", _VALUES)
        _maybe(draw, case, "tags", st.lists(_IDS, max_size=2, unique=True))
        _maybe(draw, case, "metadata", st.dictionaries(_IDS, _SCALARS, max_size=2))
        cases.append(case)
    return cases


@st.composite
def _factor(draw: Any) -> Any:
    value = draw(_VALUES)
    if draw(st.booleans()):
        return value if not isinstance(value, dict) or not value else {"value": value}
    factor: dict[str, Any] = {"value": value}
    _maybe(draw, factor, "semantic_type", st.sampled_from(["prompt.version", "llm.model.name"]))
    _maybe(draw, factor, "optimize", st.booleans())
    _maybe(draw, factor, "description", _TEXT)
    return factor


@st.composite
def _variants(draw: Any) -> list[dict[str, Any]]:
    variants = []
    for variant_id in draw(st.lists(_IDS, max_size=3, unique=True)):
        variant: dict[str, Any] = {
            "id": variant_id,
            "factors": draw(st.dictionaries(_IDS, _factor(), max_size=3)),
        }
        _maybe(draw, variant, "label", _TEXT)
        _maybe(draw, variant, "description", _TEXT)
        variants.append(variant)
    return variants


@st.composite
def _scorers(draw: Any) -> list[dict[str, Any]]:
    scorers = []
    for name in draw(st.lists(_IDS, max_size=4, unique=True)):
        kind = draw(st.sampled_from(["output", "pass_fail", "exact", "schema", "python"]))
        scorer: dict[str, Any] = {"kind": kind, "name": name}
        if kind == "exact":
            scorer |= {"actual": "output." + draw(_IDS), "expected": "case.expected"}
        elif kind == "schema":
            scorer["schema"] = {
                "type": "object",
                "required": draw(st.lists(_IDS, max_size=2, unique=True)),
            }
        elif kind == "python":
            scorer["target"] = "scorers:" + draw(_IDS)
        else:
            scorer["path"] = "output." + draw(_IDS)
        _maybe(draw, scorer, "semantic", st.sampled_from(SEMANTICS))
        _maybe(draw, scorer, "goal", st.sampled_from(["maximize", "minimize"]))
        _maybe(draw, scorer, "role", st.sampled_from(["objective", "constraint", "diagnostic"]))
        _maybe(draw, scorer, "optional", st.booleans())
        _maybe(draw, scorer, "span", st.builds(lambda n: {"kind": "tool", "name": n}, _IDS))
        scorers.append(scorer)
    return scorers


@st.composite
def _derivers(draw: Any) -> list[dict[str, Any]]:
    if not draw(st.booleans()):
        return []
    deriver: dict[str, Any] = {"kind": "token_cost", "pricing": "pricing/models.yaml"}
    _maybe(
        draw,
        deriver,
        "output",
        st.builds(lambda n: {"name": n, "semantic_type": "money.cost"}, _IDS),
    )
    return [deriver]


@st.composite
def _policies(draw: Any) -> list[dict[str, Any]]:
    policies = []
    for name in draw(st.lists(_IDS, max_size=3, unique=True)):
        rule = draw(
            st.sampled_from(
                ["must_less", "must_greater_equal", "must_in", "must_equal", "must_between"]
            )
        )
        number = draw(st.integers(0, 1000) | st.floats(0, 1000, allow_nan=False))
        value: Any = {
            "must_in": [True, 1, "x"],
            "must_equal": draw(_SCALARS.filter(lambda v: v is not None)),
            "must_between": {"min": 0, "max": number},
        }.get(rule, number)
        policies.append({"name": name, "metric": draw(st.sampled_from(SEMANTICS)), rule: value})
    return policies


@st.composite
def _reports(draw: Any, variant_ids: list[str]) -> dict[str, Any]:
    aggregation = st.builds(
        lambda name, metric, fn: {"name": name, "metric": metric, "aggregate": fn},
        _IDS,
        st.sampled_from(SEMANTICS),
        st.sampled_from(["mean", "median", "min", "max", "ratio_true", "sum"]),
    )
    report: dict[str, Any] = {}
    if draw(st.booleans()):
        metrics = draw(st.lists(aggregation, max_size=3, unique_by=lambda m: m["name"]))
        report["leaderboard"] = {"metrics": metrics}
    if draw(st.booleans()):
        report["matrix"] = {"metric": draw(st.sampled_from(SEMANTICS))}
    if len(variant_ids) >= 2 and draw(st.booleans()):
        metrics = draw(st.lists(aggregation, max_size=2, unique_by=lambda m: m["name"]))
        report["comparisons"] = [
            {"baseline": variant_ids[0], "candidate": variant_ids[1], "metrics": metrics}
        ]
    if draw(st.booleans()):
        report["distributions"] = [
            {
                "name": draw(_IDS),
                "semantic_type": draw(st.sampled_from(SEMANTICS)),
                "summaries": draw(
                    st.lists(
                        st.sampled_from(["min", "median", "p95", "max"]), min_size=1, unique=True
                    )
                ),
            }
        ]
    return report


@st.composite
def built_specs(draw: Any) -> BenchmarkSpec:
    """A spec from the builder, with policies, post-derivers and reports laid over it."""
    variants = draw(_variants())
    builder = (
        Benchmark(draw(_IDS))
        .dataset(draw(_cases()))
        .variants(variants)
        .scoring(draw(_scorers()))
        .derive(draw(_derivers()))
    )
    if draw(st.booleans()):
        builder = builder.task("tasks:run_case").description(draw(_TEXT))
    update: dict[str, Any] = {"policies": draw(_policies())}
    variant_ids = [variant["id"] for variant in variants]
    if variant_ids and draw(st.booleans()):
        update["post_derive"] = [
            {
                "kind": "paired_baseline",
                "baseline_variant": variant_ids[0],
                "match_on": [{"kind": "case_id"}],
                "metric": draw(st.sampled_from(["time.latency", "quality.correctness"])),
                "output": {"name": "delta_" + draw(_IDS), "semantic_type": "performance.speedup"},
            }
        ]
    update["reports"] = draw(_reports(variant_ids))
    return builder.to_spec().model_copy(update=update)


def _content(spec: BenchmarkSpec) -> BenchmarkSpec:
    """``spec`` without what only records where it was read from (the runtime-only fields a
    dump leaves out: the task's origin, the resolved files, the base directory)."""
    task = None if spec.task is None else spec.task.model_copy(update={"origin": None})
    derive = tuple(deriver.model_copy(update={"files": {}}) for deriver in spec.derive)
    return spec.model_copy(
        update={
            "task": task,
            "derive": derive,
            "source_files": (),
            "base_dir": None,
            "scalar_notes": (),
        }
    )


_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_SETTINGS
@given(spec=built_specs())
def test_a_dumped_spec_validates_back_to_itself(spec: BenchmarkSpec) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a serializer warning is a failed round trip
        dumped = spec.model_dump()
    assert BenchmarkSpec.model_validate(dumped) == spec
    json_dumped = spec.model_dump(mode="json")
    assert BenchmarkSpec.model_validate(json_dumped).model_dump(mode="json") == json_dumped


@_SETTINGS
@given(spec=built_specs())
def test_a_built_spec_written_as_yaml_loads_back_to_itself(
    spec: BenchmarkSpec, tmp_path: Path
) -> None:
    pricing = tmp_path / "pricing" / "models.yaml"
    pricing.parent.mkdir(exist_ok=True)
    pricing.write_text("pricing:\n  models:\n    m: {input: {unit: mtok, price: 1}}\n")
    text = dump_benchmark_spec(spec)
    loaded = load_benchmark_spec_text(text, path=tmp_path / "autobench.yaml")
    assert _content(loaded) == _content(spec), text
    assert [r.run_id for r in build_benchmark_plan(loaded).runs] == [
        r.run_id for r in build_benchmark_plan(spec).runs
    ]
    assert dump_benchmark_spec(loaded) == text
    # a loaded spec validates back to its content: where it was read from is not dumped
    assert BenchmarkSpec.model_validate(loaded.model_dump()) == _content(loaded)


def test_model_copy_validates_what_it_lays_over_the_spec() -> None:
    spec = Benchmark("copy").dataset([{"id": "c"}]).variants([{"id": "v"}]).to_spec()
    policy = PolicySpec(name="gate", metric="quality.correctness", must_greater_equal=0.9)
    copied = spec.model_copy(
        update={"policies": [policy, {"name": "fast", "metric": "time.latency", "must_less": 5}]}
    )
    assert copied.policies == (policy, PolicySpec(name="fast", metric="time.latency", must_less=5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert BenchmarkSpec.model_validate(copied.model_dump()) == copied
    assert copied.plugins is spec.plugins
    with pytest.raises(ValidationError, match="duplicate variant id"):
        spec.model_copy(update={"variants": [{"id": "v"}, {"id": "v"}]})
    with pytest.raises(ValidationError, match="must_"):
        spec.model_copy(update={"policies": [{"name": "p", "metric": "time.latency"}]})
    assert spec.model_copy() == spec and spec.model_copy(deep=True) == spec
