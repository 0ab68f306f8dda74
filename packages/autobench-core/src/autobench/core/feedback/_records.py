"""Optimization feedback: one compact record per run, built from recorded evidence only.

:func:`build_feedback_records` reads an :class:`ExperimentResult`, a record
directory (replayed), one :class:`RunRecord` or several, and returns a
:class:`FeedbackRecord` per run that did not pass (every run with
``include_passed=True``). Failure categories (:class:`FailureCategory`) are
derived from the evidence, never from report text:

* ``task_error``: an error of stage ``task`` (the task raised) or ``context``
  (reported with ``ctx.error``);
* ``scorer_error``: a scorer that is not optional raised or gave no score;
* ``assertion_failure``: a constraint score, or a constraint observation such as
  a failed ``ctx.check``, that is ``False`` or ``0``;
* ``policy_violation``: a ``policy.result`` observation that is ``False``;
* ``low_score``: a numeric score below ``low_score_threshold`` (a number for every
  numeric score, or a mapping from score name or semantic type to its threshold);
* ``span_error``: a span that ended in error, in a run that did not pass (a span
  error the task recovered from shows in ``trace`` but does not fail a passed run);
* ``other``: the run failed or errored and none of the above explains it.

A record ``passed`` when it has no failure category: a run whose status is
``passed`` has none unless a ``low_score_threshold`` flags one of its scores.
Skipped runs are never failures. ``assets`` is the run's asset-version section
when the record has one (a mapping ``{asset: version}`` or a list of entries with
``id``/``name`` and ``version``) and empty otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from autobench.abp import SpanRecord, SpanStatus
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    ErrorRecord,
    ExperimentResult,
    ObservationRole,
    RunRecord,
    RunStatus,
    ScoreRecord,
    SemanticRegistry,
    replay_experiment,
)

POLICY_SEMANTIC = "policy.result"


class FailureCategory(StrEnum):
    TASK_ERROR = "task_error"
    SCORER_ERROR = "scorer_error"
    ASSERTION_FAILURE = "assertion_failure"
    POLICY_VIOLATION = "policy_violation"
    LOW_SCORE = "low_score"
    SPAN_ERROR = "span_error"
    OTHER = "other"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FeedbackScore(_Model):
    """One score of the run as the optimizer sees it."""

    name: str
    value: Any = None
    semantic_type: str | None = None
    role: str | None = None
    reason: str | None = None
    error: str | None = None
    span_id: str | None = None


class FeedbackError(_Model):
    stage: str
    type: str
    message: str = ""
    source: str | None = None
    span_id: str | None = None


class FeedbackSpan(_Model):
    """A span worth looking at: one that errored, or one a failure points to."""

    id: str
    name: str
    kind: str
    status: str
    error_type: str | None = None
    error_message: str | None = None


class FeedbackRecord(_Model):
    """The compact evidence of one run for an optimizer (see the module docstring)."""

    run_id: str
    case_id: str
    variant_id: str
    status: RunStatus
    passed: bool
    failure_categories: tuple[FailureCategory, ...] = ()
    reasons: tuple[str, ...] = ()
    scores: tuple[FeedbackScore, ...] = ()
    factors: dict[str, Any] = Field(default_factory=dict)
    assets: dict[str, Any] = Field(default_factory=dict)
    errors: tuple[FeedbackError, ...] = ()
    spans: tuple[FeedbackSpan, ...] = ()
    input: Any = None
    expected: Any = None
    output: Any = None

    @property
    def failure_category(self) -> FailureCategory | None:
        """The first failure category, ``None`` for a passed record."""
        return self.failure_categories[0] if self.failure_categories else None

    @property
    def primary_score(self) -> FeedbackScore | None:
        """The score that speaks for the record: the first one that failed (raised, gave
        no value, or a false or zero value), else the first score; ``None`` without scores."""
        for score in self.scores:
            if score.error is not None or score.value is None or score.value in (False, 0):
                return score
        return self.scores[0] if self.scores else None

    @property
    def score_name(self) -> str | None:
        """The name of :attr:`primary_score`."""
        primary = self.primary_score
        return None if primary is None else primary.name

    @property
    def semantic_type(self) -> str | None:
        """The semantic type of :attr:`primary_score`."""
        primary = self.primary_score
        return None if primary is None else primary.semantic_type

    @property
    def score(self) -> Any:
        """The value of :attr:`primary_score` (``None`` without one)."""
        primary = self.primary_score
        return None if primary is None else primary.value

    @property
    def reason(self) -> str | None:
        """The first reason of the record (``None`` for a passed one without reasons)."""
        return self.reasons[0] if self.reasons else None

    @property
    def span(self) -> str | None:
        """The id of the span to look at first: the first span the record points to, else
        the span of :attr:`primary_score`."""
        if self.spans:
            return self.spans[0].id
        primary = self.primary_score
        return None if primary is None else primary.span_id


class OptimizationFeedbackInput(_Model):
    """Feedback records with the benchmark identity and the meaning of their semantic types."""

    benchmark_id: str | None = None
    experiment_id: str | None = None
    dataset_version: str | None = None
    dataset_hash: str | None = None
    runs: int = 0
    failures: dict[str, int] = Field(default_factory=dict)
    """Number of records per failure category."""
    semantics: dict[str, str | None] = Field(default_factory=dict)
    """Semantic type of each score in the records -> its description."""
    records: tuple[FeedbackRecord, ...] = ()


FeedbackSource = ExperimentResult | RunRecord | Path | str | Iterable[RunRecord]
Threshold = float | Mapping[str, float] | None


def _runs(source: FeedbackSource) -> tuple[ExperimentResult | None, tuple[RunRecord, ...]]:
    if isinstance(source, ExperimentResult):
        return source, source.runs
    if isinstance(source, RunRecord):
        return None, (source,)
    if isinstance(source, str | Path):
        result = replay_experiment(Path(source))
        return result, result.runs
    return None, tuple(source)


def _failing(value: Any) -> bool:
    if value is False:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _threshold(score: ScoreRecord, threshold: Threshold) -> float | None:
    if threshold is None or isinstance(threshold, int | float):
        return threshold
    if score.name in threshold:
        return threshold[score.name]
    if score.semantic_type is not None:
        return threshold.get(score.semantic_type)
    return None


def _assets(record: RunRecord) -> dict[str, Any]:
    assets = getattr(record, "asset_versions", None) or getattr(record, "assets", None)
    if not assets:
        return {}
    if isinstance(assets, BaseModel):
        assets = assets.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(assets, Mapping):
        return {str(key): getattr(value, "version", value) for key, value in assets.items()}
    found: dict[str, Any] = {}
    for index, entry in enumerate(assets):
        if isinstance(entry, BaseModel):
            entry = entry.model_dump(mode="json", by_alias=True, exclude_none=True)
        if isinstance(entry, Mapping):
            key = entry.get("id") or entry.get("name") or str(index)
            found[str(key)] = entry.get("version", entry)
    return found


def _span_view(span: SpanRecord) -> FeedbackSpan:
    return FeedbackSpan(
        id=span.id,
        name=span.operation,
        kind=str(span.kind),
        status=span.status.value,
        error_type=span.error.type if span.error else None,
        error_message=span.error.message if span.error else None,
    )


def _error_view(error: ErrorRecord) -> FeedbackError:
    return FeedbackError(
        stage=error.stage,
        type=error.type,
        message=error.message,
        source=error.source,
        span_id=error.span_id,
    )


def feedback_record(record: RunRecord, *, low_score_threshold: Threshold = None) -> FeedbackRecord:
    """The :class:`FeedbackRecord` of one run (see the module docstring)."""
    categories: list[FailureCategory] = []
    reasons: list[str] = []
    pointed: set[str] = set()

    def add(category: FailureCategory, reason: str, span_id: str | None = None) -> None:
        if category not in categories:
            categories.append(category)
        reasons.append(reason)
        if span_id:
            pointed.add(span_id)

    for error in record.errors:
        if error.stage in ("task", "context"):
            add(FailureCategory.TASK_ERROR, f"{error.type}: {error.message}", error.span_id)
    for score in record.scores:
        if score.error is not None:
            if not score.optional:
                add(FailureCategory.SCORER_ERROR, f"{score.name}: {score.error}", score.span_id)
            continue
        detail = score.reason or f"{score.name} = {score.value!r}"
        if score.role == ObservationRole.CONSTRAINT and _failing(score.value):
            add(FailureCategory.ASSERTION_FAILURE, f"{score.name}: {detail}", score.span_id)
            continue
        limit = _threshold(score, low_score_threshold)
        value = score.value
        if (
            limit is not None
            and isinstance(value, int | float)
            and not isinstance(value, bool)
            and value < limit
        ):
            add(FailureCategory.LOW_SCORE, f"{score.name} = {value!r} < {limit!r}", score.span_id)
    for obs in record.observations:
        if obs.semantic_type == POLICY_SEMANTIC:
            if obs.value is False:
                add(FailureCategory.POLICY_VIOLATION, f"{obs.name}: {obs.reason}", obs.span_id)
        elif obs.role == ObservationRole.CONSTRAINT and _failing(obs.value):
            add(
                FailureCategory.ASSERTION_FAILURE,
                f"{obs.name}: {obs.reason or f'{obs.value!r}'}",
                obs.span_id,
            )
    spans = record.spans
    errored = [span for span in spans if span.status == SpanStatus.ERROR or span.error]
    not_passed = record.status in (RunStatus.FAILED, RunStatus.ERRORED)
    if not_passed:
        for span in errored:
            message = span.error.message if span.error else span.status.value
            add(FailureCategory.SPAN_ERROR, f"span {span.operation}: {message}", span.id)
        if not categories:
            add(FailureCategory.OTHER, f"run {record.status.value}")
    pointed.update(span.id for span in errored)
    shown = [span for span in spans if span.id in pointed]
    return FeedbackRecord(
        run_id=record.run_id,
        case_id=record.case_id,
        variant_id=record.variant_id,
        status=record.status,
        passed=not categories,
        failure_categories=tuple(categories),
        reasons=tuple(reasons),
        scores=tuple(
            FeedbackScore(
                name=score.name,
                value=score.value,
                semantic_type=score.semantic_type,
                role=score.role.value if score.role else None,
                reason=score.reason,
                error=score.error,
                span_id=score.span_id,
            )
            for score in record.scores
        ),
        factors=record.variant.factor_values,
        assets=_assets(record),
        errors=tuple(_error_view(error) for error in record.errors),
        spans=tuple(_span_view(span) for span in shown),
        input=record.case.input,
        expected=record.case.expected,
        output=record.output,
    )


def build_feedback_records(
    source: FeedbackSource,
    *,
    include_passed: bool = False,
    low_score_threshold: Threshold = None,
) -> tuple[FeedbackRecord, ...]:
    """Feedback records of the runs in ``source`` (a result, a record directory, runs),
    in run order; only those that did not pass unless ``include_passed``."""
    _, runs = _runs(source)
    records = (feedback_record(run, low_score_threshold=low_score_threshold) for run in runs)
    return tuple(record for record in records if include_passed or not record.passed)


def build_optimization_feedback_input(
    source: FeedbackSource,
    *,
    include_passed: bool = False,
    low_score_threshold: Threshold = None,
    registry: SemanticRegistry | None = None,
) -> OptimizationFeedbackInput:
    """:func:`build_feedback_records` packaged with benchmark and experiment identity,
    dataset version and hash (when ``source`` is an experiment), counts per failure
    category, and the description of each semantic type the scores use."""
    result, runs = _runs(source)
    records = build_feedback_records(
        runs, include_passed=include_passed, low_score_threshold=low_score_threshold
    )
    registry = registry or (result.registry if result else DEFAULT_SEMANTIC_REGISTRY)
    failures: dict[str, int] = {}
    semantics: dict[str, str | None] = {}
    for record in records:
        for category in record.failure_categories:
            failures[category.value] = failures.get(category.value, 0) + 1
        for score in record.scores:
            if score.semantic_type and score.semantic_type not in semantics:
                definition = registry.get(score.semantic_type)
                semantics[score.semantic_type] = definition.description if definition else None
    dataset = result.experiment.benchmark.dataset if result else None
    first = runs[0] if runs else None
    return OptimizationFeedbackInput(
        benchmark_id=result.benchmark_id if result else (first.benchmark_id if first else None),
        experiment_id=result.experiment_id if result else (first.experiment_id if first else None),
        dataset_version=dataset.version if dataset else None,
        dataset_hash=dataset.hash if dataset else None,
        runs=len(runs),
        failures=failures,
        semantics=semantics,
        records=records,
    )
