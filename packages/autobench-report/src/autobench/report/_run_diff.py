"""Run-against-run diff: two :class:`RunRecord` compared span by span, tool call by tool call,
output by output and total by total (pure functions over already-loaded records).

Span alignment: the children of a node (the roots, for the top) are keyed by operation,
kind and ordinal among the siblings of that operation and kind, in start order; equal keys
are matched, recursively, so a node is matched by its path from the root. A span whose
parent is not in its trace counts as a root. Matched siblings keep the left side's order,
with right-only siblings placed before the next matched sibling that follows them on the
right. The tree is walked without recursion, so a 100,000-deep chain is fine.
"""

from __future__ import annotations

import difflib
import gc
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeGuard

from autobench.abp import SpanKind, SpanRecord, Trace
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    ObservationKind,
    RunRecord,
    Semantic,
    SemanticRegistry,
    UnitValue,
    project_observations,
    run_observations,
    to_common_unit,
)
from autobench.report._run_diff_model import (
    AttributeChange,
    DiffStatus,
    RunDiff,
    RunSummary,
    ScoreChange,
    SpanDiff,
    SpanSide,
    StepOp,
    ToolCall,
    ToolStep,
    TotalDelta,
)

_USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("input_tokens", "prompt_tokens", "request_tokens"),
    "output_tokens": ("output_tokens", "completion_tokens", "response_tokens"),
    "cache_read_tokens": ("cache_read_tokens",),
    "cache_write_tokens": ("cache_write_tokens",),
    "reasoning_tokens": ("reasoning_tokens",),
    "cost": ("cost", "cost_usd"),
}
_METRIC_SEMANTICS: dict[str, str] = {
    Semantic.LLM_TOKENS_INPUT: "input_tokens",
    Semantic.LLM_TOKENS_OUTPUT: "output_tokens",
    Semantic.LLM_TOKENS_CACHE_READ: "cache_read_tokens",
    Semantic.LLM_TOKENS_CACHE_WRITE: "cache_write_tokens",
    Semantic.LLM_TOKENS_REASONING: "reasoning_tokens",
    Semantic.MONEY_COST: "cost",
}
_COST_UNITS = (None, "usd", "USD")
TOTAL_SEMANTICS: tuple[str, ...] = (
    Semantic.TIME_LATENCY,
    Semantic.LLM_TOKENS_INPUT,
    Semantic.LLM_TOKENS_OUTPUT,
    Semantic.LLM_TOKENS_CACHE_READ,
    Semantic.LLM_TOKENS_CACHE_WRITE,
    Semantic.LLM_TOKENS_REASONING,
    Semantic.LLM_REQUEST_COUNT,
    Semantic.MONEY_COST,
)
"""The run totals compared, after the run's wall-time ``duration``."""
_ARGUMENT_ATTRIBUTES = ("arguments", "tool.arguments", "gen_ai.tool.call.arguments")
_Key = tuple[str, str, int]


def _number(value: Any) -> TypeGuard[float | int]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _delta(left: Any, right: Any) -> float | int | None:
    return right - left if _number(left) and _number(right) else None


def _span_metrics(span: SpanRecord, linked: dict[str, dict[str, float | int]]) -> dict[str, Any]:
    """The usage a span carries: its ``usage`` mapping first, then its direct measurements,
    then the run's observations linked to it (the first source with a metric wins)."""
    metrics: dict[str, float | int] = {}
    if not span.usage and not span.measurements:
        metrics.update(linked.get(span.id, ()))
        return metrics
    for name, keys in _USAGE_KEYS.items():
        for key in keys:
            value = span.usage.get(key)
            if _number(value):
                metrics[name] = value
                break
    for measurement in span.measurements:
        measured = _METRIC_SEMANTICS.get(measurement.semantic_type or "")
        if measured is None or measured in metrics or measurement.accounting != "direct":
            continue
        if measured == "cost" and measurement.unit not in _COST_UNITS:
            continue
        metrics[measured] = measurement.value
    for name, value in linked.get(span.id, {}).items():
        metrics.setdefault(name, value)
    return metrics


def _linked_metrics(run: RunRecord) -> dict[str, dict[str, float | int]]:
    """Token and cost observations of ``run`` linked to a span, by span id."""
    found: dict[str, dict[str, float | int]] = {}
    for observation in run.observations:
        if observation.span_id is None or observation.kind is not ObservationKind.METRIC:
            continue
        name = _METRIC_SEMANTICS.get(observation.semantic_type or "")
        if name is None or not _number(observation.value):
            continue
        if name == "cost" and observation.unit not in _COST_UNITS:
            continue
        found.setdefault(observation.span_id, {}).setdefault(name, observation.value)
    return found


def _status(span: SpanRecord) -> str:
    return str(getattr(span.status, "value", span.status))


def _error(span: SpanRecord) -> str | None:
    return None if span.error is None else f"{span.error.type}: {span.error.message}"


class _Side:
    """One run's trace indexed for alignment: children per parent id (``None``: roots)."""

    def __init__(self, run: RunRecord) -> None:
        trace = run.trace if isinstance(run.trace, Trace) else None
        self.spans: tuple[SpanRecord, ...] = () if trace is None else trace.spans
        self.loaded = trace is not None or run.trace is None
        ids = {span.id for span in self.spans}
        self.children: dict[str | None, list[SpanRecord]] = {}
        for span in self.spans:
            parent = span.parent if span.parent in ids else None
            self.children.setdefault(parent, []).append(span)
        self.linked = _linked_metrics(run)

    def keyed(self, parent: SpanRecord | None) -> dict[_Key, SpanRecord]:
        counts: dict[tuple[str, str], int] = {}
        keyed: dict[_Key, SpanRecord] = {}
        for span in self.children.get(None if parent is None else parent.id, ()):
            pair = (span.operation, span.kind)
            ordinal = counts.get(pair, 0)
            counts[pair] = ordinal + 1
            keyed[(*pair, ordinal)] = span
        return keyed

    def side(self, span: SpanRecord) -> SpanSide:
        return SpanSide(
            span_id=span.id,
            status=_status(span),
            duration=span.duration,
            error=_error(span),
            metrics=_span_metrics(span, self.linked),
        )


def _merged(left: dict[_Key, SpanRecord], right: dict[_Key, SpanRecord]) -> list[_Key]:
    """The keys of both sibling lists: the left's order, each right-only key placed before
    the next matched key that follows it on the right."""
    order: list[_Key] = []
    pending: list[_Key] = []
    placed_before: dict[_Key, list[_Key]] = {}
    for key in right:
        if key in left:
            if pending:
                placed_before[key] = pending
                pending = []
        else:
            pending.append(key)
    for key in left:
        order.extend(placed_before.get(key, ()))
        order.append(key)
    order.extend(pending)
    return order


def _attribute_changes(left: dict[str, Any], right: dict[str, Any]) -> tuple[AttributeChange, ...]:
    if left == right:
        return ()
    changes = []
    for key in sorted({*left, *right}):
        in_left, in_right = key in left, key in right
        if in_left and in_right and left[key] == right[key]:
            continue
        changes.append(
            AttributeChange(
                key=key,
                left=left.get(key),
                right=right.get(key),
                in_left=in_left,
                in_right=in_right,
            )
        )
    return tuple(changes)


def _compare(
    left: SpanRecord, right: SpanRecord, sides: tuple[SpanSide, SpanSide]
) -> tuple[tuple[str, ...], dict[str, Any], tuple[AttributeChange, ...]]:
    """What differs between two matched spans, their metric deltas and attribute changes."""
    changes: list[str] = []
    if sides[0].status != sides[1].status:
        changes.append("status")
    if sides[0].error != sides[1].error:
        changes.append("error")
    if left.input != right.input:
        changes.append("input")
    if left.output != right.output:
        changes.append("output")
    attributes = _attribute_changes(left.attributes, right.attributes)
    if attributes:
        changes.append("attributes")
    lm, rm = sides[0].metrics, sides[1].metrics
    if not lm and not rm:
        return tuple(changes), {}, attributes
    if lm != rm:
        if any(name != "cost" and lm.get(name) != rm.get(name) for name in {*lm, *rm}):
            changes.append("tokens")
        if lm.get("cost") != rm.get("cost"):
            changes.append("cost")
    deltas = {name: rm[name] - lm[name] for name in _USAGE_KEYS if name in lm and name in rm}
    return tuple(changes), deltas, attributes


def align_spans(left: RunRecord, right: RunRecord) -> list[SpanDiff]:
    """The aligned span trees of two runs, in pre-order (module docstring)."""
    sides = (_Side(left), _Side(right))
    nodes: list[SpanDiff] = []
    # (left span, right span, key, parent index, depth), popped last-in first-out
    stack: list[tuple[SpanRecord | None, SpanRecord | None, _Key | None, int | None, int]] = [
        (None, None, None, None, -1)
    ]
    while stack:
        lspan, rspan, key, parent, depth = stack.pop()
        index = parent
        if key is not None:
            index = len(nodes)
            nodes.append(_node(index, parent, depth, key, lspan, rspan, sides))
        lkeyed = sides[0].keyed(lspan) if lspan is not None or key is None else {}
        rkeyed = sides[1].keyed(rspan) if rspan is not None or key is None else {}
        if not lkeyed and not rkeyed:
            continue
        children = [
            (lkeyed.get(child), rkeyed.get(child), child, index, depth + 1)
            for child in _merged(lkeyed, rkeyed)
        ]
        stack.extend(reversed(children))
    return nodes


def _node(
    index: int,
    parent: int | None,
    depth: int,
    key: _Key,
    lspan: SpanRecord | None,
    rspan: SpanRecord | None,
    sides: tuple[_Side, _Side],
) -> SpanDiff:
    lside = None if lspan is None else sides[0].side(lspan)
    rside = None if rspan is None else sides[1].side(rspan)
    changes: tuple[str, ...] = ()
    deltas: dict[str, Any] = {}
    attributes: tuple[AttributeChange, ...] = ()
    if lspan is None:
        status = DiffStatus.ADDED
    elif rspan is None:
        status = DiffStatus.REMOVED
    else:
        assert lside is not None and rside is not None
        changes, deltas, attributes = _compare(lspan, rspan, (lside, rside))
        status = DiffStatus.CHANGED if changes else DiffStatus.SAME
    return SpanDiff(
        index=index,
        parent=parent,
        depth=depth,
        operation=key[0],
        kind=key[1],
        ordinal=key[2],
        status=status,
        left=lside,
        right=rside,
        changes=changes,
        duration_delta=_delta(
            None if lside is None else lside.duration, None if rside is None else rside.duration
        ),
        metric_deltas=deltas,
        attributes=attributes,
    )


def tool_calls(run: RunRecord) -> tuple[ToolCall, ...]:
    """The run's ``tool`` spans in start order, as :class:`ToolCall` s."""
    trace = run.trace if isinstance(run.trace, Trace) else None
    spans = () if trace is None else trace.spans
    calls: list[ToolCall] = []
    for span in spans:
        if span.kind != SpanKind.TOOL:
            continue
        arguments = span.input
        if arguments is None:
            arguments = next(
                (span.attributes[k] for k in _ARGUMENT_ATTRIBUTES if k in span.attributes), None
            )
        calls.append(
            ToolCall(position=len(calls), name=span.operation, arguments=arguments, span_id=span.id)
        )
    return tuple(calls)


TOOL_WINDOW = 200
"""Tool calls aligned at once: longer sequences are aligned window by window (below)."""


def _opcodes(left: Sequence[str], right: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """:meth:`difflib.SequenceMatcher.get_opcodes` of two name sequences (no junk heuristic),
    exact while both fit in :data:`TOOL_WINDOW`. Longer ones (SequenceMatcher is quadratic
    on the few distinct names tools have) are aligned a window of each side at a time: the
    steps up to the window's last equal block are kept and the next windows start after it
    (a window pair without any equal name is one replace step)."""
    codes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    while i < len(left) or j < len(right):
        lwin, rwin = left[i : i + TOOL_WINDOW], right[j : j + TOOL_WINDOW]
        last = i + len(lwin) == len(left) and j + len(rwin) == len(right)
        found: list[tuple[str, int, int, int, int]] = list(
            difflib.SequenceMatcher(None, lwin, rwin, autojunk=False).get_opcodes()
        )
        if not last:
            ends = [k for k, code in enumerate(found) if code[0] == "equal"]
            op = "replace" if lwin and rwin else "delete" if lwin else "insert"
            found = found[: ends[-1] + 1] if ends else [(op, 0, len(lwin), 0, len(rwin))]
        for op, i1, i2, j1, j2 in found:
            codes.append((op, i + i1, i + i2, j + j1, j + j2))
        i, j = codes[-1][2], codes[-1][4]
    return codes


def align_tools(left: Sequence[ToolCall], right: Sequence[ToolCall]) -> tuple[ToolStep, ...]:
    """Side-by-side rows of two tool-call sequences, aligned on tool names by
    :class:`difflib.SequenceMatcher` (:func:`_opcodes`): one row per call of an ``equal``,
    ``insert`` or ``delete`` step, and the calls of a ``replace`` step paired in order."""
    steps: list[ToolStep] = []
    codes = _opcodes([call.name for call in left], [call.name for call in right])
    for op, i1, i2, j1, j2 in codes:
        for offset in range(max(i2 - i1, j2 - j1)):
            lcall = left[i1 + offset] if i1 + offset < i2 else None
            rcall = right[j1 + offset] if j1 + offset < j2 else None
            steps.append(
                ToolStep(
                    op=StepOp(op),
                    left=lcall,
                    right=rcall,
                    arguments_changed=op == "equal"
                    and lcall is not None
                    and rcall is not None
                    and lcall.arguments != rcall.arguments,
                )
            )
    return tuple(steps)


def output_text(output: Any) -> str:
    """The text an output is compared by: a string as it is, anything else as JSON with
    sorted keys and two-space indents (values JSON cannot hold written with ``str``)."""
    if isinstance(output, str):
        return output
    return json.dumps(output, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def output_diff(left: RunRecord, right: RunRecord) -> tuple[str, ...]:
    """The unified diff (3 lines of context, no line endings) of the runs' outputs as
    recorded (so already redacted by the record's policy); empty when they are equal."""
    return tuple(
        difflib.unified_diff(
            output_text(left.output).splitlines(),
            output_text(right.output).splitlines(),
            fromfile=f"{left.run_id} output",
            tofile=f"{right.run_id} output",
            lineterm="",
        )
    )


def run_totals(
    left: RunRecord, right: RunRecord, registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY
) -> tuple[TotalDelta, ...]:
    """The runs' wall time and their projected totals of :data:`TOTAL_SEMANTICS` (the values
    the report's metric table projects), each side in the semantic type's canonical unit.
    A total neither run has is left out."""
    totals = [
        TotalDelta(
            name="duration",
            unit="s",
            left=left.run.duration,
            right=right.run.duration,
            delta=_delta(left.run.duration, right.run.duration),
        )
    ]
    projected = [project_observations(run_observations(run), registry) for run in (left, right)]
    for semantic in TOTAL_SEMANTICS:
        items = [
            UnitValue(label, metrics[semantic].value, metrics[semantic].observation.unit)
            for label, metrics in zip(("left", "right"), projected, strict=True)
            if semantic in metrics
        ]
        if not items:
            continue
        converted = to_common_unit(
            items, semantic_type=semantic, canonical_unit=registry.unit_of(semantic)
        )
        lvalue = _numeric(converted.values.get("left"))
        rvalue = _numeric(converted.values.get("right"))
        totals.append(
            TotalDelta(
                name=semantic,
                unit=converted.unit,
                left=lvalue,
                right=rvalue,
                delta=_delta(lvalue, rvalue),
            )
        )
    return tuple(totals)


def _numeric(value: Any) -> float | int | None:
    return value if _number(value) else None


def score_changes(left: RunRecord, right: RunRecord) -> tuple[ScoreChange, ...]:
    """Every scorer of either run (left's order, then right-only ones) and how its value
    compares; a scorer that failed on one side compares by its error."""
    lscores = {score.name: score for score in left.scores}
    rscores = {score.name: score for score in right.scores}
    changes = []
    for name in dict.fromkeys([*lscores, *rscores]):
        ls, rs = lscores.get(name), rscores.get(name)
        if ls is None:
            status = DiffStatus.ADDED
        elif rs is None:
            status = DiffStatus.REMOVED
        elif (ls.value, ls.error) == (rs.value, rs.error):
            status = DiffStatus.SAME
        else:
            status = DiffStatus.CHANGED
        changes.append(
            ScoreChange(
                name=name,
                status=status,
                left=None if ls is None else ls.value,
                right=None if rs is None else rs.value,
                left_error=None if ls is None else ls.error,
                right_error=None if rs is None else rs.error,
            )
        )
    return tuple(changes)


def _summary(run: RunRecord) -> RunSummary:
    trace = run.trace
    return RunSummary(
        run_id=run.run_id,
        experiment_id=run.experiment_id,
        case_id=run.case_id,
        variant_id=run.variant_id,
        repeat=run.run.repeat,
        status=run.status.value,
        spans=0
        if trace is None
        else (len(trace.spans) if isinstance(trace, Trace) else trace.spans),
        trace_loaded=trace is None or isinstance(trace, Trace),
    )


def _counts(spans: Iterable[SpanDiff]) -> dict[str, int]:
    counts = dict.fromkeys((status.value for status in DiffStatus), 0)
    for span in spans:
        counts[span.status.value] += 1
    return counts


def diff_runs(
    left: RunRecord, right: RunRecord, *, registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY
) -> RunDiff:
    """Compare two runs (any two: the same case under two variants, or in two experiments).

    ``added`` means only in ``right``, ``removed`` only in ``left``; every delta is
    ``right - left``. A run whose trace was stored apart and not read (a
    :class:`~autobench.records.TraceSummary`) contributes no spans and no tool calls, and its
    :attr:`RunSummary.trace_loaded` is false. ``registry`` supplies the semantic types'
    canonical units for the totals (the experiment's, ``ExperimentResult.registry``, when the
    runs declared their own types). Raises nothing for well-formed records.
    """
    with _collector_paused():
        return _diff_runs(left, right, registry)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a diff builds its hundreds of thousands of
    small acyclic models (it would walk them again and again: half the time of a
    100,000-span diff), and back on after, unless it was off already."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _diff_runs(left: RunRecord, right: RunRecord, registry: SemanticRegistry) -> RunDiff:
    spans = align_spans(left, right)
    ltools, rtools = tool_calls(left), tool_calls(right)
    lines = output_diff(left, right)
    return RunDiff(
        left=_summary(left),
        right=_summary(right),
        spans=tuple(spans),
        span_counts=_counts(spans),
        left_tools=ltools,
        right_tools=rtools,
        tool_steps=align_tools(ltools, rtools),
        output_equal=not lines,
        output_diff=lines,
        totals=run_totals(left, right, registry),
        scores=score_changes(left, right),
    )
