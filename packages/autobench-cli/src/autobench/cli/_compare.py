"""``autobench compare``: a baseline against a candidate, paired by case.

Two forms: two variants of one recorded experiment (``DIR --baseline A
--candidate B``), or two recorded experiments (``BASELINE_DIR CANDIDATE_DIR``),
paired by case and variant id.
"""

from __future__ import annotations

from pathlib import Path

import click

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._output import exit_for_gate
from autobench.cli._rescore import apply_rescored, rescored_banner, rescored_option

# The records and the report are imported when the command runs: `compare --help` needs neither.

_EPILOG = """\b
Exit codes: 0 compared (whatever the verdicts); 1 an error (unreadable records, unknown
variant); 2 a usage error; 3 with --fail-on regressed, when a metric's verdict is
regressed and its whole interval lies on the worse side of zero.
"""


@click.command("compare", epilog=_EPILOG)
@click.argument(
    "record_dirs",
    metavar="DIR [CANDIDATE_DIR]",
    nargs=-1,
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
)
@click.option("--baseline", metavar="VARIANT", help="Id of the baseline variant (one DIR).")
@click.option("--candidate", metavar="VARIANT", help="Id of the candidate variant (one DIR).")
@click.option(
    "--level",
    type=click.FloatRange(0.5, 1, min_open=False, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence level of the intervals; the tests are at 1 - level.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["regressed"]),
    help="Exit with code 3 when a metric regressed: its verdict is regressed (Holm-adjusted "
    "test at 1 - level) and the interval bound nearest zero is on the worse side, so the "
    "whole confidence interval of the mean per-case delta says worse (never a difference "
    "the data cannot support).",
)
@rescored_option
def compare_command(
    record_dirs: tuple[Path, ...],
    baseline: str | None,
    candidate: str | None,
    level: float,
    fail_on: str | None,
    rescored: tuple[str, ...],
) -> None:
    """Compare a baseline against a candidate, paired by case.

    With one DIR, compares its --baseline and --candidate variants. With two
    directories (BASELINE_DIR CANDIDATE_DIR: this week against last week, a
    branch against main), pairs the runs of the two experiments by case and
    variant id, compares every variant both have, lists the variants and cases
    only one has, and says whether the spec, dataset or source files changed.

    Shows the headline first (per objective, cost and latency: the change, its
    interval and the verdict), then the paired count, the factors that differ, each metric's baseline,
    candidate and delta (absolute, and in % of the baseline; n/a when the
    baseline is 0), the cases that could not be paired (a run that errored on
    either side is unpaired, never a zero) and whether the comparison is
    confounded (more than one factor changed). Per metric, the statistics over
    per-case values (a case's repeats averaged first): the mean delta with its
    bootstrap interval, an exact McNemar test for pass/fail or a Wilcoxon
    signed-rank test otherwise, Holm-adjusted p-values, and a verdict:
    improved, regressed, no detectable difference, or too few cases (with the
    cases the observed effect would need). It reports differences, not causes.

    With --rescored NAME, each directory's re-scoring NAME (`autobench
    rescore`) replaces its recorded score of that name.
    """
    if len(record_dirs) > 2:
        raise click.UsageError("give one record directory, or a baseline and a candidate one")
    from autobench.cli._replayed import replayed
    from autobench.report import (
        compare_experiments,
        compare_variants_with_headline,
        output_policy,
        render_comparison,
        render_experiment_comparison,
        report_spec,
    )
    from autobench.report._compare import prepare_statistics
    from autobench.report._regressions import regressions

    if len(record_dirs) == 2:
        if baseline is not None or candidate is not None:
            raise click.UsageError(
                "--baseline/--candidate choose variants of one DIR; with two directories "
                "every variant both experiments have is compared"
            )
        with user_errors():
            before = replayed(record_dirs[0], evidence_only=True, meanwhile=prepare_statistics)
            after = replayed(record_dirs[1], evidence_only=True)
            before, after = apply_rescored(before, rescored), apply_rescored(after, rescored)
            banners = [rescored_banner(before, rescored), rescored_banner(after, rescored)]
            across = compare_experiments(before, after, level=level)
        for banner in banners:
            if banner is not None:
                stdout_console().print(banner, soft_wrap=True)
        stdout_console().print(render_experiment_comparison(across))
        comparisons = across.comparisons
    else:
        if baseline is None or candidate is None:
            raise click.UsageError(
                "with one DIR, give --baseline and --candidate (or a second directory)"
            )
        with user_errors():
            result = replayed(record_dirs[0], evidence_only=True, meanwhile=prepare_statistics)
            result = apply_rescored(result, rescored)
            banner = rescored_banner(result, rescored)
            spec = report_spec(result)
            configured = next(
                (c for c in spec.comparisons if (c.baseline, c.candidate) == (baseline, candidate)),
                None,
            )
            comparison, headline = compare_variants_with_headline(
                result,
                baseline,
                candidate,
                metrics=configured.metrics if configured and configured.metrics else None,
                level=level,
            )
        console = stdout_console(output_policy(result))
        if banner is not None:
            console.print(banner, soft_wrap=True)
        console.print(render_comparison(comparison, headline=headline))
        comparisons = (comparison,)
    if fail_on == "regressed":
        exit_for_gate(regressions(comparisons))
