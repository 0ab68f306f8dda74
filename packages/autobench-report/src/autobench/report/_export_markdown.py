"""The ``markdown`` export: the report as headings and GitHub-flavoured pipe tables.

Sections: the headline (each comparison's answer and the Pareto front, in the words of
:mod:`autobench.report._headline_text`), status, variants, leaderboard, case matrix,
comparisons, distributions, runs that did not pass, diagnostics. Aggregates show their
``n`` (``0.812 (n=3/4)``, ``no value (n=0/4)``). A matrix cell shows the value,
followed by the run's status when it did not pass (an errored run shows just
``errored``). Cell text escapes ``|`` and folds line breaks.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.records import ExperimentResult, RunStatus
from autobench.report._calibration_text import calibration_markdown
from autobench.report._format import aggregate_text, column_label, metric_label, value_text
from autobench.report._headline_text import (
    HEADLINE_TITLE,
    NOTHING_TO_COMPARE,
    comparison_level,
    comparison_title,
    item_text,
    pareto_text,
)
from autobench.report._model import (
    CaseMatrix,
    Comparison,
    ComparisonMetric,
    Distribution,
    Headline,
    MatrixCell,
    Report,
)
from autobench.report._reliability_markdown import reliability_markdown
from autobench.report._statistics_text import p_text, statistics_rows, verdict_text


def escape(text: str) -> str:
    """Cell text: ``|`` escaped, line breaks as ``<br>``."""
    return (
        text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")
    )


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A pipe table (cells escaped)."""
    lines = [
        "| " + " | ".join(escape(h) for h in header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
    ]
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


_INLINE = str.maketrans({char: f"\\{char}" for char in "\\`*_[]<>$|#"})


def inline(text: str) -> str:
    """Running text with Markdown's inline markup characters escaped (``$`` too: GitHub
    reads a pair of dollars as mathematics)."""
    return text.translate(_INLINE)


def headline_markdown(headline: Headline) -> list[str]:
    """The headline as a section: per comparison its title and one bullet per item, then
    the Pareto front; ``[]`` when the headline holds nothing."""
    if not headline.comparisons and headline.pareto is None:
        return []
    lines = [f"## {HEADLINE_TITLE}", ""]
    for comparison in headline.comparisons:
        lines += [f"**{inline(comparison_title(comparison, comparison_level(comparison)))}**", ""]
        items = [item_text(item) for item in comparison.items] or [NOTHING_TO_COMPARE]
        lines += [f"- {inline(text)}" for text in items] + [""]
    if headline.pareto is not None:
        lines += [inline(pareto_text(headline.pareto)), ""]
    return lines


def _matrix_cell(cell: MatrixCell | None) -> str:
    if cell is None or cell.status is None:
        return "no run"
    text = value_text(cell.value)
    if cell.status is RunStatus.PASSED:
        return text
    return f"{text} ({cell.status.value})" if text else cell.status.value


def _matrix(matrix: CaseMatrix) -> list[str]:
    lines = [f"## Case matrix: {metric_label(matrix.semantic_type, matrix.unit)}", ""]
    rows = [
        [case, *(_matrix_cell(matrix.cells.get(case, {}).get(v)) for v in matrix.variants)]
        for case in matrix.cases
    ]
    return lines + table(["case", *matrix.variants], rows)


def _comparison(item: Comparison) -> list[str]:
    lines = [f"## Comparison: {item.baseline} -> {item.candidate}", ""]
    lines.append(
        f"Paired cases: {len(item.paired_cases)}. Confounded: "
        f"{'yes' if item.confounded else 'no'}. Deltas are candidate minus baseline over "
        "the paired cases; they describe differences, not their causes."
    )
    lines.append("")
    if item.changed_factors:
        lines += table(
            ["factor", item.baseline, item.candidate],
            [
                [
                    change.name,
                    "(absent)" if change.only_in == "candidate" else value_text(change.baseline),
                    "(absent)" if change.only_in == "baseline" else value_text(change.candidate),
                ]
                for change in item.changed_factors
            ],
        )
    else:
        lines += ["No factor differs.", ""]
    if item.metrics:
        lines += table(
            ["metric", item.baseline, item.candidate, "delta"],
            [
                [
                    column_label(m.name, m.fn, m.semantic_type, m.unit),
                    aggregate_text(m.baseline),
                    aggregate_text(m.candidate),
                    "no value" if m.delta is None else value_text(m.delta),
                ]
                for m in item.metrics
            ],
        )
    tested = list(statistics_rows(item))
    if tested:
        lines += table(
            ["metric", "cases", "mean delta", "interval", "test", "p", "p (Holm)", "verdict"],
            [_statistics_row(m) for m in tested],
        )
    if item.unpaired:
        lines += table(["unpaired case", "reason"], [[u.case, u.reason] for u in item.unpaired])
    return lines


def _statistics_row(metric: ComparisonMetric) -> list[str]:
    stats = metric.statistics
    assert stats is not None
    interval = (
        "-"
        if stats.ci_low is None or stats.ci_high is None
        else f"{stats.level:.0%}: [{value_text(stats.ci_low)}, {value_text(stats.ci_high)}]"
    )
    return [
        metric_label(metric.semantic_type, metric.unit),
        str(stats.n),
        "-" if stats.mean_delta is None else value_text(stats.mean_delta),
        interval,
        stats.test,
        p_text(stats.p_value),
        p_text(stats.p_adjusted),
        verdict_text(stats),
    ]


def _distribution(item: Distribution) -> list[str]:
    lines = [f"## Distribution: {item.name} ({metric_label(item.semantic_type, item.unit)})", ""]
    rows = [
        [name, *(aggregate_text(v.summaries[fn]) for fn in item.summaries)]
        for name, v in item.variants.items()
    ]
    return lines + table(["variant", *item.summaries], rows)


def render_markdown(report: Report) -> str:
    """The whole report as Markdown text."""
    lines = [f"# {report.benchmark}: {report.experiment}", ""]
    lines += headline_markdown(report.headline)
    status = report.status
    lines += ["## Status", ""]
    lines += table(
        ["runs", "planned", "passed", "failed", "errored", "skipped"],
        [
            [
                str(report.runs),
                str(report.planned),
                str(status.passed),
                str(status.failed),
                str(status.errored),
                str(status.skipped),
            ]
        ],
    )
    if report.missing_runs:
        lines += [f"Missing runs: {', '.join(report.missing_runs)}", ""]
    lines += ["## Variants", ""]
    lines += table(
        ["variant", "label", "factors"],
        [
            [
                v.id,
                v.label or "",
                ", ".join(f"{k}={value_text(x)}" for k, x in v.factors.items()),
            ]
            for v in report.variants
        ],
    )
    board = report.leaderboard
    lines += ["## Leaderboard", ""]
    lines += table(
        [
            "variant",
            "runs",
            "passed",
            "failed",
            "errored",
            *(column_label(c.name, c.fn, c.semantic_type, c.unit) for c in board.columns),
        ],
        [
            [
                row.variant,
                str(row.runs),
                str(row.status.passed),
                str(row.status.failed),
                str(row.status.errored),
                *(aggregate_text(row.metrics[c.name]) for c in board.columns),
            ]
            for row in board.rows
        ],
    )
    if report.policies:
        variants = [variant.id for variant in report.variants]
        lines += ["## Policies", ""]
        lines += table(
            ["policy", "metric", *variants],
            [
                [
                    policy.name,
                    policy.metric or "",
                    *(
                        f"{policy.passed.get(v, 0)}/{policy.passed.get(v, 0) + policy.failed.get(v, 0)}"
                        for v in variants
                    ),
                ]
                for policy in report.policies
            ],
        )
    lines += calibration_markdown(report.calibrations)
    lines += reliability_markdown(report.reliability)
    if report.matrix is not None:
        lines += _matrix(report.matrix)
    for comparison in report.comparisons:
        lines += _comparison(comparison)
    for item in report.distributions:
        lines += _distribution(item)
    rows = report.run_rows  # read as columns: no row model per run
    problems = [index for index in range(len(rows)) if rows.reason(index) is not None]
    if problems:
        lines += ["## Runs that did not pass", ""]
        lines += table(
            ["case", "variant", "status", "reason"],
            [
                [
                    rows.case_ids[i],
                    rows.variant_ids[i],
                    rows.statuses[i].value,
                    rows.reason(i) or "",
                ]
                for i in problems
            ],
        )
    if rows and report.metric_units:
        semantic_types = list(report.metric_units)
        values = [rows.values(s) for s in semantic_types]
        lines += ["## Run metrics", ""]
        lines += table(
            [
                "case",
                "variant",
                "status",
                *(metric_label(s, report.metric_units[s]) for s in semantic_types),
            ],
            [
                [
                    rows.case_ids[index],
                    rows.variant_ids[index],
                    rows.statuses[index].value,
                    *(value_text(column[index]) for column in values),
                ]
                for index in range(len(rows))
            ],
        )
    if report.diagnostics:
        lines += ["## Diagnostics", ""]
        lines += [f"- {escape(text)}" for text in report.diagnostics] + [""]
    return "\n".join(lines)


class MarkdownExporter:
    """``markdown``: a portable rendered report (see the module docstring)."""

    name = "markdown"
    extension = "md"
    description = "Portable report: headings and GitHub-flavoured tables."

    def export(self, report: Report, result: ExperimentResult) -> str:
        return render_markdown(report)
