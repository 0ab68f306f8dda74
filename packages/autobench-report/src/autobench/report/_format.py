"""Text forms of report values shared by the text exporters."""

from __future__ import annotations

import math
from typing import Any

from autobench.report._model import AggregateValue


def number_text(value: float | int) -> str:
    """A number for people: integers as they are (a float that holds a whole number below
    10**15 too, so a sum of 246,914 tokens reads ``246914``), other floats with 4
    significant digits."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def value_text(value: Any) -> str:
    """Any metric value for people (``""`` for no value)."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return number_text(value)
    return str(value)


def aggregate_text(aggregate: AggregateValue, shown: str | None = None) -> str:
    """``0.812 (n=3/4)``; ``no value (n=0/4)`` for no value. ``shown`` replaces the
    default text of the value (a column's own notation)."""
    if shown is not None:
        value = shown
    else:
        value = "no value" if aggregate.value is None else number_text(aggregate.value)
    return f"{value}{spread_text(aggregate)} (n={aggregate.n}/{aggregate.total})"


def varies(aggregate: AggregateValue) -> bool:
    """Whether ``aggregate`` has a spread between repeats worth showing: not ``None``, not
    0 (every repeat of every case gave the same value) and a number."""
    spread = aggregate.spread
    return spread is not None and spread != 0 and math.isfinite(spread)


def spread_text(aggregate: AggregateValue) -> str:
    """`` ±0.05`` (the spread between repeats), ``""`` without one or when the value never
    varies (:func:`varies`)."""
    spread = aggregate.spread
    return f" \u00b1{number_text(spread)}" if spread is not None and varies(aggregate) else ""


def metric_label(semantic_type: str, unit: str | None) -> str:
    """``time.latency [s]``, or the semantic type alone without a unit."""
    return semantic_type if unit is None else f"{semantic_type} [{unit}]"


def column_label(name: str, fn: str, semantic_type: str, unit: str | None) -> str:
    """``p95_latency: p95 of time.latency [s]``, or ``time.latency [s] (mean)`` when the
    name is the semantic type itself."""
    metric = metric_label(semantic_type, unit)
    return f"{metric} ({fn})" if name == semantic_type else f"{name}: {fn} of {metric}"
