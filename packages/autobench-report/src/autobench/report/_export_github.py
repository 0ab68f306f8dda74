"""The ``github`` export: a compact Markdown summary for ``$GITHUB_STEP_SUMMARY`` and a
pull-request comment.

In reading order: a title line with the outcome, the run counts, what regressed (against
the ``baseline`` record when one is given, else in the spec's own comparisons), the headline
(each comparison's answer, regressions first), per-metric deltas with their intervals and
verdicts (regressions first), cost and latency per variant, policies, flaky cases, the runs
that did not pass, and the names of the HTML report and record artifacts.

The text is at most :data:`SUMMARY_LIMIT` characters whatever the record's size: every table
keeps the rows that fit (and at most a fixed number) and ends with a line saying how many
more the HTML report holds. A regression is what ``--fail-on regressed`` calls one
(:func:`~autobench.report._regressions.interval_regressed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from autobench.abp import AutobenchError
from autobench.records import ExperimentResult, RunStatus, Semantic, aggregate, replay_experiment
from autobench.report._experiments import compare_experiments
from autobench.report._export_markdown import inline
from autobench.report._format import metric_label, value_text
from autobench.report._headline_text import (
    comparison_level,
    comparison_title,
    item_text,
    label,
)
from autobench.report._model import (
    Comparison,
    ComparisonMetric,
    ExperimentComparison,
    HeadlineComparison,
    HeadlineItem,
    Report,
    Verdict,
)
from autobench.report._regressions import interval_regressed, regressions
from autobench.report._statistics_text import p_text, verdict_text
from autobench.report._summary_budget import Budget

SUMMARY_LIMIT = 65_000
"""Most characters a summary has: under GitHub's 65,536 for a comment body."""

MAX_ROWS = 25
"""Most rows of one table (the HTML report has them all)."""

_ORDER = {Verdict.REGRESSED: 0, Verdict.CHANGED: 1, Verdict.IMPROVED: 2}


class BaselineRecordError(AutobenchError):
    """The ``baseline`` option names no readable record directory."""


@dataclass(frozen=True)
class GithubOptions:
    """What ``--export-option KEY=VALUE`` sets (see :data:`GithubExporter.options`)."""

    baseline: str | None = None
    html_artifact: str = "autobench-report"
    record_artifact: str = "autobench-record"
    artifacts_url: str | None = None
    limit: int = SUMMARY_LIMIT


def _rank(metric: ComparisonMetric) -> tuple[int, float]:
    stats = metric.statistics
    if stats is None:
        return (4, 1.0)
    first = 0 if interval_regressed(stats) else 1 + _ORDER.get(stats.verdict, 3)
    return (first, stats.p_adjusted if stats.p_adjusted is not None else 1.0)


def _item_rank(item: HeadlineItem) -> int:
    return _ORDER.get(item.verdict, 3) if item.verdict is not None else 4


def code(text: str) -> str:
    """``text`` as an inline code span (backslashes are literal there, so nothing is
    escaped; a backtick becomes a quote)."""
    return "`" + text.replace("`", "'").replace("\n", " ") + "`"


def _interval(metric: ComparisonMetric) -> str:
    stats = metric.statistics
    if stats is None or stats.ci_low is None or stats.ci_high is None:
        return "-"
    if stats.test == "exact":
        return "exact"
    return f"{stats.level:.0%} [{stats.ci_low:+.4g}, {stats.ci_high:+.4g}]"


def _delta(metric: ComparisonMetric) -> str:
    if metric.delta is None:
        return "no value"
    text = f"{metric.delta:+.4g}"
    return f"{text} ({metric.relative:+.1%})" if metric.relative is not None else text


def _metric_rows(comparisons: Sequence[Comparison]) -> list[list[str]]:
    """One row per tested metric of every comparison, regressions first (then changed,
    improved, the rest), each group by adjusted p."""
    rows = [
        (comparison, metric)
        for comparison in comparisons
        for metric in comparison.metrics
        if metric.statistics is not None and metric.statistics.verdict is not Verdict.NO_CHANGE
    ]
    rows.sort(key=lambda pair: _rank(pair[1]))
    table = []
    for comparison, metric in rows:
        stats = metric.statistics
        assert stats is not None
        verdict = verdict_text(stats, note=False)
        if interval_regressed(stats):
            verdict = f"REGRESSED ({verdict})"
        table.append(
            [
                f"{comparison.baseline} -> {comparison.candidate}",
                metric_label(metric.semantic_type, metric.unit) + f" ({metric.fn})",
                value_text(metric.baseline.value) or "no value",
                value_text(metric.candidate.value) or "no value",
                _delta(metric),
                _interval(metric),
                p_text(stats.p_adjusted),
                verdict,
            ]
        )
    return table


def _unchanged(comparisons: Sequence[Comparison]) -> int:
    """How many tested rows have the same value on every paired case."""
    return sum(
        metric.statistics is not None and metric.statistics.verdict is Verdict.NO_CHANGE
        for comparison in comparisons
        for metric in comparison.metrics
    )


def _headline_items(comparisons: Sequence[HeadlineComparison]) -> list[str]:
    """Each comparison's items, regressions first; the items that are the same on every
    case are named together in one line."""
    items: list[str] = []
    for comparison in comparisons:
        title = f"**{inline(comparison_title(comparison, comparison_level(comparison)))}**"
        same = [i for i in comparison.items if i.verdict is Verdict.NO_CHANGE]
        for item in sorted(comparison.items, key=_item_rank):
            if item.verdict is not Verdict.NO_CHANGE:
                items.append(f"{title}: {inline(item_text(item))}")
        if same:
            names = ", ".join(label(i.kind, i.fn, i.name) for i in same)
            items.append(f"{title}: no change on any case in {inline(names)}")
    return items


def _cost_latency_rows(report: Report) -> list[list[str]]:
    """Per variant: runs, pass rate, total and mean cost per run, median and p95 latency
    (canonical units; ``-`` where the runs recorded none)."""
    rows = []
    table = report.run_rows  # read as columns: no row model per run
    all_costs = table.values(Semantic.MONEY_COST)
    all_latencies = table.values(Semantic.TIME_LATENCY)
    for variant in report.variants:
        runs = [i for i, variant_id in enumerate(table.variant_ids) if variant_id == variant.id]
        passed = sum(table.statuses[i] is RunStatus.PASSED for i in runs)
        costs = [all_costs[i] for i in runs]
        latencies = [all_latencies[i] for i in runs]

        def _agg(fn: str, values: list[object]) -> str:
            present = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
            if not present:
                return "-"
            return value_text(aggregate(fn, present).value)

        rows.append(
            [
                variant.id,
                str(len(runs)),
                f"{passed / len(runs):.0%}" if runs else "-",
                _agg("sum", costs),
                _agg("mean", costs),
                _agg("median", latencies),
                _agg("p95", latencies),
            ]
        )
    return rows


def _units(report: Report) -> tuple[str, str]:
    cost = report.metric_units.get(Semantic.MONEY_COST) or "?"
    latency = report.metric_units.get(Semantic.TIME_LATENCY) or "?"
    return cost, latency


def _flaky(report: Report) -> list[str]:
    if report.reliability is None:
        return []
    items = []
    for variant in report.reliability.variants:
        for case in variant.by_case:
            if case.flaky:
                items.append(
                    f"{code(case.case)} on {code(variant.variant)}: "
                    f"passed {case.passed} of {case.runs} repeats"
                )
    return items


def _problems(report: Report) -> list[list[str]]:
    """Runs that did not pass, the repeats of a case that ended alike folded into one row
    (``runs`` counts them); errored runs first, then plan order."""
    folded: dict[tuple[str, str, str, str], int] = {}
    runs = report.run_rows  # read as columns: no row model per run
    for i, status in enumerate(runs.statuses):
        if status is not RunStatus.PASSED:
            key = (runs.case_ids[i], runs.variant_ids[i], status.value, runs.reason(i) or "")
            folded[key] = folded.get(key, 0) + 1
    rows = [
        [case, variant, status, str(n), reason]
        for (case, variant, status, reason), n in folded.items()
    ]
    rows.sort(key=lambda row: row[2] != RunStatus.ERRORED.value)
    return rows


def _baseline_comparison(
    directory: str | None, result: ExperimentResult
) -> ExperimentComparison | None:
    if directory is None:
        return None
    path = Path(directory)
    if not (path / "experiment.yaml").is_file():
        raise BaselineRecordError(
            f"baseline {directory!r} is not a record directory (no experiment.yaml)"
        )
    baseline = replay_experiment(path, evidence_only=True)
    return compare_experiments(baseline, result)


def render_github(
    report: Report, result: ExperimentResult, options: GithubOptions = GithubOptions()
) -> str:
    """The summary of ``report`` (module docstring) as Markdown of at most
    ``options.limit`` characters. With ``options.baseline`` (a record directory), the
    experiment is compared against that record first (:func:`compare_experiments`).
    Raises :class:`BaselineRecordError` when the baseline is not a record directory."""
    across = _baseline_comparison(options.baseline, result)
    footer = _footer(options)
    budget = Budget(options.limit, reserve=sum(len(line) + 1 for line in footer) + 1)
    comparisons = list(report.comparisons)
    across_comparisons = list(across.comparisons) if across is not None else []
    # Against a baseline, a regression is a change since the baseline; the spec's own
    # comparisons (variant against variant) are trade-offs shown below, not regressions.
    found = regressions(across_comparisons if across is not None else comparisons)
    status = report.status
    if found or status.errored or report.missing_runs:
        mark = ":x:"
    elif status.failed:
        mark = ":warning:"
    else:
        mark = ":white_check_mark:"
    budget.add([f"## {mark} {inline(report.benchmark)}", ""])
    counts = (
        f"**{report.runs}** of {report.planned} planned runs: {status.passed} passed, "
        f"{status.failed} failed, {status.errored} errored, {status.skipped} skipped"
    )
    if report.missing_runs:
        counts += f"; {len(report.missing_runs)} missing"
    budget.add([counts + f". Experiment {code(report.experiment)}.", ""])
    if report.cassette is not None:
        use = report.cassette
        budget.add(
            [
                f"Cassettes: {use.mode}; {use.replayed_requests} requests replayed, "
                f"{use.sent_requests} sent.",
                "",
            ]
        )
    if found:
        budget.bullets(
            [f"### :warning: {len(found)} regression{'s' if len(found) != 1 else ''}", ""],
            [inline(line) for line in found],
            max_items=MAX_ROWS,
            more="more regressions",
        )
    if across is not None:
        _against_baseline(budget, across, options)
    headline = [*(across.headline.comparisons if across else ()), *report.headline.comparisons]
    items = _headline_items(headline)
    if items:
        budget.bullets(["### Headline", ""], items, max_items=MAX_ROWS, more="more headline items")
    rows = _metric_rows([*across_comparisons, *comparisons])
    unchanged = _unchanged([*across_comparisons, *comparisons])
    if rows:
        note = "Candidate minus baseline over paired cases; p Holm-adjusted."
        if unchanged:
            note += f" {unchanged} more rows are the same on every case."
        budget.section(
            ["### Deltas", "", note, ""],
            ["comparison", "metric", "baseline", "candidate", "delta", "interval", "p", "verdict"],
            rows,
            max_rows=MAX_ROWS,
        )
    cost, latency = _units(report)
    budget.section(
        ["### Cost and latency", ""],
        [
            "variant",
            "runs",
            "passed",
            f"cost [{cost}]",
            f"cost per run [{cost}]",
            f"median latency [{latency}]",
            f"p95 latency [{latency}]",
        ],
        _cost_latency_rows(report),
        max_rows=MAX_ROWS,
        more="more variants are in the HTML report",
    )
    if report.policies:
        variants = [variant.id for variant in report.variants]
        budget.section(
            ["### Policies", ""],
            ["policy", *variants],
            [
                [
                    policy.name,
                    *(
                        f"{policy.passed.get(v, 0)}/{policy.passed.get(v, 0) + policy.failed.get(v, 0)}"
                        for v in variants
                    ),
                ]
                for policy in sorted(report.policies, key=lambda p: -sum(p.failed.values()))
            ],
            max_rows=MAX_ROWS,
        )
    flaky = _flaky(report)
    if flaky:
        budget.bullets(
            [f"### Flaky cases ({len(flaky)})", ""],
            flaky,
            max_items=MAX_ROWS,
            more="more flaky cases",
        )
    problems = _problems(report)
    if problems:
        runs = sum(int(row[3]) for row in problems)
        budget.section(
            [f"### Runs that did not pass ({runs:,})", ""],
            ["case", "variant", "status", "runs", "reason"],
            problems,
            max_rows=MAX_ROWS,
        )
    return budget.finish(footer)


def _against_baseline(budget: Budget, across: ExperimentComparison, options: GithubOptions) -> None:
    lines = [
        "### Against the baseline",
        "",
        f"{code(across.candidate_experiment)} against "
        f"{code(across.baseline_experiment)} ({code(options.baseline or '')}), "
        "paired by case and variant.",
    ]
    if across.changed:
        changed = ", ".join(code(item) for item in across.changed[:10])
        more = f" and {len(across.changed) - 10} more" if len(across.changed) > 10 else ""
        lines.append(f"Changed since the baseline: {changed}{more}.")
    for title, ids in (
        ("Variants only in the baseline", across.variants_only_in_baseline),
        ("Variants only in this run", across.variants_only_in_candidate),
        ("Cases only in the baseline", across.cases_only_in_baseline),
        ("Cases only in this run", across.cases_only_in_candidate),
    ):
        if ids:
            shown = ", ".join(code(i) for i in ids[:10])
            more = f" and {len(ids) - 10} more" if len(ids) > 10 else ""
            lines.append(f"{title}: {shown}{more}.")
    budget.add_within([*lines, ""])


def _footer(options: GithubOptions) -> list[str]:
    html = code(options.html_artifact)
    record = code(options.record_artifact)
    where = (
        f" of [this workflow run](<{options.artifacts_url}>)"
        if options.artifacts_url
        else " of this workflow run"
    )
    return [
        "---",
        f"Full report: artifact {html}; record: artifact {record}{where}. "
        "`autobench report DIR` shows the record again.",
    ]


class GithubExporter:
    """``github``: a compact summary for ``$GITHUB_STEP_SUMMARY`` and pull-request comments
    (module docstring). Options, through ``--export-option KEY=VALUE``: :data:`options`."""

    name = "github"
    extension = "md"
    description = "Compact Markdown summary for a GitHub step summary or pull-request comment."
    options: Mapping[str, str] = {
        "baseline": "a record directory to compare against (the comparison form)",
        "html-artifact": "name of the HTML report artifact (default autobench-report)",
        "record-artifact": "name of the record artifact (default autobench-record)",
        "artifacts-url": "link to where the artifacts are (the workflow run's page)",
    }

    def __init__(self, settings: GithubOptions = GithubOptions()) -> None:
        self.settings = settings

    def with_options(self, values: Mapping[str, str]) -> GithubExporter:
        """This exporter with ``values`` (keys of :data:`options`) set."""
        fields: dict[str, Any] = {key.replace("-", "_"): value for key, value in values.items()}
        return GithubExporter(replace(self.settings, **fields))

    def export(self, report: Report, result: ExperimentResult) -> str:
        return render_github(report, result, self.settings)
