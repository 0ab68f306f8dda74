"""The span snippets of the product documentation, in their own shapes, through a real run:
``span.factor(...)``, ``span.set_usage(key, value)`` beside the mapping form, and
``duration_metric={"name": ...}`` beside ``DurationMetricSpec``."""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import make_spec, run, write_task_module

from autobench.records import ObservationKind

TASK = """
from autobench import DurationMetricSpec, Semantic, SpanKind


def run(ctx, case):
    prompt_version = ctx.factor("prompt_version")
    with ctx.span(
        "route_ticket",
        kind=SpanKind.WORKFLOW,
        input=case.input,
        attributes={"prompt_version": prompt_version},
        duration_metric={"name": "routing_duration"},
    ) as span:
        span.set_output({"queue": "billing"})
        span.factor("prompt_version", prompt_version, semantic_type=Semantic.PROMPT_VERSION)
        span.metric("confidence", 0.9, semantic_type=Semantic.QUALITY_SCORE)
        span.outcome(True)
    with ctx.span(
        "reply_generation",
        kind=SpanKind.LLM,
        duration_metric=DurationMetricSpec(name="reply_latency", unit="ms"),
    ) as span:
        span.set_usage("input_tokens", 120)
        span.set_usage("output_tokens", 30)
        span.set_usage({"requests": 1})
    with ctx.span("timed", duration_metric={"name": "timed_us", "unit": "us", "role": "objective"}):
        pass
    return {"queue": "billing"}
"""


def test_the_documented_span_snippets_record_what_they_say(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(
        tmp_path,
        f"{module}:run",
        variants=({"id": "v1", "factors": {"prompt_version": "v3"}},),
    )
    result = run(spec)
    record = result.runs[0]
    assert record.status.value == "passed", record.errors
    spans = {span.operation: span for span in record.spans}
    by_name = {o.name: o for o in record.observations}
    factor = by_name["prompt_version"]
    assert factor.kind is ObservationKind.FACTOR and factor.value == "v3"
    assert factor.semantic_type == "prompt.version"
    assert factor.span_id == spans["route_ticket"].id
    routing = by_name["routing_duration"]
    assert routing.kind is ObservationKind.METRIC and routing.semantic_type == "time.latency"
    assert routing.unit == "s" and routing.span_id == spans["route_ticket"].id
    assert by_name["reply_latency"].unit == "ms"
    assert by_name["timed_us"].unit == "us" and by_name["timed_us"].role.value == "objective"
    assert spans["reply_generation"].usage == {
        "input_tokens": 120,
        "output_tokens": 30,
        "requests": 1,
    }


def test_bad_span_arguments_are_clear_errors(tmp_path: Path) -> None:
    from autobench import DurationMetricSpec

    with pytest.raises(TypeError, match="duration_metric"):
        DurationMetricSpec.of({"nme": "typo"})
    with pytest.raises(TypeError, match="DurationMetricSpec or a mapping"):
        DurationMetricSpec.of("latency")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duration unit"):
        DurationMetricSpec.of({"name": "x", "unit": "minutes"})
    module = write_task_module(
        tmp_path,
        "def run(ctx, case):\n"
        "    with ctx.span('s') as span:\n"
        "        span.set_usage('input_tokens')\n",
    )
    record = run(make_spec(tmp_path, f"{module}:run")).runs[0]
    assert record.status.value == "errored"
    assert "needs a value" in record.errors[0].message


EXACT_SPEC = """\
benchmark:
  reply:
    cases:
      - {id: c1, expected: {answer: 42}}
    run: {python: "exact_task:run"}
    variants: {v1: {}}
    score:
      has_phrase:
        exact:
          actual: output.contains_required_phrase
          expected: true
        semantic: quality.correctness
        role: objective
      count:
        exact: {actual: output.count, expected: 3}
      answer:
        exact: {actual: output.answer, expected: case.expected.answer}
      wrong_flag:
        exact: {actual: output.contains_required_phrase, expected: false}
"""


def test_an_exact_scorer_takes_a_literal_as_well_as_a_path(tmp_path: Path) -> None:
    from autobench import dump_benchmark_spec
    from autobench.core.spec import load_benchmark_spec_text

    (tmp_path / "exact_task.py").write_text(
        "def run(ctx, case):\n"
        "    return {'contains_required_phrase': True, 'count': 3, 'answer': 42}\n"
    )
    spec = load_benchmark_spec_text(EXACT_SPEC, path=tmp_path / "autobench.yaml")
    assert "expected: true" in dump_benchmark_spec(spec)  # the literal round-trips
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        record = run(spec).runs[0]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("exact_task", None)
    scores = {score.name: score.value for score in record.scores}
    assert scores == {"has_phrase": 1.0, "count": 1.0, "answer": 1.0, "wrong_flag": 0.0}


def test_the_documented_root_exports_and_replay_module(tmp_path: Path) -> None:
    """``from autobench import build_report, export_runs_csv, export_summary_yaml`` and the
    ``autobench.records.replay`` module, in the documentation's own shapes, on a real record
    directory; the price sources and the deriver the pricing section names."""
    import csv
    from datetime import date

    from autobench import (
        GenAIPricesSource,
        LLMPricesSource,
        TokenCostDeriver,
        build_case_matrix,
        build_leaderboard,
        build_metric_distribution,
        build_report,
        build_run_metric_rows,
        compare_variants,
        export_runs_csv,
        export_summary_yaml,
    )
    from autobench.records import RecordDirectoryWriter
    from autobench.records.replay import (
        load_experiment_record,
        load_run_record,
        replay_experiment,
    )

    module = write_task_module(
        tmp_path,
        "def run(ctx, case):\n"
        "    ctx.metric('latency', 0.25, semantic_type='time.latency', unit='s')\n"
        "    return {'ok': True}\n",
    )
    spec = make_spec(
        tmp_path,
        f"{module}:run",
        variants=({"id": "a"}, {"id": "b"}),
        scoring=({"name": "ok", "kind": "pass_fail", "path": "output.ok"},),
    )
    record = tmp_path / "record"
    run(spec, sink=RecordDirectoryWriter(record))
    experiment = load_experiment_record(record)
    replayed = replay_experiment(record)
    first = next(record.rglob("run.yaml"))
    loaded = load_run_record(first, root_dir=record)
    assert loaded.experiment_id == experiment.experiment.id
    assert loaded.trace is not None and loaded.trace.spans  # the full trace, from root_dir

    report = build_report(replayed)
    assert report.leaderboard.rows
    export_summary_yaml(replayed, tmp_path / "analysis" / "summary.yaml")
    export_runs_csv(replayed, tmp_path / "analysis" / "runs.csv")
    text = (tmp_path / "analysis" / "runs.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 2 and {row["variant"] for row in rows} == {"a", "b"}
    assert "leaderboard" in (tmp_path / "analysis" / "summary.yaml").read_text()
    assert not list((tmp_path / "analysis").glob(".*.tmp"))  # written atomically
    assert build_leaderboard(replayed).rows
    matrix = build_case_matrix(replayed, "time.latency")
    assert matrix is not None and matrix.variants == ("a", "b")
    distribution = build_metric_distribution(replayed, "time.latency")
    assert sorted(distribution.variants) == ["a", "b"]
    assert all(row.values == (0.25,) for row in distribution.variants.values())
    assert compare_variants(replayed, "a", "b").baseline == "a"
    assert len(build_run_metric_rows(replayed)) == 2

    llm_prices = Path(__file__).parents[1] / "fixtures" / "llm-prices"
    assert LLMPricesSource(llm_prices).load().resolve("openai:gpt-4o") is not None
    genai = GenAIPricesSource(providers=["openai"], at=date(2026, 1, 1)).load()
    assert genai.source == "genai-prices" and set(genai.providers) == {"openai"}
    assert TokenCostDeriver.__name__ == "TokenCostDeriver"


def test_tracked_tools_and_types_read_back_as_tool_type_and_field_assets() -> None:
    """The Asset Tracking section's tool and types, read back as ``ToolAsset``,
    ``TypeAsset`` and ``FieldAsset`` from the exact versions the registry recorded."""
    from typing import Literal

    from pydantic import BaseModel, Field

    from autobench import FieldAsset, ToolAsset, TypeAsset, UntrackedAssetError, track

    @track.tool
    def route_ticket(
        queue: Literal["billing", "account", "technical"],
        priority: int = 1,
    ) -> bool:
        """Route a ticket to a support queue."""
        return priority > 0

    @track.type
    class Car(BaseModel):
        make: Literal["audi", "bmw", "mercedes"]
        model: str = Field(examples=["a3", "320i"])
        year: int = Field(gt=0)

    @track.dataclass(frozen=True, slots=True)
    class CarRequest:
        make: Literal["audi", "bmw", "mercedes"]
        model: str
        year: int

    tool = ToolAsset.of(route_ticket)
    assert (tool.name, tool.doc, tool.returns) == (
        "route_ticket",
        "Route a ticket to a support queue.",
        "bool",
    )
    assert [(p.name, p.required, p.default) for p in tool.parameters] == [
        ("queue", True, None),
        ("priority", False, 1),
    ]
    assert tool.version == track.version_of(route_ticket)

    car = TypeAsset.of(Car)
    assert car.model == "pydantic" and [f.name for f in car.fields] == ["make", "model", "year"]
    assert car.field("model").examples == ("a3", "320i")
    assert car.field("year").constraints == ("Gt(gt=0)",)
    assert car.schema is not None and car.schema["required"] == ["make", "model", "year"]
    assert isinstance(car.field("make"), FieldAsset)

    request = TypeAsset.of(CarRequest)
    assert request.model == "dataclass" and [f.name for f in request.fields] == [
        "make",
        "model",
        "year",
    ]
    with pytest.raises(TypeError, match="tracked tool, not a type"):
        TypeAsset.of(route_ticket)
    with pytest.raises(UntrackedAssetError):
        ToolAsset.of(lambda: None)
    with pytest.raises(KeyError, match="no field 'colour'"):
        car.field("colour")


def test_a_dataset_file_may_use_the_id_keyed_form_in_files_and_globs(tmp_path: Path) -> None:
    from autobench import load_benchmark_spec

    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "a.yaml").write_text(
        "dataset:\n"
        "  tickets:\n"
        "    version: v2\n"
        "    metadata: {owner: docs}\n"
        "    defaults: {tags: [support]}\n"
        "    cases:\n"
        "      - {id: a1, input: {q: 1}}\n"
    )
    (tmp_path / "datasets" / "b.yaml").write_text(
        "tickets:\n  version: v2\n  cases:\n    - {id: b1, input: {q: 2}}\n"
    )
    spec_text = (
        "benchmark:\n  b:\n    dataset: {{source: '{source}'}}\n"
        "    run: {{python: 't:run'}}\n    variants: {{v1: {{}}}}\n"
    )
    spec = tmp_path / "autobench.yaml"
    spec.write_text(spec_text.format(source="file://datasets/*.yaml"))
    dataset = load_benchmark_spec(spec).dataset
    assert (dataset.id, dataset.version, dataset.metadata) == ("tickets", "v2", {"owner": "docs"})
    assert [(case.id, case.tags) for case in dataset.cases] == [("a1", ("support",)), ("b1", ())]
    spec.write_text(spec_text.format(source="datasets/b.yaml"))  # one file, not a glob
    single = load_benchmark_spec(spec).dataset
    assert (single.id, [case.id for case in single.cases]) == ("tickets", ["b1"])
    (tmp_path / "datasets" / "b.yaml").write_text(
        "support:\n  version: v2\n  cases:\n    - {id: b1}\n"
    )
    spec.write_text(spec_text.format(source="file://datasets/*.yaml"))
    with pytest.raises(ValueError, match=r"b\.yaml:1:1"):  # two files naming two datasets
        load_benchmark_spec(spec)
