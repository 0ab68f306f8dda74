"""The metric table's columnar projection and its numeric aggregates give what the
straightforward path gives: records' projection run by run (over every observation and
score, policy results set apart), records' ``to_common_unit`` per type, records'
``aggregate`` per column. Generated runs mix the cases the fast path reads directly with
every case it hands back to records (several candidates, additive types, accounting
summaries, policy results, units that do not convert, NaN, infinities, strings)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from report_support import RunBench

from autobench.records import (
    AGGREGATIONS,
    Case,
    ExperimentResult,
    Observation,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    RunInfo,
    RunOutcome,
    RunRecord,
    ScoreRecord,
    Semantic,
    UnitValue,
    Variant,
    aggregate,
    project_observations,
    run_observations,
    to_common_unit,
)
from autobench.report._metrics import (
    _RECORDED_BEFORE_TOTALS,
    MetricTable,
    without_replayed_spend,
)
from autobench.report._numeric import numeric_aggregate

SEMANTICS = (
    "quality.score",
    "quality.correctness",
    "time.latency",
    "money.cost",
    "llm.tokens.input",
    "policy.result",
    "custom.thing",
    None,
)
UNITS = (None, "ms", "s", "USD", "EUR", "tokens", "furlongs")
VALUES = st.one_of(
    st.sampled_from(
        [math.nan, math.inf, -math.inf, 10**400, True, False, "fast", None, 0, -1, 0.0, -0.0, 2.5]
    ),
    st.integers(-3, 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
)
ROLES = st.sampled_from([None, ObservationRole.OBJECTIVE, ObservationRole.CONSTRAINT])
DIRECTIONS = st.sampled_from([None, "maximize", "minimize"])


@st.composite
def observations(draw: st.DrawFn, index: int) -> Observation:
    kind = draw(st.sampled_from([ObservationKind.METRIC] * 4 + [ObservationKind.DIAGNOSTIC]))
    metric = kind is ObservationKind.METRIC
    tags = draw(
        st.sampled_from(
            [{}, {}, {"accounting": "summary"}, {"cassette": "replayed", "scope": "judge"}]
        )
    )
    return Observation(
        id=f"o{index}",
        name=draw(st.sampled_from(["latency", "cost", "tokens", "cassette.replayed", "q"])),
        kind=kind,
        value=draw(VALUES),
        unit=draw(st.sampled_from(UNITS)),
        semantic_type=draw(st.sampled_from(SEMANTICS)),
        source=draw(
            st.sampled_from(
                [
                    ObservationSource.TASK_OBSERVATION,
                    ObservationSource.DERIVED,
                    ObservationSource.IMPORTED,
                ]
            )
        ),
        role=draw(ROLES) if metric else None,
        direction=draw(DIRECTIONS) if metric else None,
        reason=draw(st.sampled_from([None, "why"])),
        tags=tags,
    )


@st.composite
def scores(draw: st.DrawFn) -> ScoreRecord:
    return ScoreRecord(
        name=draw(st.sampled_from(["correct", "quality", "held"])),
        value=draw(VALUES),
        semantic_type=draw(st.sampled_from(SEMANTICS)),
        unit=draw(st.sampled_from(UNITS)),
        role=draw(ROLES),
        direction=draw(DIRECTIONS),
        error=draw(st.sampled_from([None, None, "failed"])),
    )


@st.composite
def runs(draw: st.DrawFn) -> tuple[RunRecord, ...]:
    made = []
    for index in range(draw(st.integers(0, 6))):
        case = f"case-{index}"
        count = draw(st.integers(0, 5))
        made.append(
            RunRecord(
                run=RunInfo(
                    id=f"run-{index}",
                    experiment="e",
                    benchmark="b",
                    case=case,
                    variant="a",
                    index=index,
                    status="passed",
                    outcome=RunOutcome(task="passed", evaluation="passed"),
                    accounting=draw(st.sampled_from([None, 1])),
                ),
                case=Case(id=case),
                variant=Variant(id="a"),
                observations=tuple(draw(observations(i)) for i in range(count)),
                scores=tuple(draw(st.lists(scores(), max_size=3))),
            )
        )
    return tuple(made)


def _reference(result: ExperimentResult, leave_out_replayed: bool) -> dict[str, Any]:
    """The metric table's content by the straightforward path."""
    registry = result.registry
    projected, policies, diagnostics = [], [], {}
    for run in result.runs:
        items = run_observations(run)
        if leave_out_replayed:
            items = without_replayed_spend(items)
        verdicts, others = {}, []
        for o in items:
            if o.semantic_type is not None and registry.is_a(
                o.semantic_type, Semantic.POLICY_RESULT
            ):
                verdicts[o.name] = o
            else:
                others.append(o)
        policies.append(verdicts)
        projected.append(project_observations(others, registry))
        for o in items:
            if o.kind is ObservationKind.DIAGNOSTIC:
                diagnostics[f"run {run.run_id}: {o.name}: {o.reason or repr(o.value)}"] = None
    for run in result.runs:
        if run.run.accounting is None and any(
            o.tags.get("accounting") == "summary" for o in run.observations
        ):
            diagnostics[f"run {run.run_id}: {_RECORDED_BEFORE_TOTALS}"] = None
    semantic_types = list(dict.fromkeys(s for metrics in projected for s in metrics))
    columns = {}
    for semantic in semantic_types:
        items, positions = [], []
        for index, metrics in enumerate(projected):
            metric = metrics.get(semantic)
            if metric is None:
                continue
            run_id = result.runs[index].run_id
            if metric.note is not None:
                diagnostics[f"run {run_id}: {metric.note}"] = None
            if metric.ambiguous:
                diagnostics[
                    f"run {run_id}: {metric.semantic_type} has several values from one "
                    f"source; the first ({metric.observation.name!r}) is used"
                ] = None
            positions.append(index)
            items.append(UnitValue(run_id, metric.value, metric.observation.unit))
        converted = to_common_unit(
            items, semantic_type=semantic, canonical_unit=registry.unit_of(semantic)
        )
        diagnostics.update(dict.fromkeys(converted.diagnostics))
        by_run: list[Any] = [None] * len(result.runs)
        for index, item in zip(positions, items, strict=True):
            value = converted.values.get(item.label)
            by_run[index] = None if isinstance(value, float) and math.isnan(value) else value
        chosen = [projected[i][semantic].observation for i in positions]
        columns[semantic] = (
            converted.unit,
            by_run,
            {o.role for o in chosen if o.role is not None},
            {o.direction for o in chosen if o.direction is not None},
            {
                i
                for i, o in zip(positions, chosen, strict=True)
                if o.source is ObservationSource.SCORE
            },
        )
    return {
        "types": semantic_types,
        "columns": columns,
        "policies": [{n: (o.value, o.tags) for n, o in v.items()} for v in policies],
        "diagnostics": list(diagnostics),
    }


def _table(result: ExperimentResult, leave_out_replayed: bool) -> dict[str, Any]:
    table = MetricTable(result, leave_out_replayed=leave_out_replayed)
    columns = {}
    for semantic in table.semantic_types:
        values = table.values(semantic)
        columns[semantic] = (
            values.unit,
            list(values.by_run),
            set(table.roles(semantic)),
            set(table.directions(semantic)),
            set(table.scored(semantic)),
        )
    return {
        "types": list(table.semantic_types),
        "columns": columns,
        "policies": [{n: (o.value, o.tags) for n, o in v.items()} for v in table.policies],
        "diagnostics": list(table.diagnostics),
    }


def _same(left: Any, right: Any) -> bool:
    """Equal, NaN equal to NaN and each value of its own type (``1 != 1.0 != True``)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(
            _same(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    return type(left) is type(right) and left == right


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(generated=runs(), leave_out_replayed=st.booleans())
def test_the_columnar_table_equals_records_projection_run_by_run(
    run_bench: RunBench, generated: tuple[RunRecord, ...], leave_out_replayed: bool
) -> None:
    result = dataclasses.replace(_base(run_bench), runs=generated)
    expected = _outcome(_reference, result, leave_out_replayed)
    assert _same(_outcome(_table, result, leave_out_replayed), expected), expected


def _outcome(build: Any, result: ExperimentResult, leave_out_replayed: bool) -> Any:
    """What ``build`` gives, or the type of what it raises (an integer too large for a
    float in another unit than the type's overflows on both paths)."""
    try:
        return build(result, leave_out_replayed)
    except (ArithmeticError, ValueError) as error:
        return f"raised {type(error).__name__}"


_BASES: dict[str, ExperimentResult] = {}


def _base(run_bench: RunBench) -> ExperimentResult:
    """A recorded one-run experiment whose runs the test replaces (its plan and variants
    only name the table's variants and cases)."""
    if "base" not in _BASES:
        _BASES["base"] = run_bench(
            "def run(ctx, case):\n    return 1\n",
            cases=[{"id": "case-0", "input": {}}],
            variants=[{"id": "a"}],
        )
    return _BASES["base"]


NUMBERS = st.lists(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False, width=64),
        st.floats(-1e3, 1e3),
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(values=NUMBERS, fn=st.sampled_from(AGGREGATIONS), extra=st.integers(0, 3))
def test_numeric_aggregates_equal_records_aggregate(values: list[Any], fn: str, extra: int) -> None:
    total = len(values) + extra
    fast = numeric_aggregate(fn, [float(v) for v in values if v is not None], total)
    reference = aggregate(fn, values, total=total)
    if fast is None:  # left to records: only when records has something to say
        assert reference.diagnostics or reference.value is None
        return
    assert not reference.diagnostics
    assert _same(
        [fast.fn, fast.value, fast.n, fast.total],
        [reference.fn, reference.value, reference.n, reference.total],
    )
