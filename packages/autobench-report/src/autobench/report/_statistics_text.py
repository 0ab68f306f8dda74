"""Comparison statistics as short texts, shared by the terminal and the file exports."""

from __future__ import annotations

from collections.abc import Iterator

from autobench.report._model import Comparison, ComparisonMetric, MetricStatistics, Verdict


def p_text(p: float | None) -> str:
    """A p-value for people: three decimals, ``<0.001`` below that, ``-`` for none."""
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def p_label(p: float | None) -> str:
    """``p=0.012``, ``p<0.001``, or ``p -`` without a p-value."""
    text = p_text(p)
    return f"p{text}" if text.startswith("<") else f"p={text}" if p is not None else "p -"


def verdict_text(statistics: MetricStatistics, *, note: bool = True) -> str:
    """The verdict in words: ``improved``, ``regressed (exact)`` for a delta that is the same
    on every case, ``no change (n=5)``, or with the cases needed for the observed effect when
    it was not detected (``too few cases (n=3; about 14 needed)``); then, with ``note``, the
    row's note after a semicolon (why the interval and the verdict differ)."""
    text = _verdict(statistics)
    if note and statistics.note and statistics.test != "exact":
        return f"{text}; {statistics.note}"
    return text


def _verdict(statistics: MetricStatistics) -> str:
    text = statistics.verdict.value
    if statistics.test == "exact":
        if statistics.verdict is Verdict.NO_CHANGE:
            return f"{text} (n={statistics.n})"
        return f"{text} (exact)"
    if statistics.verdict in (Verdict.IMPROVED, Verdict.REGRESSED, Verdict.CHANGED):
        return text
    if statistics.cases_needed is None:
        return f"{text} (n={statistics.n}; no effect observed)"
    return f"{text} (n={statistics.n}; about {statistics.cases_needed} needed)"


def interval_label(statistics: MetricStatistics) -> str:
    """What the interval is of, with its level: ``95% interval of the Hodges-Lehmann shift``
    (``exact delta`` for a delta that is the same on every case)."""
    if statistics.test == "exact":
        return "exact delta"
    return f"{statistics.level:.0%} interval of the {statistics.interval_of or 'mean delta'}"


def statistics_rows(comparison: Comparison) -> Iterator[ComparisonMetric]:
    """Every row with statistics: each row has its own (its aggregate's), so each is shown."""
    for metric in comparison.metrics:
        if metric.statistics is not None:
            yield metric
