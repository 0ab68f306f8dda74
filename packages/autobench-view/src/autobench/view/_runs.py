"""The runs table of an experiment: one row per run, filtered, sorted and paged on the
server (a 100,000-run experiment sends one page to the browser)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from autobench.records import ExperimentResult
from autobench.report import RunMetricRow

COST = "money.cost"
LATENCY = "time.latency"
PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
SORTS = ("status", "case", "variant", "repeat", "cost", "latency", "error")
NUMERIC = ("cost", "latency", "repeat")
"""Columns a range filter applies to, besides ``score:NAME`` and ``metric:SEMANTIC``."""


@dataclass(slots=True)
class RunRow:
    """One run as the table shows it: ``scores`` by scorer name, ``cost`` in USD and
    ``latency`` in seconds (canonical units of the report's projection), ``error`` the type
    of the run's first error, ``metrics`` the projection's own dict of the run (shared, not
    copied). Nothing changes a row once made; it is not frozen because a load makes one per
    run, and 10,000 frozen ones took 8 ms to make against 1.4 ms."""

    run_id: str
    status: str
    case: str
    variant: str
    repeat: int
    scores: dict[str, Any]
    cost: float | None
    latency: float | None
    error: str | None
    metrics: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Query:
    """What the table is asked for: exact-match filters (empty: any), a ``sort`` key (one of
    :data:`SORTS`, ``score:NAME`` or ``metric:SEMANTIC``), its order, a 1-based page, and a
    range filter: runs whose value of ``where`` (``cost``, ``latency``, ``repeat``,
    ``score:NAME`` or ``metric:SEMANTIC``) lies within ``low`` and ``high`` (inclusive; an
    absent bound is open). With a bound given, runs without a value are left out."""

    status: str = ""
    case: str = ""
    variant: str = ""
    repeat: str = ""
    error: str = ""
    sort: str = ""
    descending: bool = False
    where: str = ""
    low: float | None = None
    high: float | None = None
    page: int = 1
    size: int = PAGE_SIZE
    ignored: tuple[str, ...] = ()
    """What the request asked for that the table does not apply, in words (a bound that is
    not a number), for the page to say."""


@dataclass(frozen=True)
class Page:
    rows: list[RunRow]
    total: int
    page: int
    pages: int


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def run_rows(result: ExperimentResult, metric_rows: Sequence[RunMetricRow]) -> list[RunRow]:
    """A row per recorded run, in plan order; metrics come from ``metric_rows``, the
    report's projection of the runs (``Report.run_rows`` or
    :func:`~autobench.report.build_run_metric_rows`, which gives the same rows without the
    rest of the report): no second computation."""
    metrics = {row.run_id: row.metrics for row in metric_rows}  # the rows' own dicts
    rows = []
    for run in result.runs:
        info = run.run
        values = metrics.get(info.id, {})
        rows.append(
            RunRow(
                info.id,
                info.status.value,
                info.case,
                info.variant,
                info.repeat,
                {score.name: score.value for score in run.scores},
                _number(values.get(COST)),
                _number(values.get(LATENCY)),
                run.errors[0].type if run.errors else None,
                values,
            )
        )
    return rows


def _sort_key(sort: str) -> Any:
    if sort.startswith("score:"):
        name = sort.removeprefix("score:")
        return lambda row: _number(row.scores.get(name))
    if sort.startswith("metric:"):
        name = sort.removeprefix("metric:")
        return lambda row: _number(row.metrics.get(name))
    if sort in ("cost", "latency", "repeat"):
        return lambda row: getattr(row, sort)
    if sort in SORTS:
        return lambda row: getattr(row, sort) or ""
    return None


def select(rows: list[RunRow], query: Query) -> Page:
    """The page ``query`` asks for. Rows without a value for a numeric sort key go last in
    either order; an unknown sort key keeps plan order."""
    chosen = [
        row
        for row in rows
        if (not query.status or row.status == query.status)
        and (not query.case or row.case == query.case)
        and (not query.variant or row.variant == query.variant)
        and (not query.repeat or str(row.repeat) == query.repeat)
        and (not query.error or (row.error or "") == query.error)
    ]
    value = _sort_key(query.where) if query.where in NUMERIC or ":" in query.where else None
    if value is not None and (query.low is not None or query.high is not None):
        low = -math.inf if query.low is None else query.low
        high = math.inf if query.high is None else query.high
        chosen = [row for row in chosen if (v := value(row)) is not None and low <= v <= high]
    key = _sort_key(query.sort)
    if key is not None:
        present = [row for row in chosen if key(row) is not None]
        absent = [row for row in chosen if key(row) is None]
        chosen = sorted(present, key=key, reverse=query.descending) + absent
    size = max(1, min(query.size, MAX_PAGE_SIZE))
    pages = max(1, math.ceil(len(chosen) / size))
    page = min(max(1, query.page), pages)
    return Page(
        rows=chosen[(page - 1) * size : page * size], total=len(chosen), page=page, pages=pages
    )


def choices(rows: list[RunRow]) -> dict[str, list[str]]:
    """The distinct values of each filterable column, for the filter menus: sorted, except
    variants, in plan order (the spec's order, so the first is the usual baseline)."""
    return {
        "status": sorted({row.status for row in rows}),
        "case": sorted({row.case for row in rows}),
        "variant": list(dict.fromkeys(row.variant for row in rows)),  # as the plan has them
        "repeat": sorted({str(row.repeat) for row in rows}, key=int),
        "error": sorted({row.error for row in rows if row.error}),
        "scores": sorted({name for row in rows for name in row.scores}),
        "metrics": sorted({name for row in rows for name in row.metrics}),
    }
