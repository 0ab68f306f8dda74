"""Enumerations of the evidence model: statuses, observation kinds, roles, directions, sources."""

from __future__ import annotations

from enum import StrEnum


class TaskStatus(StrEnum):
    """Whether the application code ran: ``passed`` (returned), ``errored`` (raised),
    ``failed`` (returned but reported failure through ``ctx.error``), ``skipped``."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"


class EvaluationStatus(StrEnum):
    """Whether scoring and constraints held for a run."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"


class RunStatus(StrEnum):
    """The final state of a run, combining task and evaluation status."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"


class ObservationKind(StrEnum):
    METRIC = "metric"
    FACTOR = "factor"
    EVENT = "event"
    DIAGNOSTIC = "diagnostic"
    ARTIFACT = "artifact"


class ObservationRole(StrEnum):
    """How a metric takes part in evaluation: optimised, required, or explanatory."""

    OBJECTIVE = "objective"
    CONSTRAINT = "constraint"
    DIAGNOSTIC = "diagnostic"


class Direction(StrEnum):
    MAXIMIZE = "maximize"
    MINIMIZE = "minimize"


class ObservationSource(StrEnum):
    """Where an observation came from; projection prefers earlier entries of
    :data:`SOURCE_PRECEDENCE` when one semantic type has values from several sources."""

    SCORE = "score"
    DERIVED = "derived"
    TASK_OBSERVATION = "task_observation"
    IMPORTED = "imported"


SOURCE_PRECEDENCE: tuple[ObservationSource, ...] = (
    ObservationSource.SCORE,
    ObservationSource.DERIVED,
    ObservationSource.TASK_OBSERVATION,
    ObservationSource.IMPORTED,
)
"""Projection order: a scorer's judgement outranks a derived value, which outranks
what the task observed, which outranks imported evidence."""
