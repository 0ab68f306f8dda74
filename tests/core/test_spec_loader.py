"""The YAML spec loader: both forms, datasets, defaults, variants, scorers, reports, registry."""

from __future__ import annotations

import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from ruamel.yaml import YAML

from autobench.core.plugins import hookimpl, plugin_manager, scorer_registry, semantic_registry
from autobench.core.scoring import ExactScorer, OutputMetricScorer, PassFailScorer, ScorerSpec
from autobench.core.spec import (
    BenchmarkSpec,
    is_structured,
    load_benchmark_spec,
    load_benchmark_spec_text,
)
from autobench.records import DEFAULT_SEMANTIC_REGISTRY, Direction, ObservationRole

FIXTURES = Path(__file__).parent / "fixtures" / "spec_loader"


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> YAML text, dedented) under ``root``; return the first."""
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        paths.append(path)
    return paths[0]


@pytest.fixture(scope="module")
def support() -> BenchmarkSpec:
    return load_benchmark_spec(FIXTURES / "support" / "autobench.yaml")


def test_dsl_benchmark_identity_task_and_base_dir(support: BenchmarkSpec) -> None:
    assert support.id == "support-routing"
    assert support.benchmark.description == "Route support tickets into the right queue."
    assert support.task is not None
    assert support.task.target == "app.benchmarks.support:run_ticket_case"
    assert support.base_dir == (FIXTURES / "support").resolve()
    assert support.source_files == (
        (FIXTURES / "support" / "autobench.yaml").resolve(),
        (FIXTURES / "support" / "datasets" / "a_billing.yaml").resolve(),
        (FIXTURES / "support" / "datasets" / "b_auth.yaml").resolve(),
    )


def test_glob_source_reads_files_in_sorted_order_and_applies_both_defaults(
    support: BenchmarkSpec,
) -> None:
    dataset = support.dataset
    assert [case.id for case in dataset.cases] == ["refund", "invoice", "login"]
    assert dataset.source == "file://datasets/*.yaml"
    assert dataset.version == "v2"
    assert dataset.metadata == {"source": "tickets-2024", "owner": "support"}
    refund, invoice, login = dataset.cases
    assert refund.metadata == {"locale": "de-DE"}  # the case wins over the spec default
    assert refund.tags == ("regression",)
    assert invoice.input == "Where is my invoice?"
    assert invoice.metadata == {"locale": "en-US"}
    # file defaults first, then the spec's, tags de-duplicated keeping first-seen order
    assert login.tags == ("regression", "auth", "urgent")
    assert login.input == {"channel": "email", "subject": "Cannot log in"}


def test_variants_accept_mapping_and_list_factor_forms(support: BenchmarkSpec) -> None:
    v1, v2 = support.variants
    assert (v1.id, v1.label) == ("route_v1", "baseline routing prompt")
    assert v1.factor_values == {"prompt_version": "route-v1", "temperature": 0}
    assert v1.factors[0].semantic_type == "prompt.version" and v1.factors[0].optimize
    assert v2.factor_values == {"prompt_version": "route-v2", "temperature": 0.2}
    assert v2.factors[0].optimize and not v2.factors[1].optimize


def test_score_entries_compile_to_registered_scorer_kinds(support: BenchmarkSpec) -> None:
    matched, queue, confidence = support.scoring
    assert isinstance(matched, PassFailScorer)
    assert (matched.name, matched.path, matched.semantic_type) == (
        "matched",
        "output.matched",
        "result.success",
    )
    assert matched.direction is Direction.MAXIMIZE and matched.role is ObservationRole.OBJECTIVE
    assert isinstance(queue, ExactScorer)
    assert (queue.actual, queue.expected) == ("output.queue", "case.expected.queue")
    assert isinstance(confidence, OutputMetricScorer)
    assert confidence.optional and confidence.effective_role is ObservationRole.DIAGNOSTIC


def test_report_section_compiles_to_report_spec(support: BenchmarkSpec) -> None:
    reports = support.reports
    assert reports.leaderboard is not None
    assert [(m.name, m.semantic_type, m.fn) for m in reports.leaderboard.metrics] == [
        ("pass_rate", "result.success", "ratio_true"),
        ("avg_correctness", "quality.correctness", "mean"),
    ]
    assert reports.matrix is not None and reports.matrix.semantic_type == "quality.correctness"
    (comparison,) = reports.comparisons
    assert (comparison.baseline, comparison.candidate) == ("route_v1", "route_v2")
    assert [m.name for m in comparison.metrics] == ["correctness_delta"]
    (distribution,) = reports.distributions
    assert distribution.summaries == ("min", "median", "max")


def test_semantic_registry_keeps_custom_entries_and_merges_over_builtins(
    support: BenchmarkSpec,
) -> None:
    assert set(support.semantic_registry.types) == {"search.ndcg"}
    assert support.semantic_registry.aliases == {"ndcg_at_10": "search.ndcg"}
    registry = support.registry
    assert registry.is_a("ndcg_at_10", "quality.score")
    assert registry.is_a("serving.cost", "money.cost")
    # the base is the built-in catalog plus installed plugins' types (the test pack's)
    assert len(registry.types) == len(semantic_registry().types) + 1
    assert set(DEFAULT_SEMANTIC_REGISTRY.types) <= set(registry.types)


def test_structured_dump_round_trips_through_yaml(support: BenchmarkSpec, tmp_path: Path) -> None:
    path = tmp_path / "structured.yaml"
    with path.open("w", encoding="utf-8") as stream:
        YAML(typ="safe", pure=True).dump(support.model_dump(mode="json"), stream)
    reloaded = load_benchmark_spec(path)
    assert reloaded.model_dump(mode="json") == support.model_dump(mode="json")
    assert reloaded.source_files == (path.resolve(),)  # inline cases: the source is not re-read


def test_structured_form_by_hand(tmp_path: Path) -> None:
    spec = load_benchmark_spec(
        write(
            tmp_path,
            {
                "spec.yaml": """\
                benchmark: {id: hand, description: Written by hand}
                dataset:
                  cases: [{id: a, input: 1}, {id: b, input: 2}]
                task: {kind: python, target: "tasks:run"}
                variants:
                  - {id: base, factors: {model: small}}
                scoring:
                  - {kind: pass_fail, name: ok, path: output.ok, goal: maximize}
                reports:
                  leaderboard:
                    metrics: [{name: ok_rate, metric: result.success, aggregate: ratio_true}]
                  comparisons: []
                """
            },
        )
    )
    assert spec.id == "hand" and [c.input for c in spec.cases] == [1, 2]
    assert spec.variants[0].factor("model") == "small"
    assert isinstance(spec.scoring[0], PassFailScorer)
    assert spec.reports.leaderboard is not None
    assert spec.reports.leaderboard.metrics[0].fn == "ratio_true"


@pytest.mark.parametrize(
    ("document", "structured"),
    [
        ({"benchmark": {"demo": {"run": {}}}}, False),
        ({"benchmark": {"id": {"dataset": {}}}}, False),  # a DSL benchmark named "id"
        ({"benchmark": {"id": "demo"}}, True),
        ({"benchmark": {"demo": {}}, "variants": []}, True),
    ],
)
def test_detection_rule(document: dict[str, Any], structured: bool) -> None:
    assert is_structured(document) is structured


def test_inline_cases_and_defaults_merge_rule(tmp_path: Path) -> None:
    spec = load_benchmark_spec_text(
        """\
benchmark:
  inline-demo:
    dataset:
      version: 3
      defaults:
        metadata: {owner: support-team, nested: {a: 1, b: 2}}
        tags: [smoke]
        input: {locale: tr-TR}
        expected: fallback
      cases:
        - id: refund_tr
          input: {subject: Para iadesi}
          expected: {queue: billing}
          metadata: {nested: {b: 3}}
          tags: [billing, smoke]
        - id: bare
    variants:
      default: {}
""",
        path=tmp_path / "autobench.yaml",
    )
    refund, bare = spec.cases
    assert spec.dataset.version == "3"
    assert refund.input == {"locale": "tr-TR", "subject": "Para iadesi"}
    assert refund.expected == {"queue": "billing"}
    assert refund.metadata == {"owner": "support-team", "nested": {"a": 1, "b": 3}}
    assert refund.tags == ("smoke", "billing")
    assert bare.input == {"locale": "tr-TR"} and bare.expected == "fallback"
    assert [variant.id for variant in spec.variants] == ["default"]
    assert spec.task is None and spec.scoring == ()


def test_benchmark_level_cases_file_with_dataset_file_fields(tmp_path: Path) -> None:
    spec_path = write(
        tmp_path,
        {
            "autobench.yaml": """\
            benchmark:
              file-backed:
                cases: datasets/cases.yaml
                task: {kind: python, target: "my_pkg.tasks:Runner.run"}
            """,
            "datasets/cases.yaml": """\
            id: tickets
            version: v7
            metadata: {owner: docs}
            defaults: {tags: [from-file]}
            cases:
              - id: case_1
                input: {value: 10}
                expected: {doubled: 20}
            """,
        },
    )
    spec = load_benchmark_spec(spec_path)
    assert (spec.dataset.id, spec.dataset.version) == ("tickets", "v7")
    assert spec.dataset.metadata == {"owner": "docs"}
    assert spec.dataset.source == "datasets/cases.yaml"
    assert spec.cases[0].tags == ("from-file",)
    assert spec.task is not None and spec.task.target == "my_pkg.tasks:Runner.run"


def test_dataset_file_in_exported_shape_or_as_a_bare_list(tmp_path: Path) -> None:
    spec_path = write(
        tmp_path,
        {
            "autobench.yaml": "benchmark:\n  b:\n    dataset:\n      source: file://data/*.yaml\n",
            "data/1.yaml": """\
            record: {type: dataset, version: 1}
            dataset:
              version: v1
              cases: [{id: one}]
            """,
            "data/2.yaml": "- id: two\n- id: three\n",
        },
    )
    spec = load_benchmark_spec(spec_path)
    assert [case.id for case in spec.cases] == ["one", "two", "three"]
    assert spec.dataset.version == "v1"


def test_absolute_file_reference_inside_the_spec_directory(tmp_path: Path) -> None:
    data = tmp_path / "cases.yaml"
    data.write_text("cases: [{id: a}]\n", encoding="utf-8")
    spec = load_benchmark_spec_text(
        f"benchmark:\n  b:\n    dataset:\n      source: file://{data}\n",
        path=tmp_path / "autobench.yaml",
    )
    assert [case.id for case in spec.cases] == ["a"]


def test_a_dsl_spec_with_structured_reports(tmp_path: Path) -> None:
    spec = load_benchmark_spec_text(
        """\
benchmark:
  b:
    variants: [{id: a}, {id: b}]
    reports:
      comparisons: [{baseline: a, candidate: b}]
      distributions: [{name: lat, semantic_type: time.latency}]
""",
        path=tmp_path / "autobench.yaml",
    )
    assert spec.reports.comparisons[0].candidate == "b"
    assert spec.reports.distributions[0].summaries == ("min", "median", "p95", "max")


class LengthScorer(ScorerSpec):
    """A plugin scorer kind with its own keyword."""

    keyword: ClassVar[str] = "length"
    kind: Literal["length"] = "length"
    path: str
    limit: int | None = None

    @classmethod
    def dsl_options(cls) -> frozenset[str]:
        return super().dsl_options() | {"limit"}


@pytest.fixture
def length_plugin() -> Iterator[None]:
    module = types.ModuleType("length_plugin")

    @hookimpl
    def autobench_scorers() -> list[type[ScorerSpec]]:
        return [LengthScorer]

    module.autobench_scorers = autobench_scorers  # type: ignore[attr-defined]
    plugin_manager().register(module, name="test.length")
    scorer_registry.cache_clear()
    try:
        yield
    finally:
        plugin_manager().unregister(name="test.length")
        scorer_registry.cache_clear()


@pytest.mark.usefixtures("length_plugin")
def test_plugin_scorer_keywords_are_understood(tmp_path: Path) -> None:
    spec = load_benchmark_spec_text(
        "benchmark:\n  b:\n    score:\n      size:\n        length: output.text\n        limit: 3\n",
        path=tmp_path / "autobench.yaml",
    )
    (scorer,) = spec.scoring
    assert isinstance(scorer, LengthScorer)
    assert (scorer.path, scorer.limit) == ("output.text", 3)


def test_five_hundred_cases_load_with_defaults_applied(tmp_path: Path) -> None:
    case = (
        "  - id: case_{i}\n    input:\n      message: hello {i}\n      n: {i}\n"
        "    expected:\n      route: billing\n      ok: true\n    tags: [a, b]\n"
        "    metadata: {{owner: x}}\n"
    )
    spec_path = write(
        tmp_path,
        {
            "autobench.yaml": """\
            benchmark:
              big:
                dataset:
                  source: file://datasets/cases.yaml
                  defaults: {tags: [smoke], metadata: {team: a}}
                run: {python: "app:run"}
                variants: {a: {}, b: {factors: {x: 1}}}
                score: {ok: {pass: output.ok}}
            """,
            "datasets/cases.yaml": "cases:\n" + "".join(case.format(i=i) for i in range(500)),
        },
    )
    spec = load_benchmark_spec(spec_path)
    assert len(spec.cases) == 500
    assert spec.cases[499].tags == ("smoke", "a", "b")
    assert spec.cases[499].metadata == {"team": "a", "owner": "x"}
