"""The experiment-level records: ``experiment.yaml`` at the start, ``summary.yaml`` at the end."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from autobench.abp import redaction_additions
from autobench.core.distributions import __version__
from autobench.core.planning import BenchmarkPlan, PlannedRuns, dataset_hash, spec_hash
from autobench.core.runtime._plan_entries import PlanEntries, spec_digests
from autobench.core.spec import BenchmarkSpec
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    BenchmarkInfoRecord,
    DatasetInfo,
    ExperimentInfo,
    ExperimentRecord,
    ExperimentSummary,
    RedactionInfo,
    RunRecord,
    RunStatus,
    SpecInfo,
    StatusCounts,
    case_input_hash,
)
from autobench.records._fields_sets import share_fields_sets


def build_experiment_record(
    spec: BenchmarkSpec,
    plan: BenchmarkPlan,
    *,
    experiment_id: str,
    started_at: datetime,
    files: Mapping[str, str],
    environment: Mapping[str, object],
) -> ExperimentRecord:
    """The record of an experiment as planned: benchmark identity, dataset version and
    hash, variants, counts, spec snapshot and hash, the plan (with each case input's
    sha256, which its run files must match), source file hashes,
    environment, the spec's own semantic entries and its report configuration."""
    dataset = spec.dataset
    runs = plan.runs
    compact = isinstance(runs, PlannedRuns) and runs.whole
    if compact:
        assert isinstance(runs, PlannedRuns)
        hashed, data_hash, inputs = spec_digests(spec)
        planned: Any = PlanEntries(runs, inputs)
    else:
        hashed = spec_hash(spec)
        data_hash = dataset_hash(dataset.cases)
        input_hashes = {case.id: case_input_hash(case.input) for case in dataset.cases}
        # Plain mappings, validated into PlannedRun records in one pass with the record
        # (a thousand runs: a fraction of building each model in Python).
        planned = [
            {
                "id": run.run_id,
                "case": run.case.id,
                "variant": run.variant.id,
                "path": run.path,
                "input": input_hashes[run.case.id],
            }
            for run in runs
        ]
    record = ExperimentRecord(
        experiment=ExperimentInfo(
            id=experiment_id,
            benchmark=spec.benchmark.id,
            started_at=started_at,
            autobench=__version__,
        ),
        benchmark=BenchmarkInfoRecord(
            id=spec.benchmark.id,
            description=spec.benchmark.description,
            dataset=DatasetInfo(
                version=dataset.version,
                hash=data_hash,
                source=dataset.source,
                metadata=dataset.metadata,
            ),
            variants=spec.variants,
            cases=plan.case_count,
            runs=plan.run_count,
            spec=SpecInfo(hash=hashed, snapshot=_snapshot(spec)),
        ),
        plan=planned,
        files=dict(files),
        environment=dict(environment),
        # The spec's own types and those of installed plugins and metric packs: replay
        # knows them (their units, parents, additivity) without the plugins.
        semantic_registry=spec.registry.custom_entries(DEFAULT_SEMANTIC_REGISTRY),
        report=spec.reports.model_dump(mode="json", exclude_defaults=True),
        redaction=_redaction(),
    )
    if not compact:
        share_fields_sets(record.plan)  # one planned run per run: one set for all of them
    return record


def _redaction() -> RedactionInfo | None:
    """The redaction rules added in this process (the spec's ``redaction:`` section and any
    :func:`~autobench.abp.extend_redaction` call), for the record's readers; ``None`` when
    none were."""
    added = redaction_additions().as_dict()
    return RedactionInfo.model_validate(added) if added else None


class StatusTally:
    """How many finished runs each variant has in each status: all an experiment's summary
    reads of its runs (:func:`build_summary`), in memory that does not grow with the runs.

    Called with a run (``tally(run)``), it counts it and returns ``None``: given as a run
    setup's ``keep`` (``RunSetup.keep``), the session keeps nothing else of each run."""

    __slots__ = ("_counts", "runs")

    def __init__(self) -> None:
        self._counts: dict[tuple[str, RunStatus], int] = {}
        self.runs = 0
        """How many runs were counted."""

    def __call__(self, run: RunRecord) -> None:
        key = (run.variant_id, run.status)
        self._counts[key] = self._counts.get(key, 0) + 1
        self.runs += 1

    def add(self, runs: Iterable[RunRecord]) -> StatusTally:
        """Count each of ``runs``; returns this tally."""
        for run in runs:
            self(run)
        return self

    def copy(self) -> StatusTally:
        """A tally with the same counts, counting on its own."""
        copied = StatusTally()
        copied._counts = dict(self._counts)
        copied.runs = self.runs
        return copied

    def counts(self, variant_id: str | None = None) -> StatusCounts:
        """The counts of ``variant_id``'s runs (``None``: of every run)."""
        counts = dict.fromkeys(RunStatus, 0)
        for (variant, status), count in self._counts.items():
            if variant_id is None or variant == variant_id:
                counts[status] += count
        return StatusCounts(**{status.value: count for status, count in counts.items()})


def build_summary(
    experiment: ExperimentRecord,
    runs: Sequence[RunRecord] | StatusTally,
    *,
    duration: float,
) -> ExperimentSummary:
    """Status counts overall and per variant (every planned variant appears), the
    duration in seconds and whether every planned run has a record; ``runs`` are the
    experiment's runs or their :class:`StatusTally`."""
    tally = runs if isinstance(runs, StatusTally) else StatusTally().add(runs)
    return ExperimentSummary(
        experiment=experiment.experiment_id,
        benchmark=experiment.benchmark_id,
        finished_at=datetime.now(UTC),
        duration=duration,
        complete=tally.runs == len(experiment.plan),
        runs=tally.runs,
        status=tally.counts(),
        variants={
            variant.id: tally.counts(variant.id) for variant in experiment.benchmark.variants
        },
    )


_STORED_ELSEWHERE: dict[str, Any] = {
    "variants": True,
    "reports": True,
    "semantic_registry": True,
    "dataset": {"cases": True},
}
"""Spec sections the experiment record already holds (variants, report, semantic registry)
or that the run records hold (each run keeps its case; the dataset hash identifies them)."""


def _snapshot(spec: BenchmarkSpec) -> dict[str, Any]:
    """The normalised spec without what the records store elsewhere: nothing is stored twice.
    ``SpecInfo.hash`` is still the hash of the whole spec."""
    snapshot: dict[str, Any] = spec.model_dump(
        mode="json", exclude_defaults=True, exclude=_STORED_ELSEWHERE
    )
    return snapshot
