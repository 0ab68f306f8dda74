"""The status rule: from what happened in a run to its task, evaluation and run status.

The rule (spec sections "Run Status Model" and "Failure And Status Model"):

1. The task raised: task ``errored`` and run ``errored``, whatever the
   scorers give. The scorers still run (with ``output`` ``None``) so that
   scorers reading spans and observations see what was recorded before the
   raise; their scores and errors are recorded and the evaluation status is
   computed as in rule 2, but nothing they give changes the run's status.
2. Otherwise the task is ``failed`` when it reported an error through
   ``ctx.error(...)`` and ``passed`` when it did not. Scorers run, and the
   evaluation is

   * ``errored`` when a scorer that is not ``optional`` raised;
   * else ``failed`` when any constraint-role evidence is false or ``0``:
     scores with role ``constraint`` and observations with role
     ``constraint`` (failed ``ctx.check``\\ s, and failed policies: each
     policy result is a ``policy.result`` constraint observation whose value
     is ``False`` when the policy failed, see ``_policies``);
   * else ``passed``.

   Objective and diagnostic values never fail a run by themselves.
3. The run is ``errored`` when the evaluation errored, else ``failed`` when the
   task or the evaluation failed, else ``passed``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from autobench.records import (
    EvaluationStatus,
    Observation,
    ObservationRole,
    RunOutcome,
    RunStatus,
    ScoreRecord,
    TaskStatus,
)


def is_failing_value(value: Any) -> bool:
    """Whether a constraint value fails: ``False`` or a number equal to ``0``."""
    if value is False:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def evaluation_status(
    scores: Iterable[ScoreRecord], observations: Iterable[Observation]
) -> EvaluationStatus:
    """Evaluation status of a run's scores and task observations (rule 2)."""
    failed = False
    for score in scores:
        if score.error is not None:
            if not score.optional:
                return EvaluationStatus.ERRORED
            continue
        if score.role == ObservationRole.CONSTRAINT and is_failing_value(score.value):
            failed = True
    if not failed:
        failed = any(
            obs.role == ObservationRole.CONSTRAINT and is_failing_value(obs.value)
            for obs in observations
        )
    return EvaluationStatus.FAILED if failed else EvaluationStatus.PASSED


def run_status(task: TaskStatus, evaluation: EvaluationStatus) -> RunStatus:
    """Final run status from the two layers (rules 1 and 3)."""
    if task is TaskStatus.ERRORED or evaluation is EvaluationStatus.ERRORED:
        return RunStatus.ERRORED
    if task is TaskStatus.SKIPPED:
        return RunStatus.SKIPPED
    if task is TaskStatus.FAILED or evaluation is EvaluationStatus.FAILED:
        return RunStatus.FAILED
    return RunStatus.PASSED


def decide_outcome(
    task: TaskStatus, scores: Iterable[ScoreRecord], observations: Iterable[Observation]
) -> tuple[RunStatus, RunOutcome]:
    """Apply the whole rule. The evaluation of a skipped task is ``skipped``; that of a
    task that raised is computed as usual and cannot change its ``errored`` run status."""
    if task is TaskStatus.SKIPPED:
        evaluation = EvaluationStatus.SKIPPED
    else:
        evaluation = evaluation_status(scores, observations)
    return run_status(task, evaluation), RunOutcome(task=task, evaluation=evaluation)
