"""Scoring of one run: call each scorer of the spec and normalise what it returns.

For each :class:`ScorerSpec` in ``spec.scoring`` (in declaration order) the
runtime awaits ``scorer.score(call)``, with ``call.selected_spans`` set to the
spans the scorer's ``span`` selector matches (all spans when it has none).
Scorers run on every run, including runs whose task raised (``output`` is
then ``None``):

* a :class:`ScoreRecord` is kept, with ``semantic_type``, ``unit``,
  ``direction`` and ``role`` filled from the scorer spec where the record
  leaves them ``None`` (role: ``scorer.effective_role``), and ``optional``
  taken from the spec;
* any other return value becomes ``ScoreRecord(name=scorer.name, value=...)``
  filled the same way;
* a raising scorer (:class:`MissingPathError` or anything else) gives a
  ``ScoreRecord`` with ``error`` set and no value, plus an
  :class:`ErrorRecord` with stage ``scorer`` and ``source`` the scorer name.
  Only that run is affected; whether the error affects its status is decided
  in ``_status`` (errors of ``optional`` scorers never do).

:func:`score_run` is awaited on the event loop for async tasks. A sync task's
worker thread has no event loop running, so it scores with
:func:`score_run_inline` when :func:`scores_inline` holds (every scorer is a
built-in of ``NEVER_SUSPENDING_SCORERS``: the coroutine is driven with a single
``send(None)``); other scorers (``python`` scorers, plugin kinds) are awaited on the experiment's event loop
(``_bridge.run_on_loop``).

What scorers record besides their scores (``ScoringCall.evidence``: a judge's
tokens and cost, its own trace, its rubric's version) joins the run's evidence
through :func:`add_scorer_evidence` once scoring is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from autobench.core.runtime._evidence import EvidenceBuffer, error_record
from autobench.core.scoring import NEVER_SUSPENDING_SCORERS, ScorerSpec, ScoringCall
from autobench.core.scoring._base import ScorerEvidence
from autobench.records import AssetBinding, ErrorRecord, ScoreRecord

_NEVER_SUSPENDS = frozenset(kind.__dict__["score"] for kind in NEVER_SUSPENDING_SCORERS)
"""The ``score`` functions of the built-in scorers that are plain computations (never await)."""

ScoringResult = tuple[tuple[ScoreRecord, ...], tuple[ErrorRecord, ...]]
"""The scores of one run (one per scorer, in order) and the errors of the scorers that raised."""


def _filled(record: ScoreRecord, scorer: ScorerSpec) -> ScoreRecord:
    # The spec names the score: a scorer returning a record under another name would let
    # two scorers write the same score, so the spec's name always wins.
    update: dict[str, Any] = {}
    if record.name != scorer.name:
        update["name"] = scorer.name
    if record.semantic_type is None and scorer.semantic_type is not None:
        update["semantic_type"] = scorer.semantic_type
    if record.unit is None and scorer.unit is not None:
        update["unit"] = scorer.unit
    if record.direction is None and scorer.direction is not None:
        update["direction"] = scorer.direction
    if record.role is None:
        update["role"] = scorer.effective_role
    if record.optional != scorer.optional:
        update["optional"] = scorer.optional
    return record.model_copy(update=update) if update else record


async def score_run(scorers: Sequence[ScorerSpec], call: ScoringCall) -> ScoringResult:
    """Run every scorer on one run; return the scores (one per scorer, in order) and
    the errors of the scorers that raised."""
    scores: list[ScoreRecord] = []
    errors: list[ErrorRecord] = []
    for scorer in scorers:
        try:
            result = await scorer.score(_selected(scorer, call))
            if result is None:
                raise TypeError(
                    f"scorer {scorer.name!r} returned None; return a value or a ScoreRecord"
                )
        except Exception as exc:
            scores.append(
                ScoreRecord(
                    name=scorer.name,
                    semantic_type=scorer.semantic_type,
                    unit=scorer.unit,
                    direction=scorer.direction,
                    role=scorer.effective_role,
                    error=f"{type(exc).__name__}: {exc}",
                    optional=scorer.optional,
                )
            )
            errors.append(error_record(exc, stage="scorer", source=scorer.name))
            continue
        scores.append(
            _filled(result, scorer)
            if isinstance(result, ScoreRecord)
            else scorer.score_record(result)
        )
    return tuple(scores), tuple(errors)


def _selected(scorer: ScorerSpec, call: ScoringCall) -> ScoringCall:
    """``call`` with ``selected_spans`` narrowed by the scorer's ``span`` selector."""
    if scorer.span is None:
        return call
    return replace(call, selected_spans=scorer.span.select(call.spans, call.observations))


def scores_inline(scorers: Sequence[ScorerSpec]) -> bool:
    """Whether :func:`score_run_inline` may score with ``scorers`` (all built-in ``score``)."""
    return all(getattr(type(scorer), "score", None) in _NEVER_SUSPENDS for scorer in scorers)


def score_run_inline(scorers: Sequence[ScorerSpec], call: ScoringCall) -> ScoringResult:
    """:func:`score_run` without an event loop, for scorers accepted by :func:`scores_inline`.

    Raises ``RuntimeError`` if a scorer suspends after all.
    """
    coroutine = score_run(scorers, call)
    try:
        coroutine.send(None)
    except StopIteration as finished:
        result: ScoringResult = finished.value
        return result
    coroutine.close()
    raise RuntimeError("a scorer expected never to suspend awaited something")


def add_scorer_evidence(evidence: EvidenceBuffer, recorded: ScorerEvidence) -> None:
    """Add what the scorers of a run recorded to the run's ``evidence``: observations as
    task observations (linked to no span of the application's trace), artifacts,
    and asset versions (an asset the task bound itself keeps its binding)."""
    for item in recorded.observations:
        evidence.add_observation(
            item.name,
            item.value,
            kind=item.kind,
            span_id=None,
            semantic_type=item.semantic_type,
            unit=item.unit,
            direction=item.direction,
            role=item.role,
            reason=item.reason,
            tags=dict(item.tags),
        )
    for artifact in recorded.artifacts:
        evidence.add_artifact(
            artifact.name,
            artifact.payload,
            media_type=artifact.media_type,
            tags=dict(artifact.tags),
            span_id=None,
        )
    for asset_id, (version, kind) in recorded.assets.items():
        evidence.assets.setdefault(asset_id, AssetBinding(version=version, kind=kind))
