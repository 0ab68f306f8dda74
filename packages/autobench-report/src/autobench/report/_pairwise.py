"""Pairwise judging in the report: win/tie/loss rates with intervals, a sign test, and the
judge's position bias, from the pairwise records stored beside an experiment
(``autobench judge pairwise``, :mod:`autobench.records._pairwise_record`).

* **Rates.** Of the cases with an outcome (both orders answered), the candidate's share of
  wins, ties and losses, each with a Wilson score interval (Wilson 1927, *JASA* 22:209;
  ``scipy._stats().binomtest(...).proportion_ci(method="wilson")``), which keeps inside
  [0, 1] and behaves at 0 and n, unlike the normal approximation.
* **Verdict.** A two-sided sign test of wins against losses, ties left out (Dixon & Mood
  1946, *JASA* 41:557): under "neither is better" each decided case is a win with
  probability 1/2, so wins ~ Binomial(wins + losses, 1/2) (``scipy._stats().binomtest``).
  ``improved`` when p < 1 - level and wins outnumber losses, ``regressed`` when losses do,
  else ``no detectable difference``.
* **Position bias.** ``flip_rate``: of the cases whose two orders both answered, the share
  where the preferred *variant* differs between the orders (a consistent judge never
  flips); ``first_wins``: of the order answers that named a winner (not a tie), the share
  that chose the response shown first (0.5 for a judge without position bias), with its
  Wilson interval.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from pydantic import ConfigDict

from autobench.records import ExperimentResult, PairwiseRecord, Semantic, pairwise_records
from autobench.report._model import Headline, HeadlineComparison, HeadlineItem, ReportModel, Verdict


def _stats() -> Any:
    """``scipy.stats``, imported when a pairwise record is summarised (importing the report
    stays cheap)."""
    return importlib.import_module("scipy.stats")


PAIRWISE_KIND = "pairwise"
"""The ``kind`` of a pairwise headline item."""
PAIRWISE_SEMANTIC = "judge.pairwise.win_rate"
"""The ``semantic_type`` of a pairwise headline item (the candidate's win rate)."""


class Rate(ReportModel):
    """``count`` of ``total``, ``value`` their ratio and ``[low, high]`` its Wilson
    interval (``None`` for ``total == 0``)."""

    model_config = ConfigDict(defer_build=True)

    count: int
    total: int
    value: float | None = None
    low: float | None = None
    high: float | None = None


class PairwiseSummary(ReportModel):
    """What one pairwise judging says (module docstring): the pair, the judge, the cases
    judged (``errored``: cases without an outcome), win/tie/loss counts and rates, the
    sign test's ``p_value`` (``None`` without a decided case) and ``verdict`` at ``level``,
    the position bias (``flips`` of ``consistent_total`` cases; ``first_wins``), and the
    judge's spend (``judge_requests``, ``judge_tokens``, ``judge_cost`` in USD or ``None``
    when unpriced)."""

    model_config = ConfigDict(defer_build=True)

    judge: str
    baseline: str
    candidate: str
    path: str | None = None
    cases: int
    errored: int = 0
    wins: int = 0
    ties: int = 0
    losses: int = 0
    win_rate: Rate
    tie_rate: Rate
    loss_rate: Rate
    level: float
    p_value: float | None = None
    verdict: Verdict
    flips: int = 0
    answered: int = 0
    flip_rate: float | None = None
    first_wins_rate: Rate
    judge_requests: int = 0
    judge_tokens: int = 0
    judge_cost: float | None = None

    @property
    def first_wins(self) -> float | None:
        """The share of decided order answers that chose the response shown first."""
        return self.first_wins_rate.value


def rate(count: int, total: int, level: float) -> Rate:
    """:class:`Rate` of ``count`` of ``total`` with its Wilson interval at ``level``."""
    if total == 0:
        return Rate(count=count, total=total)
    ci = _stats().binomtest(count, total).proportion_ci(confidence_level=level, method="wilson")
    return Rate(
        count=count, total=total, value=count / total, low=float(ci.low), high=float(ci.high)
    )


def pairwise_summary(record: PairwiseRecord, *, level: float = 0.95) -> PairwiseSummary:
    """The summary of ``record`` (module docstring). Raises ``ValueError`` for a ``level``
    outside (0, 1)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), not {level}")
    lineage = record.lineage
    outcomes = [case.outcome for case in record.cases if case.outcome is not None]
    wins, ties, losses = (outcomes.count(kind) for kind in ("win", "tie", "loss"))
    decided = wins + losses
    p_value = float(_stats().binomtest(wins, decided, 0.5).pvalue) if decided else None
    verdict = Verdict.NO_DIFFERENCE
    if p_value is not None and p_value < 1 - level and wins != losses:
        verdict = Verdict.IMPROVED if wins > losses else Verdict.REGRESSED
    answered = [case for case in record.cases if all(o.winner for o in case.orders)]
    flips = sum(1 for case in answered if len({o.preferred for o in case.orders}) > 1)
    named = [
        o.winner for case in record.cases for o in case.orders if o.winner in ("first", "second")
    ]
    requests = tokens = 0
    cost: float | None = None
    for case in record.cases:
        for item in case.observations:
            if not isinstance(item.value, int | float):
                continue
            if item.semantic_type == Semantic.JUDGE_REQUEST_COUNT:
                requests += int(item.value)
            elif item.semantic_type in (Semantic.JUDGE_TOKENS_INPUT, Semantic.JUDGE_TOKENS_OUTPUT):
                tokens += int(item.value)
            elif item.semantic_type == Semantic.JUDGE_COST:
                cost = (cost or 0.0) + float(item.value)
    total = len(outcomes)
    return PairwiseSummary(
        judge=lineage.judge.name,
        baseline=lineage.baseline,
        candidate=lineage.candidate,
        path=record.path,
        cases=len(record.cases),
        errored=len(record.cases) - total,
        wins=wins,
        ties=ties,
        losses=losses,
        win_rate=rate(wins, total, level),
        tie_rate=rate(ties, total, level),
        loss_rate=rate(losses, total, level),
        level=level,
        p_value=p_value,
        verdict=verdict,
        flips=flips,
        answered=len(answered),
        flip_rate=flips / len(answered) if answered else None,
        first_wins_rate=rate(named.count("first"), len(named), level),
        judge_requests=requests,
        judge_tokens=tokens,
        judge_cost=cost,
    )


def stored_pairwise(
    result: ExperimentResult, *, level: float = 0.95
) -> tuple[PairwiseSummary, ...]:
    """The summaries of the pairwise records stored beside ``result``'s record (empty
    without a record directory). Raises the records' ``RecordFormatError`` for a damaged one."""
    if result.root_dir is None:
        return ()
    return tuple(
        pairwise_summary(record, level=level) for record in pairwise_records(Path(result.root_dir))
    )


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def pairwise_item(summary: PairwiseSummary) -> HeadlineItem:
    """The headline item of ``summary``: the candidate's win rate, its Wilson interval and
    the sign test's verdict; the note gives ties, losses and the order flips."""
    flips = (
        ""
        if summary.flip_rate is None
        else f"; the order flips the verdict on {_percent(summary.flip_rate)}"
    )
    return HeadlineItem(
        kind=PAIRWISE_KIND,
        name=f"{summary.judge} (pairwise)",
        semantic_type=PAIRWISE_SEMANTIC,
        fn="win_rate",
        delta=summary.win_rate.value,
        estimate=summary.win_rate.value,
        interval_of="win rate (Wilson)",
        ci_low=summary.win_rate.low,
        ci_high=summary.win_rate.high,
        level=summary.level,
        verdict=summary.verdict,
        note=(
            f"ties {_percent(summary.tie_rate.value)}, losses {_percent(summary.loss_rate.value)} "
            f"of {summary.win_rate.total} cases{flips}"
        ),
    )


def with_pairwise(headline: Headline, summaries: tuple[PairwiseSummary, ...]) -> Headline:
    """``headline`` with a pairwise item in the comparison of each summary's pair (a new
    comparison of that pair, with that item alone, when the headline has none)."""
    if not summaries:
        return headline
    comparisons = list(headline.comparisons)
    for summary in summaries:
        item = pairwise_item(summary)
        for index, comparison in enumerate(comparisons):
            if (comparison.baseline, comparison.candidate) == (summary.baseline, summary.candidate):
                comparisons[index] = comparison.model_copy(
                    update={"items": (*comparison.items, item)}
                )
                break
        else:
            comparisons.append(
                HeadlineComparison(
                    baseline=summary.baseline,
                    candidate=summary.candidate,
                    paired_cases=summary.cases,
                    items=(item,),
                )
            )
    return headline.model_copy(update={"comparisons": tuple(comparisons)})


def pairwise_lines(summary: PairwiseSummary) -> list[str]:
    """The summary in plain lines for the terminal."""
    level = f"{summary.level:.0%}"

    def shown(name: str, item: Rate) -> str:
        if item.value is None:
            return f"{name} {item.count}"
        return f"{name} {item.count} ({_percent(item.value)}, {level} Wilson [{_percent(item.low)}, {_percent(item.high)}])"

    lines = [
        f"{summary.baseline} -> {summary.candidate}, judged pairwise by {summary.judge} "
        f"({summary.cases} cases, both orders)",
        "  "
        + "; ".join(
            shown(name, item)
            for name, item in (
                ("wins", summary.win_rate),
                ("ties", summary.tie_rate),
                ("losses", summary.loss_rate),
            )
        ),
    ]
    if summary.p_value is None:
        lines.append(
            f"  {summary.verdict.value} (no case decided either way: sign test not possible)"
        )
    else:
        lines.append(
            f"  {summary.verdict.value} (sign test, wins vs losses without ties: p = {summary.p_value:.3g})"
        )
    if summary.errored:
        lines.append(f"  {summary.errored} cases without an outcome (a judge call failed)")
    if summary.flip_rate is not None:
        first = summary.first_wins_rate
        bias = (
            f"  position bias: the verdict flips with the order on {summary.flips} of "
            f"{summary.answered} cases ({_percent(summary.flip_rate)})"
        )
        if first.value is not None:
            bias += (
                f"; first shown wins {_percent(first.value)} of {first.total} decided answers "
                f"({level} Wilson [{_percent(first.low)}, {_percent(first.high)}]; 50% is unbiased)"
            )
        lines.append(bias)
    spend = f"  judge spend (apart from the application's): {summary.judge_requests} requests, {summary.judge_tokens} tokens"
    if summary.judge_cost is not None:
        spend += f", ${summary.judge_cost:.4g}"
    lines.append(spend)
    return lines
