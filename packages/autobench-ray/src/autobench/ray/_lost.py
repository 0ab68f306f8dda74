"""The record of a run whose worker was lost (killed, out of memory, node gone).

Nothing of the run's own evidence survives its worker, so the record holds what the
driver knows: the planned case and variant, an ``errored`` status, and one error of stage
:data:`WORKER_LOST` whose message says what Ray reported. It is recorded like any other
run (once), so the run is never lost; ``--resume`` does not run it again.

A lost worker is an error of type :class:`WorkerLostError` (a ``RuntimeError``) to the
spec's retry policy: when ``run: {retries}`` admits it (no ``on``, or ``on`` naming it or
one of its bases) and attempts remain, the driver executes the run again, alone, after
the policy's backoff for that attempt, and the record lists every attempt
(:func:`attempt_lost`, :func:`with_lost_attempts`), as a local retried run's does.
"""

from __future__ import annotations

from datetime import datetime

from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._evidence import error_record
from autobench.core.runtime._status import decide_outcome
from autobench.records import (
    ACCOUNTING_VERSION,
    AttemptError,
    AttemptRecord,
    RunInfo,
    RunRecord,
    TaskStatus,
)

WORKER_LOST = "worker_lost"
"""Error stage of a run whose worker process or node died before it returned."""

WORKER_LOST_TYPE = "autobench.ray.WorkerLostError"
"""The recorded type of a lost worker's attempt error."""


class WorkerLostError(RuntimeError):
    """The worker process (or node) executing a run died before the run returned: what the
    retry policy's ``on`` sees for a lost worker (``on: [RuntimeError]`` retries it)."""


def lost_message(reason: BaseException) -> str:
    """What a lost run's error says: the type and first line of Ray's ``reason``."""
    text = str(reason).strip().splitlines()
    return (
        f"the worker running this run was lost ({type(reason).__name__}: {text[0] if text else ''})"
    )


def attempt_lost(number: int, duration: float, reason: BaseException) -> AttemptRecord:
    """The attempt ``number`` of a run, lost with its worker after ``duration`` seconds."""
    error = AttemptError(stage=WORKER_LOST, type=WORKER_LOST_TYPE, message=lost_message(reason))
    return AttemptRecord(number=number, duration=duration, error=error)


def with_lost_attempts(record: RunRecord, lost: tuple[AttemptRecord, ...]) -> RunRecord:
    """``record`` of a run executed again after ``lost`` attempts lost their workers: its
    attempts are those, then its own renumbered after them (a record of one attempt gets
    one, from its duration, ``time.queue`` and task error)."""
    own = record.attempts or (_only_attempt(record),)
    shifted = tuple(
        attempt.model_copy(update={"number": attempt.number + len(lost)}) for attempt in own
    )
    return record.model_copy(update={"attempts": lost + shifted})


def _only_attempt(record: RunRecord) -> AttemptRecord:
    queued = [o.value for o in record.observations if o.semantic_type == "time.queue"]
    error = next(
        (
            AttemptError(stage=found.stage, type=found.type, message=found.message)
            for found in record.errors
            if found.stage in ("task", "timeout")
        ),
        None,
    )
    value = queued[0] if queued and isinstance(queued[0], int | float) else 0.0
    return AttemptRecord(
        number=1, duration=record.run.duration or 0.0, queued=float(value), error=error
    )


def lost_run(
    planned: MatrixRunSpec,
    *,
    experiment_id: str,
    benchmark_id: str,
    started_at: datetime,
    duration: float,
    reason: BaseException,
    attempts: tuple[AttemptRecord, ...] = (),
) -> RunRecord:
    """An errored record of ``planned`` (error stage :data:`WORKER_LOST`, message: the type
    and text of Ray's ``reason``, first line only; no trace, not scored), listing
    ``attempts`` when the run was retried."""
    message = lost_message(reason)
    status, outcome = decide_outcome(TaskStatus.ERRORED, (), ())
    info = RunInfo(
        id=planned.run_id,
        experiment=experiment_id,
        benchmark=benchmark_id,
        case=planned.case.id,
        variant=planned.variant.id,
        index=planned.index,
        status=status,
        outcome=outcome,
        started_at=started_at,
        duration=duration,
        accounting=ACCOUNTING_VERSION,
        repeat=planned.repeat,
    )
    return RunRecord(
        run=info,
        case=planned.case,
        variant=planned.variant,
        errors=(error_record(message, stage=WORKER_LOST),),
        attempts=attempts,
    )
