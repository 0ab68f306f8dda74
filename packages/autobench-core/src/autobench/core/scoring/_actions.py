"""The ``expected_action`` scorer: a case's expected actions against the spans a run recorded.

Expected actions come from ``case.expected.actions`` (generic shape) or
``case.expected.tool_calls`` (tool shape); see :class:`ExpectedAction`.
Observed actions are the scorer's selected spans whose kind is the scorer's
``observed_kind``. Matching and the three metrics are documented on
:class:`ExpectedActionScorer` and in ``docs/agentic.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from autobench.abp import SpanRecord
from autobench.core.scoring._base import ScorerSpec, ScoringCall
from autobench.records import ScoreRecord, Semantic

ActionMetric = Literal["selection", "arguments", "sequence"]

DEFAULT_SEMANTICS: dict[str, str] = {
    "selection": Semantic.AGENT_TOOL_SELECTION_CORRECTNESS,
    "arguments": Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS,
    "sequence": Semantic.AGENT_TOOL_SEQUENCE_CORRECTNESS,
}
"""The semantic type of an ``expected_action`` score when the scorer declares none."""


class ExpectedAction(BaseModel):
    """One action a run is expected to perform.

    Generic shape (``expected.actions``)::

        {id, kind, target, input, output, order, required, metadata}

    Tool shape (``expected.tool_calls``): ``{tool, args, order}``; ``tool`` is
    read as ``target`` and ``args`` (or ``arguments``) as ``input``, in
    either list. ``target`` is required; ``required`` defaults to true;
    ``order`` (an integer) places the action in the expected sequence, equal
    orders meaning "in either order"; ``output``, when given (even as
    ``null``), must be contained in the observed output; ``metadata`` is kept
    and not interpreted. Unknown keys are errors.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True)

    id: str | None = None
    kind: str | None = None
    target: str = Field(min_length=1, validation_alias=AliasChoices("target", "tool"))
    input: Any = Field(default=None, validation_alias=AliasChoices("input", "args", "arguments"))
    output: Any = None
    order: int | None = None
    required: bool = True
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        """The action's id, else its target: how reasons name it."""
        return self.id or self.target

    @property
    def declares_output(self) -> bool:
        return "output" in self.model_fields_set


def expected_actions(expected: Any) -> tuple[ExpectedAction, ...]:
    """The expected actions of a case's ``expected`` value.

    Raises ``LookupError`` when it has neither ``actions`` nor ``tool_calls``
    and ``ValueError`` when it has both or an entry is malformed.
    """
    if not isinstance(expected, Mapping):
        raise LookupError("case.expected has no 'actions' or 'tool_calls' (it is not a mapping)")
    present = [key for key in ("actions", "tool_calls") if key in expected]
    if not present:
        raise LookupError(
            "case.expected has no 'actions' or 'tool_calls' "
            f"(keys: {', '.join(map(str, expected)) or 'none'})"
        )
    if len(present) > 1:
        raise ValueError("case.expected has both 'actions' and 'tool_calls'; use one")
    raw = expected[present[0]]
    if raw is None:
        return ()
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise ValueError(f"case.expected.{present[0]} must be a list, not {type(raw).__name__}")
    return tuple(ExpectedAction.model_validate(item) for item in raw)


def contains(observed: Any, expected: Any) -> bool:
    """Subset match: every key of an expected mapping is in the observed mapping with a
    matching value (recursively; extra observed keys are fine); sequences match item by
    item and must have the same length; other values compare with ``==``, except that
    booleans only equal booleans."""
    if isinstance(expected, Mapping):
        return isinstance(observed, Mapping) and all(
            key in observed and contains(observed[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(observed, list | tuple)
            and len(observed) == len(expected)
            and all(contains(o, e) for o, e in zip(observed, expected, strict=True))
        )
    if isinstance(expected, bool) or isinstance(observed, bool):
        return isinstance(expected, bool) and isinstance(observed, bool) and observed == expected
    return bool(observed == expected)


def argument_agreement(action: ExpectedAction, span: SpanRecord) -> tuple[float, list[str]]:
    """The share of the action's expected input keys the span's input matches, and the
    keys that do not. No expected input (``null`` or ``{}``) agrees fully; a non-mapping
    expected input is one unit matched as a whole."""
    expected = action.input
    if expected is None or (isinstance(expected, Mapping) and not expected):
        return 1.0, []
    if not isinstance(expected, Mapping):
        return (1.0, []) if contains(span.input, expected) else (0.0, ["input"])
    observed = span.input if isinstance(span.input, Mapping) else {}
    wrong = [
        str(key)
        for key, value in expected.items()
        if key not in observed or not contains(observed[key], value)
    ]
    return (len(expected) - len(wrong)) / len(expected), wrong


def _targets(span: SpanRecord) -> tuple[str, ...]:
    tool = span.tags.get("tool")
    return (span.operation,) if tool is None else (span.operation, tool)


def _compatible(action: ExpectedAction, span: SpanRecord) -> bool:
    return (
        action.target in _targets(span)
        and (action.kind is None or action.kind == span.kind)
        and (not action.declares_output or contains(span.output, action.output))
    )


@dataclass(frozen=True, slots=True)
class ActionMatching:
    """Expected actions paired with observed spans (each span used at most once).

    ``pairs`` maps an expected action's index to ``(span index, argument
    agreement, mismatched keys)``; ``counted`` are the indices of the actions
    that count (required ones, and optional ones that matched).
    """

    actions: tuple[ExpectedAction, ...]
    spans: tuple[SpanRecord, ...]
    pairs: Mapping[int, tuple[int, float, list[str]]]

    @property
    def counted(self) -> list[int]:
        return [i for i, action in enumerate(self.actions) if action.required or i in self.pairs]


def match_actions(actions: Sequence[ExpectedAction], spans: Sequence[SpanRecord]) -> ActionMatching:
    """Pair expected actions with observed spans.

    A pair is possible when the span's operation name or ``tool`` tag equals
    the target, the span's kind equals the action's ``kind`` (when given) and
    the span's output contains the declared ``output`` (when given). Pairs
    are then taken greedily by best argument agreement, ties going to the
    earlier expected action and the earlier span, so two calls of one tool
    are told apart by their arguments.
    """
    candidates = sorted(
        (-agreement[0], i, j, agreement)
        for i, action in enumerate(actions)
        for j, span in enumerate(spans)
        if _compatible(action, span)
        for agreement in [argument_agreement(action, span)]
    )
    pairs: dict[int, tuple[int, float, list[str]]] = {}
    used: set[int] = set()
    for _, i, j, (score, wrong) in candidates:
        if i not in pairs and j not in used:
            pairs[i] = (j, score, wrong)
            used.add(j)
    return ActionMatching(tuple(actions), tuple(spans), pairs)


def selection_score(matching: ActionMatching) -> tuple[float, str]:
    """Matched counted actions / counted actions (``1.0`` when none count)."""
    counted = matching.counted
    matched = [i for i in counted if i in matching.pairs]
    missing = [matching.actions[i].label for i in counted if i not in matching.pairs]
    used = {j for j, _, _ in matching.pairs.values()}
    extra = [span.operation for j, span in enumerate(matching.spans) if j not in used]
    parts = [f"matched {len(matched)} of {len(counted)}"]
    if missing:
        parts.append("missing: " + ", ".join(missing))
    if extra:
        parts.append("unexpected: " + ", ".join(extra))
    return (len(matched) / len(counted) if counted else 1.0), "; ".join(parts)


def arguments_score(matching: ActionMatching) -> tuple[float, str]:
    """Mean argument agreement over the matched counted actions (``1.0`` when no action
    counts, ``0.0`` when actions count but none matched)."""
    counted = matching.counted
    if not counted:
        return 1.0, "no expected actions"
    matched = [i for i in counted if i in matching.pairs]
    if not matched:
        return 0.0, "no expected action was performed"
    wrong = [
        f"{matching.actions[i].label}: {', '.join(matching.pairs[i][2])}"
        for i in matched
        if matching.pairs[i][2]
    ]
    score = sum(matching.pairs[i][1] for i in matched) / len(matched)
    reason = "mismatched arguments: " + "; ".join(wrong) if wrong else "all arguments match"
    return score, reason


def sequence_score(matching: ActionMatching) -> tuple[float, str]:
    """Longest run of matched actions observed in expected order / ordered counted actions.

    The ordered actions are the counted actions that declare ``order``; when
    none does, every counted action in declaration order. The matched ones,
    taken in observed (span) order, are scored by their longest subsequence
    whose expected orders never decrease (an LCS of the expected and observed
    sequences, with equal orders allowed in either order). ``1.0`` when no
    action is ordered.
    """
    counted = matching.counted
    explicit = any(matching.actions[i].order is not None for i in counted)
    keys = {
        i: (matching.actions[i].order if explicit else i)
        for i in counted
        if not explicit or matching.actions[i].order is not None
    }
    if not keys:
        return 1.0, "no ordered actions"
    observed = sorted((matching.pairs[i][0], i) for i in keys if i in matching.pairs)
    orders = [keys[i] for _, i in observed]
    longest = _longest_non_decreasing(orders)
    expected_labels = [matching.actions[i].label for i in sorted(keys, key=lambda i: (keys[i], i))]
    reason = (
        f"{longest} of {len(keys)} in order; expected: {', '.join(expected_labels)}; "
        f"observed: {', '.join(matching.actions[i].label for _, i in observed) or 'none'}"
    )
    return longest / len(keys), reason


def _longest_non_decreasing(values: Sequence[Any]) -> int:
    best = [1] * len(values)
    for k in range(len(values)):
        for m in range(k):
            if values[m] <= values[k]:
                best[k] = max(best[k], best[m] + 1)
    return max(best, default=0)


_METRICS = {"selection": selection_score, "arguments": arguments_score, "sequence": sequence_score}


class ExpectedActionScorer(ScorerSpec):
    """``expected_action: {metric, observed_kind}``: how well a run's spans match the
    case's expected actions, a number in ``[0, 1]`` (role objective by default).

    Expected actions: :func:`expected_actions` of ``case.expected``; those
    whose ``kind`` is set and differs from ``observed_kind`` are left to other
    scorers. Observed actions: the selected spans (``span:`` selector; all
    spans without one) of kind ``observed_kind`` (default ``tool``; ``null``
    takes every selected span), in start order. Pairing:
    :func:`match_actions`. An action *counts* when it is required, or when it
    is optional (``required: false``) and matched, so a missing optional
    action never lowers a score.

    Metrics:

    * ``selection``: matched counted actions / counted actions;
    * ``arguments``: mean, over matched counted actions, of the share of the
      expected ``input`` keys whose value the observed input contains
      (subset match, :func:`contains`); ``0.0`` when actions count and none
      matched;
    * ``sequence``: longest in-order subsequence of the matched ordered
      actions / ordered counted actions (:func:`sequence_score`).

    Each is ``1.0`` when nothing counts. Unexpected extra calls do not lower
    ``selection`` (it measures recall) but are named in the ``reason``. The
    default semantic type is ``agent.tool.selection.correctness``,
    ``agent.tool.argument.correctness`` or ``agent.tool.sequence.correctness``
    by metric. ``actual``/``expected`` hold the observed and expected targets.
    A case without ``actions``/``tool_calls`` is a scorer error.
    """

    keyword: ClassVar[str] = "expected_action"
    kind: Literal["expected_action"] = "expected_action"
    metric: ActionMetric
    observed_kind: str | None = "tool"

    @model_validator(mode="before")
    @classmethod
    def _default_semantic(cls, data: Any) -> Any:
        if (
            isinstance(data, Mapping)
            and data.get("semantic") is None
            and data.get("semantic_type") is None
            and data.get("metric") in DEFAULT_SEMANTICS
        ):
            data = {**data, "semantic_type": DEFAULT_SEMANTICS[data["metric"]]}
            data.pop("semantic", None)
        return data

    @classmethod
    def from_dsl(cls, name: str, action: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        """``expected_action: {metric, observed_kind, span}`` or the shorthand
        ``expected_action: <metric>``."""
        if isinstance(action, str):
            return {"kind": "expected_action", "name": name, "metric": action, **options}
        return super().from_dsl(name, action, options)

    def action_dsl(self) -> Any:
        return {"metric": self.metric, "observed_kind": self.observed_kind}

    async def score(self, call: ScoringCall) -> ScoreRecord:
        actions = tuple(
            action
            for action in expected_actions(call.case.expected)
            if action.kind is None
            or self.observed_kind is None
            or action.kind == self.observed_kind
        )
        spans = tuple(
            span
            for span in call.selected_spans
            if self.observed_kind is None or span.kind == self.observed_kind
        )
        value, reason = _METRICS[self.metric](match_actions(actions, spans))
        return self.score_record(
            value,
            actual_value=[span.tags.get("tool", span.operation) for span in spans],
            expected_value=[action.target for action in actions],
            reason=reason,
        )
