"""Run-against-run diff models: what :func:`autobench.report.diff_runs` computes from two runs.

Every delta is ``right - left`` and ``None`` when either side has no value, so a span or run
without a number never reads as a change to or from 0.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field

from autobench.report._model import ReportModel


class DiffStatus(StrEnum):
    """How an aligned item compares: only on the ``right`` side (``added``), only on the
    ``left`` (``removed``), on both with different content (``changed``), or the same."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    SAME = "same"


class StepOp(StrEnum):
    """A step of the tool-call alignment (:class:`difflib.SequenceMatcher` opcodes)."""

    EQUAL = "equal"
    INSERT = "insert"
    DELETE = "delete"
    REPLACE = "replace"


class AttributeChange(ReportModel):
    """An attribute whose value differs between the sides; ``in_left``/``in_right`` say
    whether each side has it at all (``left``/``right`` are ``None`` where it does not)."""

    model_config = ConfigDict(defer_build=True)

    key: str
    left: Any = None
    right: Any = None
    in_left: bool = True
    in_right: bool = True


class SpanSide(ReportModel):
    """One side's span of an aligned node: its id, status, duration (seconds; ``None`` for a
    partial span) and the usage it carries, ``metrics[name]`` with name one of
    ``input_tokens``, ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``,
    ``reasoning_tokens`` (tokens) and ``cost`` (USD)."""

    model_config = ConfigDict(defer_build=True)

    span_id: str
    status: str
    duration: float | None = None
    error: str | None = None
    metrics: dict[str, float | int] = Field(default_factory=dict)


class SpanDiff(ReportModel):
    """One node of the aligned span trees, in pre-order (a parent before its children).

    ``index`` is the node's position in :attr:`RunDiff.spans`, ``parent`` its parent's
    (``None`` for a root) and ``depth`` its nesting (0 for a root). A node is matched by its
    path from the root: each step is the operation, the kind and ``ordinal``, which sibling
    of that operation and kind it is (0 for the first, in start order). ``changes`` names
    what differs on a matched node (``status``, ``error``, ``input``, ``output``,
    ``attributes``, ``tokens``, ``cost``); durations always differ between two real runs,
    so a duration alone never makes a node ``changed``: read ``duration_delta``.
    ``metric_deltas`` has a ``right - left`` entry for every metric both sides carry.
    """

    model_config = ConfigDict(defer_build=True)

    index: int
    parent: int | None
    depth: int
    operation: str
    kind: str
    ordinal: int
    status: DiffStatus
    left: SpanSide | None = None
    right: SpanSide | None = None
    changes: tuple[str, ...] = ()
    duration_delta: float | None = None
    metric_deltas: dict[str, float | int] = Field(default_factory=dict)
    attributes: tuple[AttributeChange, ...] = ()


class ToolCall(ReportModel):
    """A tool span: its ``position`` among the side's tool calls (start order), the tool
    name (the span's operation), the arguments (the span's input, else an ``arguments``
    attribute) and the span id."""

    model_config = ConfigDict(defer_build=True)

    position: int
    name: str
    arguments: Any = None
    span_id: str


class ToolStep(ReportModel):
    """A row of the side-by-side tool calls: ``op`` is the alignment step the row belongs
    to; ``left``/``right`` is ``None`` where that side has no call in the row (an insert,
    a delete, or the longer half of a replace). ``arguments_changed`` is set on an
    ``equal`` row whose calls share a name but not their arguments."""

    model_config = ConfigDict(defer_build=True)

    op: StepOp
    left: ToolCall | None = None
    right: ToolCall | None = None
    arguments_changed: bool = False


class TotalDelta(ReportModel):
    """A run total on both sides (``None``: the run has no value) in ``unit``, and
    ``delta = right - left``. ``name`` is ``duration`` (the run's wall time) or a
    semantic type (``llm.tokens.input``, ``money.cost``, ...)."""

    model_config = ConfigDict(defer_build=True)

    name: str
    unit: str | None = None
    left: float | int | None = None
    right: float | int | None = None
    delta: float | int | None = None


class ScoreChange(ReportModel):
    """A scorer's value on both sides (``None`` where it produced none, with the error when
    it failed) and how they compare."""

    model_config = ConfigDict(defer_build=True)

    name: str
    status: DiffStatus
    left: Any = None
    right: Any = None
    left_error: str | None = None
    right_error: str | None = None


class RunSummary(ReportModel):
    """Which run a side is: ids, status and span count (``trace_loaded`` is false when the
    record holds only a summary of a trace stored apart and it was not read)."""

    model_config = ConfigDict(defer_build=True)

    run_id: str
    experiment_id: str
    case_id: str
    variant_id: str
    repeat: int
    status: str
    spans: int
    trace_loaded: bool


class RunDiff(ReportModel):
    """Two runs compared: the aligned span trees (pre-order), the tool calls of each side
    with their alignment, a unified diff of the outputs (empty when they are equal), run
    totals and every score with how it compares."""

    model_config = ConfigDict(defer_build=True)

    left: RunSummary
    right: RunSummary
    spans: tuple[SpanDiff, ...] = ()
    span_counts: dict[str, int] = Field(default_factory=dict)
    """How many aligned nodes have each :class:`DiffStatus` (every status present, 0s kept)."""
    left_tools: tuple[ToolCall, ...] = ()
    right_tools: tuple[ToolCall, ...] = ()
    tool_steps: tuple[ToolStep, ...] = ()
    output_equal: bool = True
    output_diff: tuple[str, ...] = ()
    totals: tuple[TotalDelta, ...] = ()
    scores: tuple[ScoreChange, ...] = ()

    def span_path(self, index: int) -> tuple[str, ...]:
        """The path of node ``index`` from its root: ``operation[kind]`` per step, with
        ``#n`` added for the n-th (n > 0) sibling of that operation and kind. Raises
        ``IndexError`` for an index outside :attr:`spans`."""
        steps: list[str] = []
        node: int | None = index
        while node is not None:
            span = self.spans[node]
            step = f"{span.operation}[{span.kind}]"
            steps.append(step if span.ordinal == 0 else f"{step}#{span.ordinal}")
            node = span.parent
        return tuple(reversed(steps))

    @property
    def changed_scores(self) -> tuple[ScoreChange, ...]:
        """The scores that are not ``same``."""
        return tuple(score for score in self.scores if score.status is not DiffStatus.SAME)
