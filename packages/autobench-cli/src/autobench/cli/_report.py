"""``autobench report``: the full report of a recorded experiment, from its records alone."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._gate import fail_on_option, gate_failures, runs_option
from autobench.cli._output import exit_for_gate, recorded_spec_dir
from autobench.cli._rescore import apply_rescored, rescored_banner, rescored_option

if TYPE_CHECKING:
    from autobench.report._render import RunSelection

# The records and the report are imported when the command runs: `report --help` needs neither.


@click.command("report")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@runs_option
@fail_on_option
@rescored_option
@click.option(
    "--leave-out-replayed",
    is_flag=True,
    help="For an experiment replayed from cassettes: leave the token and cost evidence "
    "of runs whose every request was replayed out of the report (what this experiment "
    "spent, not what the recorded calls cost).",
)
def report_command(
    record_dir: Path,
    runs: RunSelection,
    fail_on: frozenset[str],
    rescored: tuple[str, ...],
    leave_out_replayed: bool,
) -> None:
    """Show the report of the experiment recorded in DIR.

    Overview and status counts, variant configuration, leaderboard, per-run
    metrics by semantic family, case matrix, comparisons and distributions,
    as configured in the spec's `report` section (sensible defaults
    otherwise). Reads the records only: the task is never imported. With
    --rescored NAME, the scores of that re-scoring (`autobench rescore`) are
    shown in place of the recorded ones.
    """
    from autobench.cli._replayed import replayed
    from autobench.report import build_report, output_policy, render_report

    with user_errors():
        result = apply_rescored(replayed(record_dir, evidence_only=True), rescored)
        banner = rescored_banner(result, rescored)
        report = build_report(result, leave_out_replayed=leave_out_replayed)
    console = stdout_console(output_policy(result))
    if banner is not None:
        console.print(banner, soft_wrap=True)
    console.print(
        render_report(
            report,
            records=str(record_dir),
            runs=runs,
            spec_dir=recorded_spec_dir(result, record_dir),
        )
    )
    exit_for_gate(gate_failures(result, fail_on))
