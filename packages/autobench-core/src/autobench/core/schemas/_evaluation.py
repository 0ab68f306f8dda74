"""Schemas of the scoring, derivation, policy and report sections."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, get_args

from pydantic import BaseModel

from autobench.core.plugins import ScorerRegistry
from autobench.core.policies import PolicySpec
from autobench.core.schemas._defs import Definitions, closed, nullable
from autobench.core.scoring import ScorerSpec
from autobench.core.spec._dsl import REPORT_KEYS
from autobench.core.spec._models import AggregateName, DistributionReportSpec, ReportSpec

_STRUCTURAL = frozenset({"kind", "name"})


def by_kind(defs: Definitions, models: Iterable[type[BaseModel]]) -> dict[str, Any]:
    """A list of ``{kind, ...}`` entries, each one of ``models`` (the structured form)."""
    return {"type": "array", "items": {"anyOf": [defs.ref(model) for model in models]}}


def _takes_text(model: type[ScorerSpec]) -> bool:
    """Whether the DSL keyword of ``model`` accepts a string (a path or a shorthand)."""
    overridden = model.from_dsl.__func__ is not ScorerSpec.from_dsl.__func__  # type: ignore[attr-defined]
    return overridden or "path" in model.model_fields


def dsl_scorer(defs: Definitions, model: type[ScorerSpec]) -> dict[str, Any]:
    """One DSL ``score`` entry of ``model``'s kind: its keyword and the common options."""
    schema = defs.model(model)
    properties: dict[str, Any] = schema["properties"]
    options = model.dsl_options()
    action_keys = [key for key in properties if key not in _STRUCTURAL | options]
    required = tuple(key for key in schema.get("required", ()) if key in action_keys)
    action = closed({key: properties[key] for key in action_keys}, required=required)
    forms = [{"type": "string"}, action] if _takes_text(model) else [action]
    keyword = {"description": (model.__doc__ or "").strip().split("\n")[0], "anyOf": forms}
    entry = {key: properties[key] for key in sorted(options) if key in properties}
    return closed(
        {model.keyword: keyword, **entry},
        required=(model.keyword,),
        description=f"A '{model.keyword}' scorer (kind {model.model_fields['kind'].default}).",
    )


def dsl_score(defs: Definitions, registry: ScorerRegistry) -> dict[str, Any]:
    """``score: {<name>: {<keyword>: <action>, semantic, role, goal, unit, optional, span}}``."""
    entries = [
        defs.named(f"Score_{keyword}", dsl_scorer(defs, model))
        for keyword, model in sorted(registry.by_keyword.items())
    ]
    return {
        "type": "object",
        "description": "Scorer name -> one scoring action keyword and its options.",
        "additionalProperties": {"anyOf": entries},
    }


def _show() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Column name -> {metric, aggregate}.",
        "additionalProperties": closed(
            {
                "metric": {"type": "string", "description": "A semantic type."},
                "aggregate": {"enum": list(get_args(AggregateName)), "default": "mean"},
            },
            required=("metric",),
        ),
    }


def dsl_report(defs: Definitions) -> dict[str, Any]:
    """``report: {leaderboard: {show}, matrix: {metric}, compare: {"a -> b": {show}},
    distributions: [...]}``."""
    show = defs.named("ReportShow", _show())
    properties = {
        "leaderboard": closed({"show": nullable(show)}),
        "matrix": closed({"metric": {"type": "string"}}, required=("metric",)),
        "compare": {
            "type": "object",
            "description": "'<baseline> -> <candidate>' -> {show}.",
            "propertyNames": {"pattern": r"^\s*\S.*->\s*\S"},
            "additionalProperties": closed({"show": nullable(show)}),
        },
        "distributions": {"type": "array", "items": defs.ref(DistributionReportSpec)},
    }
    assert set(properties) == REPORT_KEYS
    return closed(properties, description="Leaderboard, case matrix, comparisons, distributions.")


def structured_reports(defs: Definitions) -> dict[str, Any]:
    """The structured ``reports`` section (the shape of :class:`ReportSpec`)."""
    return defs.ref(ReportSpec)


def policies(defs: Definitions) -> dict[str, Any]:
    """``policies: [{name, metric, unit, description, <one requirement>}]``."""
    return {"type": "array", "items": defs.ref(PolicySpec)}
