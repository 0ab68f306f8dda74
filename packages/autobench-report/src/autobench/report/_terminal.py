"""Rich renderables for the terminal: the plan of a spec and the status of an experiment.

Every function returns a renderable and prints nothing; the caller owns the
console (and so colour, width and whether stdout is a terminal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from autobench.core.planning import BenchmarkPlan
from autobench.records import (
    ExperimentResult,
    RunRecord,
    RunStatus,
    project_observations,
    run_observations,
)
from autobench.report._run_rows import error_location

_STATUS_STYLE = {
    RunStatus.PASSED: "green",
    RunStatus.FAILED: "yellow",
    RunStatus.ERRORED: "red",
    RunStatus.SKIPPED: "dim",
}
_PREVIEW_CASES = 8


def _written(value: Any, text: str | None = None) -> str:
    """A factor value as a person writes it in YAML: the spec's ``text`` when it kept one,
    a string as itself, ``true``/``null``, lists and mappings in flow style."""
    if text is not None:
        return text
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_written(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_written(item)}" for key, item in value.items()) + "}"
    return str(value)


def render_plan(plan: BenchmarkPlan, *, spec_path: str | None = None) -> RenderableType:
    """The benchmark id, counts, variants with their factors, and the first cases of the plan."""
    spec = plan.spec
    overview = Table.grid(padding=(0, 2))
    overview.add_row("benchmark", Text(spec.id, style="bold"))
    if spec.benchmark.description:
        overview.add_row("description", spec.benchmark.description)
    if spec_path:
        overview.add_row("spec", spec_path)
    overview.add_row("cases", str(plan.case_count))
    overview.add_row("variants", str(plan.variant_count))
    overview.add_row("planned runs", str(plan.run_count))
    overview.add_row("task", spec.task.target if spec.task else Text("none", style="yellow"))
    overview.add_row("scorers", ", ".join(scorer.name for scorer in spec.scoring) or "none")

    variants = Table(title="Variants", title_justify="left", expand=False)
    variants.add_column("variant", style="bold")
    variants.add_column("label")
    variants.add_column("factors")
    for variant in spec.variants:
        factors = ", ".join(
            f"{factor.name}={_written(factor.value, factor.text)}" for factor in variant.factors
        )
        variants.add_row(variant.id, variant.label or "", factors)

    cases = Table(title="Cases", title_justify="left", expand=False)
    cases.add_column("case", style="bold")
    cases.add_column("tags")
    for case in spec.dataset.cases[:_PREVIEW_CASES]:
        cases.add_row(case.id, ", ".join(case.tags))
    hidden = plan.case_count - _PREVIEW_CASES
    if hidden > 0:
        cases.caption = f"... and {hidden} more"

    parts: list[RenderableType] = [
        Panel(overview, title="Benchmark", title_align="left"),
        variants,
        cases,
    ]
    for warning in plan.warnings:
        parts.append(Text(f"warning: {warning}", style="yellow"))
    return Group(*parts)


def render_experiment_overview(result: ExperimentResult) -> RenderableType:
    """Benchmark, experiment id, record directory, run counts and completeness."""
    counts = result.status_counts()
    grid = Table.grid(padding=(0, 2))
    grid.add_row("benchmark", Text(result.benchmark_id, style="bold"))
    grid.add_row("experiment", result.experiment_id)
    if result.root_dir is not None:
        grid.add_row("records", Text(str(result.root_dir), overflow="fold"))
    status = Text()
    for run_status in RunStatus:
        value = getattr(counts, run_status.value)
        if status:
            status.append("  ")
        status.append(
            f"{run_status.value} {value}", style=_STATUS_STYLE[run_status] if value else "dim"
        )
    grid.add_row("runs", f"{len(result.runs)} of {len(result.experiment.plan)} planned")
    grid.add_row("status", status)
    if result.missing_runs:
        grid.add_row(
            "missing", Text(f"{len(result.missing_runs)} planned runs have no record", style="red")
        )
    return Panel(grid, title="Experiment", title_align="left")


def _mean_metric(runs: Sequence[RunRecord], semantic: str, result: ExperimentResult) -> str:
    values: list[float] = []
    for run in runs:
        metric = project_observations(run_observations(run), result.registry).get(semantic)
        if metric is not None and isinstance(metric.value, int | float):
            values.append(float(metric.value))
    return f"{sum(values) / len(values):.3f}" if values else "-"


def render_status_table(result: ExperimentResult) -> RenderableType:
    """One row per variant: runs per status and the mean of each objective score's semantic type."""
    objectives: dict[str, str] = {}
    for run in result.runs:
        for score in run.scores:
            if score.semantic_type and score.role is not None and score.role.value == "objective":
                objectives.setdefault(result.registry.normalize(score.semantic_type), score.name)
    table = Table(title="Status by variant", title_justify="left")
    table.add_column("variant", style="bold")
    for run_status in RunStatus:
        table.add_column(run_status.value, justify="right", style=_STATUS_STYLE[run_status])
    for semantic in objectives:
        table.add_column(f"mean {semantic}", justify="right")
    for variant in result.experiment.benchmark.variants:
        runs = result.runs_for(variant_id=variant.id)
        counts = result.status_counts(variant.id)
        row = [variant.id, *(str(getattr(counts, s.value)) for s in RunStatus)]
        row += [_mean_metric(runs, semantic, result) for semantic in objectives]
        table.add_row(*row)
    problems = [run for run in result.runs if run.status in (RunStatus.FAILED, RunStatus.ERRORED)]
    parts: list[RenderableType] = [table]
    if problems:
        detail = Table(title="Runs that did not pass", title_justify="left")
        detail.add_column("case")
        detail.add_column("variant")
        detail.add_column("status")
        detail.add_column("why")
        for run in problems[:_PREVIEW_CASES]:
            detail.add_row(
                run.case_id,
                run.variant_id,
                Text(run.status.value, style=_STATUS_STYLE[run.status]),
                _why(run),
            )
        if len(problems) > _PREVIEW_CASES:
            detail.caption = f"... and {len(problems) - _PREVIEW_CASES} more"
        parts.append(detail)
    return Group(*parts)


def _why(run: RunRecord) -> str:
    """The reason a run did not pass: its task or scorer error when it errored (with the
    innermost frame of the user's code it was raised in, as recorded), else its
    failing constraints and the errors the task reported; optional scorers never count."""
    optional = {score.name for score in run.scores if score.optional}
    errors = [
        error for error in run.errors if not (error.stage == "scorer" and error.source in optional)
    ]
    if run.status is RunStatus.ERRORED and errors:
        error = errors[0]
        location = error_location(error)
        at = "" if location is None else f" (at {location})"
        return f"{error.stage}: {error.type}: {error.message}"[: 160 - len(at)] + at
    reasons = [
        f"{observation.name}: {observation.reason or observation.value}"
        for observation in run_observations(run)
        if observation.role is not None
        and observation.role.value == "constraint"
        and observation.value in (False, 0)
    ]
    reasons += [f"{error.stage}: {error.message}" for error in errors if error.stage == "context"]
    return "; ".join(reasons)[:160]
