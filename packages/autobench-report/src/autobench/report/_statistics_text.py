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


def verdict_text(statistics: MetricStatistics) -> str:
    """The verdict, with the cases needed for the observed effect when it was not
    detected (``too few cases (n=3; about 14 needed)``)."""
    text = statistics.verdict.value
    if statistics.verdict in (Verdict.IMPROVED, Verdict.REGRESSED, Verdict.CHANGED):
        return text
    if statistics.cases_needed is None:
        return f"{text} (n={statistics.n}; no effect observed)"
    return f"{text} (n={statistics.n}; about {statistics.cases_needed} needed)"


def statistics_rows(comparison: Comparison) -> Iterator[ComparisonMetric]:
    """The first tested metric of each semantic type: the statistics are per type (per-case
    values), shared by every aggregate column of it, so each is shown once."""
    seen: set[str] = set()
    for metric in comparison.metrics:
        if metric.statistics is not None and metric.semantic_type not in seen:
            seen.add(metric.semantic_type)
            yield metric
