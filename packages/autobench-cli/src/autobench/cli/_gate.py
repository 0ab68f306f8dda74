"""``--fail-on``: turn run statuses, and statistically supported regressions, into a
non-zero exit code for CI pipelines."""

from __future__ import annotations

from collections.abc import Iterable

import click

from autobench.records import ExperimentResult, RunStatus
from autobench.report import Comparison, Verdict, build_report
from autobench.report._statistics_text import p_label

EXIT_GATE = 3
"""Exit code when runs ended in a status named by ``--fail-on`` (1 stays for errors)."""

GATE_STATUSES = ("failed", "errored", "skipped", "missing", "regressed")
"""Run statuses, ``missing`` (planned runs without a record) and ``regressed`` (a
comparison's verdict)."""


def parse_fail_on(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> frozenset[str]:
    """``failed,errored`` -> ``{"failed", "errored"}``; unknown names are a usage error."""
    if value is None:
        return frozenset()
    names = {part.strip().lower() for part in value.split(",") if part.strip()}
    if not names:
        raise click.BadParameter(f"names no status; choose from {', '.join(GATE_STATUSES)}")
    unknown = sorted(names - set(GATE_STATUSES))
    if unknown:
        raise click.BadParameter(
            f"unknown status {', '.join(unknown)}; choose from {', '.join(GATE_STATUSES)}"
        )
    return frozenset(names)


FAIL_ON_HELP = (
    "Exit with code 3 when any run ended in one of these statuses (comma-separated: "
    "failed, errored, skipped; `missing` for planned runs without a record; `regressed` "
    "when a comparison of the report finds a statistically supported regression). "
    "Without it the exit code is 0 whenever the experiment completed."
)


def gate_failures(result: ExperimentResult, fail_on: frozenset[str]) -> list[str]:
    """What trips the gate, as lines for people (empty: the gate passes)."""
    problems: list[str] = []
    counts = result.status_counts()
    for status in RunStatus:
        count = getattr(counts, status.value)
        if status.value in fail_on and count:
            problems.append(f"{count} run(s) {status.value}")
    if "missing" in fail_on and result.missing_runs:
        problems.append(f"{len(result.missing_runs)} planned run(s) have no record")
    if "regressed" in fail_on:
        problems += regressions(build_report(result).comparisons)
    return problems


def regressions(comparisons: Iterable[Comparison]) -> list[str]:
    """One line per metric whose verdict is ``regressed`` (a statistically supported
    regression after Holm's adjustment), for ``--fail-on regressed``."""
    return [
        f"{item.baseline} -> {item.candidate}: {metric.name} regressed "
        f"({p_label(metric.statistics.p_adjusted)} after Holm)"
        for item in comparisons
        for metric in item.metrics
        if metric.statistics is not None and metric.statistics.verdict is Verdict.REGRESSED
    ]


RUNS_HELP = (
    "Which per-run rows to show: auto (all when there are at most 20 runs, else those that "
    "did not pass), all, failed or none."
)

runs_option = click.option(
    "--runs",
    type=click.Choice(["auto", "all", "failed", "none"]),
    default="auto",
    show_default=True,
    help=RUNS_HELP,
)
"""``--runs``, shared by ``run`` and ``report``."""

fail_on_option = click.option(
    "--fail-on", callback=parse_fail_on, metavar="STATUSES", help=FAIL_ON_HELP
)
"""``--fail-on``, shared by ``run`` and ``report``."""
