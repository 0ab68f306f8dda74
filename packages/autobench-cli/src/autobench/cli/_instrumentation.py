"""``autobench instrumentation``: diagnostics of native and recorded instrumentation.

``autobench instrumentation doctor`` lists the integrations this environment
offers (:mod:`autobench.cli._doctor`).

``autobench instrumentation trace DIR`` reads the record directory only (the
run files and their trace artifacts, through :func:`replay_experiment`): it
imports neither the benchmark's task nor any provider SDK. The counting is
:func:`autobench.records.experiment_trace_shape`; this module renders it in
Rich tables:

* per run: span and root counts, whether the trace is partial, its
  diagnostics and span kinds; above ``--limit`` runs the table is summarised
  per variant instead;
* span kinds: spans of each kind and the runs that have them;
* instrumentor composition: each scope (name, version, mechanism, layer) with
  its spans and runs;
* diagnostics: each code with its count and first message (trace diagnostics,
  runs without a trace, planned runs that were never recorded).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._doctor import doctor_command

if TYPE_CHECKING:
    from autobench.records import ExperimentTraceShape

# The records and the report are imported when `trace` runs: `--help` needs neither.

DEFAULT_RUN_LIMIT = 40
"""Runs listed one per row; more are summarised per variant."""


@click.group("instrumentation")
def instrumentation_group() -> None:
    """Inspect instrumentation: the integrations available here (`doctor`) and the trace
    shape of recorded runs (`trace DIR`), without importing tasks or missing SDKs."""


instrumentation_group.add_command(doctor_command)


@instrumentation_group.command("trace")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=DEFAULT_RUN_LIMIT,
    show_default=True,
    help="List runs one per row up to this many; summarise per variant above it.",
)
def trace_command(record_dir: Path, limit: int) -> None:
    """Show the recorded trace shape of the experiment in DIR.

    Per run span and root counts, partial traces, diagnostics, span kinds and
    the instrumentors (scopes) that produced the spans. Reads recorded evidence
    only: neither the task nor any provider SDK is imported.
    """
    from autobench.cli._replayed import replayed
    from autobench.records import experiment_trace_shape
    from autobench.report import output_policy

    with user_errors():
        result = replayed(record_dir)
        shape = experiment_trace_shape(result)
    console = stdout_console(output_policy(result))
    if len(shape.runs) <= limit:
        console.print(_runs_table(shape))
    else:
        console.print(_variants_table(shape))
    console.print(_kinds_table(shape))
    console.print(_scopes_table(shape))
    if shape.diagnostics:
        console.print(_diagnostics_table(shape))
    else:
        console.print("No diagnostics.")


def _runs_table(shape: ExperimentTraceShape) -> Table:
    table = Table(title="Traces per run", title_justify="left")
    for column in ("case", "variant", "spans", "roots", "partial", "diagnostics", "kinds"):
        table.add_column(column, justify="right" if column in {"spans", "roots"} else "left")
    for run in shape.runs:
        table.add_row(
            run.case_id,
            run.variant_id,
            str(run.spans),
            str(run.roots),
            "yes" if run.partial else "no",
            str(len(run.diagnostics)),
            ", ".join(f"{kind} {count}" for kind, count in run.kinds.items()),
        )
    return table


def _variants_table(shape: ExperimentTraceShape) -> Table:
    table = Table(title="Traces per variant (summarised)", title_justify="left")
    for column in ("variant", "runs", "spans", "spans/run", "roots", "partial", "diagnostics"):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for variant in shape.variants:
        table.add_row(
            variant.variant_id,
            str(variant.runs),
            str(variant.spans),
            f"{variant.spans_per_run:.1f}",
            str(variant.roots),
            str(variant.partial),
            str(variant.diagnostics),
        )
    return table


def _kinds_table(shape: ExperimentTraceShape) -> Table:
    table = Table(title="Span kinds", title_justify="left")
    table.add_column("kind")
    table.add_column("spans", justify="right")
    table.add_column("runs", justify="right")
    for kind, tally in shape.kinds.items():
        table.add_row(kind, str(tally.spans), str(tally.runs))
    return table


def _scopes_table(shape: ExperimentTraceShape) -> Table:
    table = Table(title="Instrumentors", title_justify="left")
    for column in ("scope", "version", "package", "mechanism", "layer", "spans", "runs"):
        table.add_column(column, justify="right" if column in {"spans", "runs"} else "left")
    for key, entry in shape.scopes.items():
        scope = entry.scope
        described = (
            (scope.version, scope.package, scope.mechanism, scope.layer)
            if scope is not None
            else ("?", "?", "?", "?")
        )
        table.add_row(key, *described, str(entry.tally.spans), str(entry.tally.runs))
    return table


def _diagnostics_table(shape: ExperimentTraceShape) -> Table:
    table = Table(title="Diagnostics", title_justify="left")
    table.add_column("code")
    table.add_column("count", justify="right")
    table.add_column("first message", overflow="fold")
    for code, tally in shape.diagnostics.items():
        table.add_row(code, str(tally.count), tally.first_message)
    return table
