"""The regression rule every gate shares: ``autobench compare --fail-on regressed``,
``--fail-on regressed`` of ``run`` and ``report``, the ``github`` summary and the pytest
plugin's baseline items all call a metric regressed by :func:`interval_regressed`."""

from __future__ import annotations

from collections.abc import Iterable

from autobench.records import Direction
from autobench.report._model import Comparison, MetricStatistics, Verdict
from autobench.report._statistics_text import p_label


def interval_regressed(statistics: MetricStatistics) -> bool:
    """Whether the verdict is ``regressed`` and the confidence interval of the mean
    per-case delta lies wholly on the worse side of zero: its bound nearest zero is below
    zero for a metric to maximize, above zero for one to minimize."""
    if statistics.verdict is not Verdict.REGRESSED or statistics.direction is None:
        return False
    if statistics.direction is Direction.MAXIMIZE:
        return statistics.ci_high is not None and statistics.ci_high < 0
    return statistics.ci_low is not None and statistics.ci_low > 0


def regressions(comparisons: Iterable[Comparison]) -> list[str]:
    """One line per metric that regressed by :func:`interval_regressed` (verdict
    ``regressed`` after Holm's adjustment, and an interval wholly on the worse side), for
    ``--fail-on regressed``."""
    return [
        f"{item.baseline} -> {item.candidate}: {metric.name} regressed "
        f"({p_label(metric.statistics.p_adjusted)} after Holm; "
        f"{metric.statistics.level:.0%} interval "
        f"[{metric.statistics.ci_low:+.6g}, {metric.statistics.ci_high:+.6g}])"
        for item in comparisons
        for metric in item.metrics
        if metric.statistics is not None and interval_regressed(metric.statistics)
    ]
