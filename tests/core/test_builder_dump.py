"""The Python builder (``Benchmark``) and writing specs back to DSL YAML (``dump_benchmark_spec``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench import (
    Benchmark,
    BenchmarkSpec,
    Case,
    ExactScorer,
    FactorValue,
    PassFailScorer,
    Semantic,
    Variant,
    build_benchmark_plan,
    dump_benchmark_spec,
    load_benchmark_spec,
)
from autobench.core.scoring import OutputMetricScorer, SchemaScorer
from autobench.core.spec import load_benchmark_spec_text
from autobench.records import load_document


def _content(spec: BenchmarkSpec) -> BenchmarkSpec:
    """``spec`` without the fields that only record where it was read from."""
    task = None if spec.task is None else spec.task.model_copy(update={"origin": None})
    return spec.model_copy(update={"task": task, "source_files": ()})


def _run_ids(spec: BenchmarkSpec) -> list[str]:
    return [run.run_id for run in build_benchmark_plan(spec).runs]


def _round_trip(spec: BenchmarkSpec, tmp_path: Path) -> BenchmarkSpec:
    text = dump_benchmark_spec(spec)
    assert "benchmark:" in text and "\nscoring:" not in text
    reloaded = load_benchmark_spec_text(text, path=tmp_path / "dumped.yaml")
    if spec.base_dir is None:  # a built spec without base_dir: the reload has the file's
        spec = spec.model_copy(update={"base_dir": reloaded.base_dir})
    assert _content(reloaded) == _content(spec)
    assert _run_ids(reloaded) == _run_ids(spec)
    return reloaded


BUILDER_YAML = """\
benchmark:
  builder-demo:
    description: Small builder API demo.
    dataset:
      cases:
        - id: case_1
          input: {text: refund please}
          expected: {queue: billing}
        - id: case 2
    run:
      python: app.benchmarks.support:run_ticket_case
    variants:
      route_v1:
        factors:
          prompt_version: {value: route-v1, semantic: prompt.version}
      route_v2:
        label: second
        factors:
          prompt_version: {value: route-v2, semantic: prompt.version}
          temperature: 0
    score:
      success:
        pass: output.matched
        semantic: result.success
      queue_correct:
        exact: {actual: output.queue, expected: case.expected.queue}
        semantic: quality.correctness
"""


def _builder(base_dir: Path) -> Benchmark:
    return (
        Benchmark("builder-demo")
        .description("Small builder API demo.")
        .dataset(
            [
                Case(id="case_1", input={"text": "refund please"}, expected={"queue": "billing"}),
                {"id": "case 2"},
            ]
        )
        .variants(
            [
                Variant(
                    id="route_v1",
                    factors=[
                        FactorValue(
                            name="prompt_version",
                            value="route-v1",
                            semantic_type=Semantic.PROMPT_VERSION,
                        )
                    ],
                ),
                {
                    "id": "route_v2",
                    "label": "second",
                    "factors": {
                        "prompt_version": {
                            "value": "route-v2",
                            "semantic_type": Semantic.PROMPT_VERSION,
                        },
                        "temperature": 0,
                    },
                },
            ]
        )
        .task("app.benchmarks.support:run_ticket_case")
        .scoring(
            [
                PassFailScorer(
                    name="success", path="output.matched", semantic_type=Semantic.RESULT_SUCCESS
                ),
                {
                    "kind": "exact",
                    "name": "queue_correct",
                    "actual": "output.queue",
                    "expected": "case.expected.queue",
                    "semantic": "quality.correctness",
                },
            ]
        )
        .base_dir(base_dir)
    )


def test_builder_spec_equals_the_loaded_dsl_spec(tmp_path: Path) -> None:
    built = _builder(tmp_path).to_spec()
    loaded = load_benchmark_spec_text(BUILDER_YAML, path=tmp_path / "autobench.yaml")
    assert built == _content(loaded)
    assert _run_ids(built) == _run_ids(loaded)
    assert len(_run_ids(built)) == 4
    _round_trip(built, tmp_path)


def test_builder_methods_return_new_builders(tmp_path: Path) -> None:
    base = Benchmark("b").dataset([{"id": "c"}])
    with_task = base.task("tasks:run")
    assert base.to_spec().task is None
    assert with_task.to_spec().task is not None and with_task.to_spec().task.target == "tasks:run"
    assert base.to_spec().cases == with_task.to_spec().cases
    with pytest.raises(ValueError, match="duplicate case id"):
        Benchmark("b").dataset([{"id": "c"}, {"id": "c"}])
    with pytest.raises(ValueError, match="no 'value'"):
        Benchmark("b").variants([{"id": "v", "factors": {"f": {"semantic": "x"}}}])
    with pytest.raises(ValueError, match="module-level"):
        Benchmark("b").task(lambda case: case)


TASKS = """\
def run_case(ctx, case):
    return {"ok": case.input["n"] > 1, "n": case.input["n"] * ctx.factor("k")}
"""


def test_builder_runs_sync_and_async(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "builder_tasks_mod.py").write_text(TASKS)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("builder_tasks_mod", None)
    import builder_tasks_mod  # type: ignore[import-not-found]

    builder = (
        Benchmark("run-demo")
        .dataset([{"id": "a", "input": {"n": 1}}, {"id": "b", "input": {"n": 2}}])
        .variants(
            [
                {"id": "one", "factors": {"k": 1}},
                {"id": "ten", "factors": [{"name": "k", "value": 10}]},
            ]
        )
        .task(builder_tasks_mod.run_case)
        .scoring(
            [
                PassFailScorer(name="ok", path="output.ok"),
                OutputMetricScorer(name="n", path="output.n"),
            ]
        )
    )
    assert builder.to_spec().task is not None
    assert builder.to_spec().task.target == "builder_tasks_mod:run_case"
    result = builder.run(concurrency_limit=2)
    assert len(result.runs) == 4
    assert [run.status.value for run in result.runs].count("errored") == 0
    assert sorted(run.run_id for run in result.runs) == sorted(_run_ids(builder.to_spec()))

    import asyncio

    again = asyncio.run(builder.run_async(concurrency_limit=1))
    assert len(again.runs) == 4


FULL_YAML = """\
benchmark:
  full:
    description: Everything the DSL can say.
    dataset:
      id: tickets
      version: v2
      metadata: {owner: docs}
      defaults:
        input: {lang: en}
        tags: [smoke]
      cases:
        - id: t1
          input: {text: hi}
          expected:
            queue: billing
            actions: [{name: lookup_user, arguments: {id: 1}}]
          tags: [fast]
        - id: t2
          input: 3
          metadata: {weight: 1.5}
    run: {python: tasks:run_case}
    variants:
      baseline:
        label: current
        description: the baseline
        factors:
          prompt: {value: v1, semantic: prompt.version, optimize: true}
          cfg: {value: {value: 1, other: 2}}
          plain: {a: 1}
          empty: null
      candidate: {}
    score:
      latency_ms:
        value: output.latency
        semantic: time.latency
        unit: ms
        goal: minimize
        role: diagnostic
      ok:
        pass: output.ok
        optional: true
        span: {kind: tool, name: lookup_user}
      answer:
        exact: {actual: output.answer, expected: case.expected.queue}
        span: {path: agent/lookup_user, tag: {phase: retrieval}}
      shape:
        schema:
          schema:
            type: object
            properties: {answer: {type: string}}
            required: [answer]
      custom:
        python: tasks:score_it
        span: {semantic_type: agent.tool.name}
      action_pick:
        expected_action: {metric: selection, observed_kind: tool}
        span: {kind: tool}
    policies:
      - {name: fast-enough, metric: time.latency, must_less: 500}
      - {name: allowed, metric: result.success, must_in: [true]}
    post_derive:
      - kind: paired_baseline
        baseline_variant: baseline
        match_on: [{kind: case_id}]
        metric: time.latency
        output: {name: speedup, semantic_type: performance.speedup}
    report:
      leaderboard:
        show:
          pass_rate: {metric: result.success, aggregate: ratio_true}
          latency: {metric: time.latency}
      matrix: {metric: quality.correctness}
      compare:
        baseline -> candidate:
          show:
            latency: {metric: time.latency, aggregate: median}
      distributions:
        - {name: latency, semantic_type: time.latency, summaries: [min, max]}
    semantic_registry:
      types:
        search.ndcg: {parent: quality.score, shape: number}
      aliases:
        ndcg_at_10: search.ndcg
"""


def test_full_spec_round_trip(tmp_path: Path) -> None:
    spec = load_benchmark_spec_text(FULL_YAML, path=tmp_path / "autobench.yaml")
    assert spec.policies and spec.post_derive and spec.reports.comparisons
    reloaded = _round_trip(spec, tmp_path)
    assert reloaded.variants[0].factor_values["cfg"] == {"value": 1, "other": 2}
    assert dump_benchmark_spec(reloaded) == dump_benchmark_spec(spec)


def test_dump_writes_the_exported_shape_to_a_path(tmp_path: Path) -> None:
    spec = load_benchmark_spec_text(FULL_YAML, path=tmp_path / "autobench.yaml")
    out = tmp_path / "exported.yaml"
    text = dump_benchmark_spec(spec, out)
    assert out.read_text(encoding="utf-8") == text
    document = load_document(text)
    body = document["benchmark"]["full"]
    assert body["run"] == {"python": "tasks:run_case"}
    assert body["variants"]["baseline"]["factors"]["prompt"] == {
        "value": "v1",
        "semantic": "prompt.version",
        "optimize": True,
    }
    assert body["score"]["latency_ms"] == {
        "value": "output.latency",
        "semantic": "time.latency",
        "unit": "ms",
        "goal": "minimize",
        "role": "diagnostic",
    }
    assert body["score"]["shape"]["schema"]["schema"]["required"] == ["answer"]
    assert body["report"]["leaderboard"]["show"]["pass_rate"] == {
        "metric": "result.success",
        "aggregate": "ratio_true",
    }
    assert _content(load_benchmark_spec(out)) == _content(spec)


def test_a_scorer_whose_only_field_is_a_nested_mapping(tmp_path: Path) -> None:
    scorer = SchemaScorer.model_validate(
        {"kind": "schema", "name": "shape", "schema": {"type": "object", "required": ["a"]}}
    )
    spec = Benchmark("nested").dataset([{"id": "c"}]).scoring([scorer]).to_spec()
    reloaded = _round_trip(spec, tmp_path)
    assert reloaded.scoring[0] == scorer


def test_minimal_and_empty_specs_round_trip(tmp_path: Path) -> None:
    _round_trip(Benchmark("empty").to_spec(), tmp_path)
    _round_trip(
        Benchmark("exact")
        .dataset([{"id": "c", "expected": None}])
        .scoring([ExactScorer(name="e", actual="output", expected="case.expected")])
        .to_spec(),
        tmp_path,
    )


_IDS = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=8),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(min_size=1, max_size=4), inner, max_size=3),
    ),
    max_leaves=6,
)


@st.composite
def _specs(draw: Any) -> BenchmarkSpec:
    case_ids = draw(st.lists(_IDS, min_size=1, max_size=4, unique=True))
    cases = [
        {"id": case_id, "input": draw(_VALUES), "expected": draw(_VALUES)} for case_id in case_ids
    ]
    variant_ids = draw(st.lists(_IDS, max_size=3, unique=True))
    variants = [
        {"id": variant_id, "factors": draw(st.dictionaries(_IDS, _VALUES, max_size=3))}
        for variant_id in variant_ids
    ]
    names = draw(st.lists(_IDS, max_size=4, unique=True))
    scorers: list[dict[str, Any]] = []
    for name in names:
        kind = draw(st.sampled_from(["value", "pass_fail", "exact", "schema"]))
        options: dict[str, Any] = {}
        if draw(st.booleans()):
            options["semantic"] = draw(st.sampled_from(["quality.correctness", "time.latency"]))
        if draw(st.booleans()):
            options["goal"] = draw(st.sampled_from(["maximize", "minimize"]))
        if draw(st.booleans()):
            options["optional"] = True
        if draw(st.booleans()):
            options["span"] = {"kind": "tool", "name": draw(_IDS)}
        if kind == "exact":
            scorers.append(
                {
                    "kind": kind,
                    "name": name,
                    "actual": "output",
                    "expected": "case.expected",
                    **options,
                }
            )
        elif kind == "schema":
            scorers.append({"kind": kind, "name": name, "schema": {"type": "object"}, **options})
        else:
            kind = "output" if kind == "value" else kind
            scorers.append({"kind": kind, "name": name, "path": "output." + draw(_IDS), **options})
    builder = Benchmark(draw(_IDS)).dataset(cases).variants(variants).scoring(scorers)
    if draw(st.booleans()):
        builder = builder.task("tasks:run_case").description(draw(st.text(max_size=10)))
    return builder.to_spec()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(spec=_specs())
def test_generated_specs_round_trip(spec: BenchmarkSpec, tmp_path: Path) -> None:
    _round_trip(spec, tmp_path)
