"""Re-scoring a recorded experiment: its scorers run again on what its runs recorded.

For every recorded run (plan order; planned runs without a ``run.yaml`` are skipped)
the named scorers get the :class:`ScoringCall` the run's record can give: the case and
variant, the output, the observations the task and its instrumentation recorded (those
derived after scoring are left out, as at run time), the trace's spans, and ``ctx``
``None`` (a run context lives only while the task runs). Scoring is the runtime's own
(:func:`~autobench.core.runtime._scoring.score_run`), so a scorer that raises gives a
score with ``error`` set and an error record on that run only, never a failed command.

Each scorer's score of each run is written as a derived record
(:mod:`autobench.records._rescore_record`), with what the scorer recorded beside it
(a judge's ``judge.*`` spend and trace, its rubric version); the run files are never
touched. Each scorer gets a call of its own, so its record keeps its evidence only. A run
already re-scored with the same scorer definition keeps its derived record and is
not scored again, so an interrupted re-scoring completes where it stopped.

With a ``cassette`` (``autobench rescore --cassette``), a scorer that calls a model
over HTTP (a judge) records its exchanges into its derived record, or has them answered
from the source record's cassettes (the runs' and their re-scorings'), as during
``autobench run --cassette`` (:mod:`autobench.core.runtime._cassette`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from autobench.core.plugins import AutobenchPlugins
from autobench.core.rescore._scorers import RescoreScorers, rescore_scorers
from autobench.core.rescore._unkept import explained
from autobench.core.runtime._cassette import CassetteSetup
from autobench.core.runtime._evidence import EvidenceBuffer
from autobench.core.runtime._portable import portable_evidence
from autobench.core.runtime._progress import (
    ProgressCallback,
    ProgressEvent,
    ProgressEventKind,
    deliver,
)
from autobench.core.runtime._scoring import add_scorer_evidence, score_run
from autobench.core.scoring import ScorerSpec, ScoringCall
from autobench.core.scoring._base import ScorerEvidence
from autobench.records import (
    SCORER_TAG,
    ObservationSource,
    RescoreLineage,
    RescoreRecord,
    RunRecord,
    load_experiment_record,
    load_run_record,
    rescore_path,
    run_sha256,
    store_rescore_record,
)


@dataclass(frozen=True)
class RescoreOutcome:
    """What a re-scoring did.

    ``scorers`` are the scorers run (with their definitions); ``records`` the derived
    records written now, in plan order and scorer order; ``kept`` counts the (run,
    scorer) pairs skipped because their derived record already existed; ``errors``
    counts the new records whose scorer raised. ``root`` is the experiment directory.
    """

    root: Path
    scorers: RescoreScorers
    records: tuple[RescoreRecord, ...] = ()
    kept: int = 0
    errors: int = field(default=0)


async def rescore_experiment(
    root: Path | str,
    names: Sequence[str],
    *,
    spec: Path | str | None = None,
    plugins: AutobenchPlugins | None = None,
    concurrency: int = 1,
    progress: ProgressCallback | None = None,
    cassette: CassetteSetup | None = None,
) -> RescoreOutcome:
    """Run the scorers ``names`` on every recorded run of the experiment in ``root`` and
    write one derived record per scorer and run (see the module docstring).

    ``spec`` is a spec file holding the scorers (default: the experiment's recorded
    spec, see :func:`~autobench.core.rescore.rescore_scorers`). At most ``concurrency``
    runs are scored at once (a scorer that awaits, such as a model judge, overlaps with
    the others; a plain function scores on the event loop). ``progress`` receives the
    run's events (:mod:`autobench.core.runtime._progress`): ``run_finished`` has status
    ``errored`` when a scorer raised on that run, else ``passed``, and payload
    ``{"kept": n}`` for scores already re-scored. ``cassette`` records or replays the
    scorers' HTTP exchanges (see the module docstring). A scorer error that comes from what
    the record does not keep (the run context, an ``!opaque`` output) says so, naming the
    run file and the scorer's line. Raises ``ValueError`` for an empty
    ``names`` or ``concurrency < 1``, the loaders' errors for damaged records,
    :class:`SpecError` / :class:`ScorerResolutionError` (nothing is written then), and
    :class:`RecordingError` when a derived record cannot be written.
    """
    if not names:
        raise ValueError("rescore_experiment needs at least one scorer name")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    root = Path(root)
    experiment = load_experiment_record(root)
    chosen = rescore_scorers(root, experiment, names, spec=spec, plugins=plugins)
    planned = [
        item for item in experiment.plan if root.joinpath(*PurePosixPath(item.path).parts).is_file()
    ]
    total, done = len(planned), 0
    deliver(
        progress, _event(ProgressEventKind.EXPERIMENT_STARTED, experiment.experiment_id, total, 0)
    )
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int, path: str) -> tuple[list[RescoreRecord], int]:
        nonlocal done
        async with gate:
            return await _rescore_run(root, path, chosen, cassette)

    tasks = [asyncio.ensure_future(one(index, item.path)) for index, item in enumerate(planned)]
    results: list[tuple[list[RescoreRecord], int]] = []
    try:
        for item, task in zip(planned, tasks, strict=True):
            written, kept = await task
            done += 1
            errored = any(record.score.error is not None for record in written)
            deliver(
                progress,
                _event(
                    ProgressEventKind.RUN_FINISHED,
                    experiment.experiment_id,
                    total,
                    done,
                    run_id=item.id,
                    case_id=item.case,
                    variant_id=item.variant,
                    status="errored" if errored else "passed",
                    payload={"kept": kept},
                ),
            )
            results.append((written, kept))
    finally:
        for task in tasks:
            task.cancel()
    records = tuple(record for written, _ in results for record in written)
    deliver(
        progress,
        _event(ProgressEventKind.EXPERIMENT_FINISHED, experiment.experiment_id, total, done),
    )
    return RescoreOutcome(
        root=root,
        scorers=chosen,
        records=records,
        kept=sum(kept for _, kept in results),
        errors=sum(1 for record in records if record.score.error is not None),
    )


async def _rescore_run(
    root: Path, run_path: str, chosen: RescoreScorers, cassette: CassetteSetup | None = None
) -> tuple[list[RescoreRecord], int]:
    pending: list[tuple[ScorerSpec, int]] = []
    for index, definition in enumerate(chosen.definitions):
        target = root.joinpath(
            *PurePosixPath(rescore_path(run_path, definition.name, definition.hash)).parts
        )
        if not target.exists():
            pending.append((chosen.scorers[index], index))
    kept = len(chosen.definitions) - len(pending)
    if not pending:
        return [], kept
    digest = run_sha256(root, run_path)
    run = load_run_record(root.joinpath(*PurePosixPath(run_path).parts), root=root)
    when = datetime.now(UTC)
    written = []
    for scorer, index in pending:
        # One call per scorer, so each derived record keeps the evidence of its own scorer.
        call = recorded_call(run, cassette)
        scores, errors = await score_run([scorer], call)
        # Paths of this machine in messages and tracebacks, relative as a run writes them.
        errors, scores, _ = portable_evidence(errors, scores, None, chosen.base_dir)
        lineage = RescoreLineage(
            run=run.run_id,
            experiment=run.experiment_id,
            case=run.case_id,
            variant=run.variant_id,
            run_record=run_path,
            run_sha256=digest,
            scorer=chosen.definitions[index],
            spec=chosen.spec,
            spec_sha256=chosen.spec_sha256,
            rescored_at=when,
        )
        score, mine = explained(scores[0], tuple(errors), run, run_path)
        evidence = _scorer_evidence(run, scorer.name, call.evidence)
        record = RescoreRecord(
            lineage=lineage,
            score=score,
            errors=mine,
            observations=tuple(evidence.observations),
            artifacts=tuple(evidence.artifacts),
            asset_versions=dict(evidence.assets),
        )
        written.append(store_rescore_record(root, run_path, record, evidence.payloads))
    return written, kept


def _scorer_evidence(run: RunRecord, name: str, recorded: ScorerEvidence) -> EvidenceBuffer:
    """What scorer ``name`` recorded beside its score, as the runtime would add it to a
    run, with ids of their own (``rescore_obs_<n>``, ``rescore_art_<n>``: the run's ids
    stay unique when the re-scoring is laid over it) and tagged ``scorer: <name>``."""
    buffer = EvidenceBuffer(run.case_id, run.variant_id)
    add_scorer_evidence(buffer, recorded)
    for position, item in enumerate(buffer.observations):
        buffer.observations[position] = item.model_copy(
            update={"id": f"rescore_{item.id}", "tags": {SCORER_TAG: name, **item.tags}}
        )
    payloads = {}
    for position, ref in enumerate(buffer.artifacts):
        payloads[f"rescore_{ref.id}"] = buffer.payloads[ref.id]
        buffer.artifacts[position] = ref.model_copy(
            update={"id": f"rescore_{ref.id}", "tags": {SCORER_TAG: name, **ref.tags}}
        )
    buffer.payloads = payloads
    return buffer


def recorded_call(run: RunRecord, cassette: CassetteSetup | None = None) -> ScoringCall:
    """The :class:`ScoringCall` a recorded run can give its scorers (see the module
    docstring): no run context, the observations recorded before scoring, and the
    scorers' cassettes of ``cassette`` for this run (``None``: none)."""
    observations = tuple(
        item for item in run.observations if item.source is not ObservationSource.DERIVED
    )
    return ScoringCall(
        case=run.case,
        variant=run.variant,
        output=run.output,
        observations=observations,
        spans=run.spans,
        selected_spans=run.spans,
        ctx=None,
        cassettes=None
        if cassette is None
        else cassette.for_scoring(run.case_id, run.variant_id, run.run.repeat),
    )


def _event(
    kind: ProgressEventKind, experiment_id: str, total: int, completed: int, **fields: Any
) -> ProgressEvent:
    return ProgressEvent(
        kind=kind, experiment_id=experiment_id, total=total, completed=completed, **fields
    )
