"""``autobench instrumentation``: diagnostics of native and recorded instrumentation.

``autobench instrumentation doctor`` lists the integrations this environment
offers (:mod:`autobench.cli._doctor`).

``autobench instrumentation trace DIR`` reads the record directory only (the
run files and their trace artifacts, through :func:`replay_experiment`): it
imports neither the benchmark's task nor any provider SDK. It shows, in Rich
tables:

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

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from autobench.abp import Trace
from autobench.cli._console import stdout_console, user_errors
from autobench.cli._doctor import doctor_command
from autobench.records import ExperimentResult, RunRecord, replay_experiment

DEFAULT_RUN_LIMIT = 40
"""Runs listed one per row; more are summarised per variant."""


@click.group("instrumentation")
def instrumentation_group() -> None:
    """Inspect instrumentation: the integrations available here (`doctor`) and the trace
    shape of recorded runs (`trace DIR`), without importing tasks or missing SDKs."""


instrumentation_group.add_command(doctor_command)


@dataclass
class _RunShape:
    run: RunRecord
    spans: int = 0
    roots: int = 0
    partial: bool = False
    kinds: Counter[str] = field(default_factory=Counter)
    diagnostics: list[tuple[str, str]] = field(default_factory=list)


def _shape(run: RunRecord) -> _RunShape:
    shape = _RunShape(run)
    trace = run.trace
    if not isinstance(trace, Trace):
        shape.diagnostics.append(("missing_trace", f"run {run.run_id} has no recorded trace"))
        return shape
    shape.spans = len(trace.spans)
    shape.roots = len(trace.root_spans)
    shape.partial = trace.partial or any(span.partial for span in trace.spans)
    shape.kinds.update(span.kind for span in trace.spans)
    for item in getattr(trace, "diagnostics", ()) or ():
        code = _read(item, "code") or "diagnostic"
        shape.diagnostics.append((str(code), str(_read(item, "message") or "")))
    return shape


def _read(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


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
    with user_errors():
        result = replay_experiment(record_dir)
    shapes = [_shape(run) for run in result.runs]
    console = stdout_console()
    if len(shapes) <= limit:
        console.print(_runs_table(shapes))
    else:
        console.print(_variants_table(shapes))
    console.print(_kinds_table(shapes))
    console.print(_scopes_table(result))
    _print_diagnostics(console, result, shapes)


def _runs_table(shapes: list[_RunShape]) -> Table:
    table = Table(title="Traces per run", title_justify="left")
    for column in ("case", "variant", "spans", "roots", "partial", "diagnostics", "kinds"):
        table.add_column(column, justify="right" if column in {"spans", "roots"} else "left")
    for shape in shapes:
        table.add_row(
            shape.run.case_id,
            shape.run.variant_id,
            str(shape.spans),
            str(shape.roots),
            "yes" if shape.partial else "no",
            str(len(shape.diagnostics)),
            ", ".join(f"{kind} {count}" for kind, count in sorted(shape.kinds.items())),
        )
    return table


def _variants_table(shapes: list[_RunShape]) -> Table:
    table = Table(title="Traces per variant (summarised)", title_justify="left")
    for column in ("variant", "runs", "spans", "spans/run", "roots", "partial", "diagnostics"):
        table.add_column(column, justify="left" if column == "variant" else "right")
    groups: dict[str, list[_RunShape]] = defaultdict(list)
    for shape in shapes:
        groups[shape.run.variant_id].append(shape)
    for variant, group in groups.items():
        spans = sum(shape.spans for shape in group)
        table.add_row(
            variant,
            str(len(group)),
            str(spans),
            f"{spans / len(group):.1f}",
            str(sum(shape.roots for shape in group)),
            str(sum(shape.partial for shape in group)),
            str(sum(len(shape.diagnostics) for shape in group)),
        )
    return table


def _kinds_table(shapes: list[_RunShape]) -> Table:
    table = Table(title="Span kinds", title_justify="left")
    table.add_column("kind")
    table.add_column("spans", justify="right")
    table.add_column("runs", justify="right")
    spans: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    for shape in shapes:
        spans.update(shape.kinds)
        runs.update(shape.kinds.keys())
    for kind, count in spans.most_common():
        table.add_row(kind, str(count), str(runs[kind]))
    return table


def _scopes_table(result: ExperimentResult) -> Table:
    table = Table(title="Instrumentors", title_justify="left")
    for column in ("scope", "version", "package", "mechanism", "layer", "spans", "runs"):
        table.add_column(column, justify="right" if column in {"spans", "runs"} else "left")
    described: dict[str, tuple[str, str, str, str]] = {}
    spans: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    for run in result.runs:
        trace = run.trace
        if not isinstance(trace, Trace):
            continue
        for key, scope in trace.scopes.items():
            described.setdefault(key, (scope.version, scope.package, scope.mechanism, scope.layer))
        used = Counter(span.scope for span in trace.spans)
        spans.update(used)
        runs.update(used.keys())
    for key, count in spans.most_common():
        version, package, mechanism, layer = described.get(key, ("?", "?", "?", "?"))
        table.add_row(key, version, package, mechanism, layer, str(count), str(runs[key]))
    return table


def _print_diagnostics(console: Console, result: ExperimentResult, shapes: list[_RunShape]) -> None:
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for shape in shapes:
        for code, message in shape.diagnostics:
            counts[code] += 1
            first.setdefault(code, message)
    missing = len(result.missing_runs)
    if missing:
        counts["missing_run"] = missing
        first["missing_run"] = f"{missing} planned run(s) have no run.yaml (interrupted?)"
    if not counts:
        console.print("No diagnostics.")
        return
    table = Table(title="Diagnostics", title_justify="left")
    table.add_column("code")
    table.add_column("count", justify="right")
    table.add_column("first message", overflow="fold")
    for code, count in counts.most_common():
        table.add_row(code, str(count), first[code])
    console.print(table)
