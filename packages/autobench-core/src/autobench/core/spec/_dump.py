"""Write a :class:`BenchmarkSpec` back to YAML in the authoring DSL shape.

The document (see "Exported Benchmark YAML")::

    benchmark:
      <id>:
        description: ...
        dataset: {id, version, source, metadata, defaults, cases: [...]}   # cases resolved, inline
        run: {python: module:function}
        variants: {<id>: {label, description, factors: {<name>: value | {value, semantic, ...}}}}
        score: {<name>: {<keyword>: <action>, semantic, unit, goal, role, optional, span}}
        derive: [{kind, ...}]
        policies: [{name, metric, <requirement>}]
        post_derive: [{kind, ...}]
        report: {leaderboard: {show}, matrix: {metric}, compare: {"a -> b": {show}}, distributions}
        semantic_registry: {version, types, aliases}
        instrumentation: {all, <integration>: {...}}
        executor: <name> | {name, <option>: <value>}
        repeat: <K>                          # only when K > 1

Sections (and fields) holding their default are left out. Cases are written
inline with any ``defaults`` applied (``source`` is kept for the record only;
the loader does not read it again when ``cases`` is a list), so loading the
text gives an equal spec and the same run ids. Relative references (a
deriver's ``pricing`` file) are written as they were given: write the YAML
beside the original spec (or load it with ``path=`` there). The text is
rendered through :func:`autobench.records.render_input_sections` (dates tagged).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from autobench.core.native import InstrumentationSpec
from autobench.core.scoring import ScorerSpec
from autobench.core.spec._models import (
    BenchmarkSpec,
    DatasetSpec,
    MetricAggregation,
    ReportSpec,
)
from autobench.records import SemanticRegistry, Variant, render_input_sections

_FACTOR_KEYS = frozenset({"value", "semantic", "optimize", "description"})


def dump_benchmark_spec(spec: BenchmarkSpec, path: Path | str | None = None) -> str:
    """The authoring-DSL YAML text of ``spec``; also written to ``path`` when given.

    :func:`load_benchmark_spec` (or ``load_benchmark_spec_text`` with a path in the
    same directory) reads it back to an equal spec, apart from the fields that
    only record where things were read (``TaskSpec.origin``,
    ``BenchmarkSpec.source_files``). Raises ``ValueError`` for a scorer whose kind
    cannot be written in the DSL (its keyword entry does not read back to it).
    """
    text = render_input_sections(benchmark_spec_document(spec)).lstrip("\n")
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def benchmark_spec_document(spec: BenchmarkSpec) -> dict[str, Any]:
    """The document :func:`dump_benchmark_spec` renders: ``{"benchmark": {id: {...}}}``."""
    body: dict[str, Any] = {}
    if spec.benchmark.description is not None:
        body["description"] = spec.benchmark.description
    if spec.dataset != DatasetSpec():
        body["dataset"] = _dataset(spec.dataset)
    if spec.task is not None:
        body["run"] = {"python": spec.task.target}
        if spec.task.timeout is not None:
            body["run"]["timeout"] = spec.task.timeout
        if spec.task.retries is not None:
            body["run"]["retries"] = _plain(spec.task.retries)
    if spec.variants:
        body["variants"] = {variant.id: _variant(variant) for variant in spec.variants}
    if spec.scoring:
        body["score"] = {scorer.name: scorer_dsl(scorer) for scorer in spec.scoring}
    if spec.derive:
        body["derive"] = [_with_kind(item) for item in spec.derive]
    if spec.policies:
        body["policies"] = [_plain(item) for item in spec.policies]
    if spec.post_derive:
        body["post_derive"] = [_with_kind(item) for item in spec.post_derive]
    if spec.reports != ReportSpec():
        body.update(_report(spec.reports))
    if spec.semantic_registry != SemanticRegistry():
        body["semantic_registry"] = _plain(spec.semantic_registry)
    if not spec.instrumentation.empty:
        body["instrumentation"] = _instrumentation(spec.instrumentation)
    if spec.executor is not None:
        options = spec.executor.options
        body["executor"] = (
            {"name": spec.executor.name, **options} if options else spec.executor.name
        )
    if spec.repeat != 1:
        body["repeat"] = spec.repeat
    if spec.limits:
        body["limits"] = {name: _plain(limit) for name, limit in spec.limits.items()}
    if not spec.redaction.empty:
        body["redaction"] = _plain(spec.redaction)
    return {"benchmark": {spec.benchmark.id: body}}


def _instrumentation(section: InstrumentationSpec) -> dict[str, Any]:
    """The ``instrumentation`` section: discovery, then each explicit integration (its
    non-default settings, ``{}`` for the defaults, ``false`` to keep it off). Custom
    instrumentor instances are runtime-only and never written."""
    out: dict[str, Any] = {}
    if section.all is not None:
        out["all"] = _plain(section.all)
    for name, settings in section.explicit().items():
        out[name] = False if settings is False else _plain(settings)
    return out


def scorer_dsl(scorer: ScorerSpec) -> dict[str, Any]:
    """The DSL ``score`` entry of ``scorer``: ``{<keyword>: <action>, <options>...}``.

    The action is the kind's :meth:`ScorerSpec.action_dsl`; a kind without one (or whose
    action does not read back to the scorer) is written as a mapping of its own fields.
    Raises ``ValueError`` when neither form reads back to ``scorer``.
    """
    model = type(scorer)
    fields = _plain(scorer)
    fields.pop("kind", None)
    fields.pop("name", None)
    option_keys = model.dsl_options()
    options = {key: value for key, value in fields.items() if key in option_keys}
    rest = {key: value for key, value in fields.items() if key not in option_keys}
    candidates: list[Any] = []
    with suppress(NotImplementedError):
        candidates.append(_plain_value(scorer.action_dsl()))
    candidates.append(rest)
    for action in candidates:
        try:
            data = model.from_dsl(scorer.name, action, options)
            if model.model_validate(data) == scorer:
                return {model.keyword: action, **options}
        except ValueError:
            continue
    raise ValueError(f"scorer '{scorer.name}' of kind '{scorer.kind}' cannot be written in the DSL")


def _dataset(dataset: DatasetSpec) -> dict[str, Any]:
    out = _plain(dataset)
    out.pop("cases", None)
    out["cases"] = [_plain(case) for case in dataset.cases]
    return out


def _variant(variant: Variant) -> dict[str, Any]:
    out = _plain(variant)
    out.pop("id", None)
    if variant.factors:
        factors: dict[str, Any] = {}
        for factor in variant.factors:
            dumped = _plain(factor)
            dumped.pop("name", None)
            simple = set(dumped) <= {"value"} and not isinstance(factor.value, Mapping)
            factors[factor.name] = dumped.get("value") if simple else {"value": None, **dumped}
        out["factors"] = factors
    return out


def _report(report: ReportSpec) -> dict[str, Any]:
    pairs = [(item.baseline, item.candidate) for item in report.comparisons]
    if len(set(pairs)) != len(pairs):
        return {"reports": _plain(report)}  # the DSL's compare mapping cannot repeat a pair
    out: dict[str, Any] = {}
    if report.leaderboard is not None:
        out["leaderboard"] = (
            {"show": _show(report.leaderboard.metrics)} if report.leaderboard.metrics else {}
        )
    if report.matrix is not None:
        out["matrix"] = _plain(report.matrix)
    if report.comparisons:
        out["compare"] = {
            f"{item.baseline} -> {item.candidate}": {"show": _show(item.metrics)}
            if item.metrics
            else {}
            for item in report.comparisons
        }
    if report.distributions:
        out["distributions"] = [_plain(item) for item in report.distributions]
    return {"report": out}


def _show(metrics: tuple[MetricAggregation, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for metric in metrics:
        dumped = metric.model_dump(mode="python", by_alias=True)
        name = dumped.pop("name")
        out[name] = _plain_value(dumped)
    return out


def _with_kind(model: BaseModel) -> dict[str, Any]:
    dumped = _plain(model)
    dumped.pop("kind", None)
    return {"kind": getattr(model, "kind"), **dumped}  # noqa: B009


def _plain(model: BaseModel) -> dict[str, Any]:
    """``model`` as plain YAML values: aliases, non-default fields only."""
    value = _plain_value(model.model_dump(mode="python", by_alias=True, exclude_defaults=True))
    assert isinstance(value, dict)
    return value


def _plain_value(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _plain(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {key: _plain_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_value(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    return value
