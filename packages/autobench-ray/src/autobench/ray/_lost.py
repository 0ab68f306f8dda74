"""The record of a run whose worker was lost (killed, out of memory, node gone).

Nothing of the run's own evidence survives its worker, so the record holds what the
driver knows: the planned case and variant, an ``errored`` status, and one error of stage
:data:`WORKER_LOST` whose message says what Ray reported. It is recorded like any other
run (once), so the run is never lost; ``--resume`` does not run it again.
"""

from __future__ import annotations

from datetime import datetime

from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._evidence import error_record
from autobench.core.runtime._status import decide_outcome
from autobench.records import ACCOUNTING_VERSION, RunInfo, RunRecord, TaskStatus

WORKER_LOST = "worker_lost"
"""Error stage of a run whose worker process or node died before it returned."""


def lost_run(
    planned: MatrixRunSpec,
    *,
    experiment_id: str,
    benchmark_id: str,
    started_at: datetime,
    duration: float,
    reason: BaseException,
) -> RunRecord:
    """An errored record of ``planned`` (error stage :data:`WORKER_LOST`, message: the type
    and text of Ray's ``reason``, first line only; no trace, not scored)."""
    text = str(reason).strip().splitlines()
    message = (
        f"the worker running this run was lost ({type(reason).__name__}: {text[0] if text else ''})"
    )
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
    )
