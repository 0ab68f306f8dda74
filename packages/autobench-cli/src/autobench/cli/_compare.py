"""``autobench compare``: a baseline variant against a candidate, paired by case."""

from __future__ import annotations

from pathlib import Path

import click

from autobench.cli._console import stdout_console, user_errors
from autobench.records import replay_experiment
from autobench.report import compare_variants, render_comparison, report_spec


@click.command("compare")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option("--baseline", required=True, metavar="VARIANT", help="Id of the baseline variant.")
@click.option("--candidate", required=True, metavar="VARIANT", help="Id of the candidate variant.")
def compare_command(record_dir: Path, baseline: str, candidate: str) -> None:
    """Compare two recorded variants of the experiment in DIR.

    Runs are paired by case. Shows the paired count, the factors that differ,
    each metric's baseline, candidate and delta (absolute, and in % of the
    baseline; n/a when the baseline is 0), the cases that could not be
    paired (a run that errored on either side is unpaired, never a zero) and
    whether the comparison is confounded (more than one factor changed). It
    reports differences, not causes.
    """
    with user_errors():
        result = replay_experiment(record_dir, evidence_only=True)
        spec = report_spec(result)
        configured = next(
            (c for c in spec.comparisons if (c.baseline, c.candidate) == (baseline, candidate)),
            None,
        )
        comparison = compare_variants(
            result,
            baseline,
            candidate,
            metrics=configured.metrics if configured and configured.metrics else None,
        )
    stdout_console().print(render_comparison(comparison))
