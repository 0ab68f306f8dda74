"""The headline as plain lines of text, the one wording every format shows.

``headline_lines`` gives, per comparison, a title line and one line per item, then one
line for the Pareto front::

    swift -> sage (5 paired cases, 95% intervals)
      correctness +0.40 [+0.10, +0.70] improved
      cost x10.5 (+$0.0018 a case) [+$0.0016, +$0.0020] regressed
      latency +210 ms [-50 ms, +480 ms] no detectable difference
      requests +2 on every case regressed
    Pareto front (correctness, cost, latency): sage, swift; mini is beaten by sage

Numbers keep two significant digits (a ratio three), signs always shown on deltas; money in
``usd`` reads ``$``, times in seconds ``s`` (``ms`` below a second), other units follow the
number.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from autobench.report._model import Headline, HeadlineComparison, HeadlineItem, ParetoFront

HEADLINE_TITLE = "Headline"
"""The title of the block every format shows first."""

LABELS = {("cost", "mean"): "cost", ("latency", "median"): "latency"}
"""The short names of the usual cost and latency items: the mean cost of a case and the
median latency; any other item (a quality item, a ``cost total``, a ``latency p95``) is
named by its column."""


def label(kind: str, fn: str, name: str) -> str:
    """The name an item or a Pareto axis is shown under (:data:`LABELS`)."""
    return LABELS.get((kind, fn), name)


NOTHING_TO_COMPARE = "no objective, cost or latency to compare"
"""The line of a comparison without items."""

NO_VALUE = "no value on both sides"
"""The change of an item whose metric lacks a value on either side."""


class ItemParts(NamedTuple):
    """The words of one item, each kept whole when a line is broken (``""`` when absent):
    ``name``, ``change`` (``+0.40``; ``x10.5 (+$0.0018 a case)``), ``interval``
    (``[+0.10, +0.70]``), ``verdict`` (``improved``) and ``note`` (free text)."""

    name: str
    change: str
    interval: str = ""
    verdict: str = ""
    note: str = ""


def _digits(value: float, significant: int) -> str:
    """``value`` with ``significant`` significant digits, trailing zeros kept, never in
    scientific notation."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    decimals = max(0, significant - 1 - math.floor(math.log10(abs(value))))
    return f"{abs(value):,.{decimals}f}"


def quantity(value: float, unit: str | None, *, signed: bool = False) -> str:
    """``value`` in ``unit`` for people: ``$0.0018``, ``0.21 s``, ``250 ms``, ``12 tokens``;
    with ``signed``, a ``+`` or ``-`` first."""
    sign = (
        ("-" if value < 0 else "+" if value > 0 else "") if signed else ("-" if value < 0 else "")
    )
    if unit is not None and unit.casefold() == "usd":
        return f"{sign}${_digits(value, 2)}"
    if unit == "s" and value != 0 and abs(value) < 1:
        return f"{sign}{_digits(value * 1000, 2)} ms"
    number = f"{sign}{_digits(value, 2)}"
    return number if unit is None else f"{number} {unit}"


EXACT = "on every case"
"""The interval part of an item whose delta is the same on every case (no interval)."""


def interval(item: HeadlineItem) -> str:
    """``[+0.10, +0.70]``; :data:`EXACT` for an exact delta; ``""`` without an interval. When
    the delta lies outside the interval (which is of the row's own estimate, e.g. the
    Hodges-Lehmann shift), the estimate is named first:
    ``Hodges-Lehmann shift +0.35 [+0.10, +0.70]``."""
    if item.exact:
        return EXACT
    if item.ci_low is None or item.ci_high is None:
        return ""
    low = quantity(item.ci_low, item.unit, signed=True)
    high = quantity(item.ci_high, item.unit, signed=True)
    bounds = f"[{low}, {high}]"
    outside = item.delta is not None and not item.ci_low <= item.delta <= item.ci_high
    if outside and item.estimate is not None and item.interval_of:
        return f"{item.interval_of} {quantity(item.estimate, item.unit, signed=True)} {bounds}"
    return bounds


def item_parts(item: HeadlineItem) -> ItemParts:
    """The words of ``item`` (:class:`ItemParts`); an item without a delta reads
    :data:`NO_VALUE` as its change."""
    name = label(item.kind, item.fn, item.name)
    if item.delta is None:
        return ItemParts(name, NO_VALUE)
    if item.kind == "pairwise":
        return _pairwise_parts(name, item)
    if item.kind == "cost" and item.ratio is not None:
        per = {"mean": "a case", "per_pass": "a pass", "sum": "in total"}.get(item.fn, item.fn)
        delta = quantity(item.delta, item.unit, signed=True)
        change = f"x{_digits(item.ratio, 3)} ({delta} {per})"
    else:
        change = quantity(item.delta, item.unit, signed=True)
    verdict = "" if item.verdict is None else item.verdict.value
    # an exact item says all its note would (the delta is the same on every case)
    note = "" if item.exact else item.note or ""
    return ItemParts(name, change, interval(item), verdict, note)


def _pairwise_parts(name: str, item: HeadlineItem) -> ItemParts:
    """A pairwise item: the candidate's win rate and its interval in percent
    (``wins 75% [47%, 91%]``); ties, losses and the order flips in the note."""
    bounds = ""
    if item.ci_low is not None and item.ci_high is not None:
        bounds = f"[{item.ci_low:.0%}, {item.ci_high:.0%}]"
    assert item.delta is not None
    verdict = "" if item.verdict is None else item.verdict.value
    return ItemParts(name, f"wins {item.delta:.0%}", bounds, verdict, item.note or "")


def item_text(item: HeadlineItem) -> str:
    """One item: name, change, interval, verdict and, when there is one, the note."""
    parts = item_parts(item)
    if parts.change == NO_VALUE:
        return f"{parts.name}: {parts.change}"
    text = " ".join(part for part in parts[:4] if part)
    return f"{text} ({parts.note})" if parts.note else text


def comparison_title(comparison: HeadlineComparison, level: float | None = None) -> str:
    """``baseline -> candidate (5 paired cases, 95% intervals)``; says when the comparison is
    confounded (more than one factor changed)."""
    notes = [f"{comparison.paired_cases} paired case{'s' if comparison.paired_cases != 1 else ''}"]
    if level is not None:
        notes.append(f"{level:.0%} intervals")
    if comparison.confounded:
        notes.append("several factors changed: associations, not effects")
    return f"{comparison.baseline} -> {comparison.candidate} ({', '.join(notes)})"


def pareto_text(front: ParetoFront) -> str:
    """``Pareto front (correctness, cost, latency): a, b; c is beaten by a``."""
    axes = ", ".join(label(axis.kind, axis.fn, axis.name) for axis in front.axes)
    text = f"Pareto front ({axes}): {', '.join(front.front)}"
    beaten = [f"{variant} is beaten by {', '.join(by)}" for variant, by in front.dominated.items()]
    return f"{text}; {'; '.join(beaten)}" if beaten else text


def comparison_level(comparison: HeadlineComparison) -> float | None:
    """The confidence level of the comparison's intervals (``None``: nothing was tested)."""
    return next((item.level for item in comparison.items if item.level is not None), None)


def headline_lines(headline: Headline) -> list[str]:
    """The whole headline (module docstring); ``[]`` when it holds nothing."""
    lines: list[str] = []
    for comparison in headline.comparisons:
        lines.append(comparison_title(comparison, comparison_level(comparison)))
        lines.extend(f"  {item_text(item)}" for item in comparison.items)
        if not comparison.items:
            lines.append(f"  {NOTHING_TO_COMPARE}")
    if headline.pareto is not None:
        lines.append(pareto_text(headline.pareto))
    return lines
