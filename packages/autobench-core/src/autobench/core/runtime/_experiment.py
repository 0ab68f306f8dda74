"""The experiment-level records: ``experiment.yaml`` at the start, ``summary.yaml`` at the end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from autobench.abp import redaction_additions
from autobench.core.distributions import __version__
from autobench.core.planning import BenchmarkPlan, dataset_hash, spec_hash
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
    input_hashes = {case.id: case_input_hash(case.input) for case in dataset.cases}
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
                hash=dataset_hash(dataset.cases),
                source=dataset.source,
                metadata=dataset.metadata,
            ),
            variants=spec.variants,
            cases=plan.case_count,
            runs=plan.run_count,
            spec=SpecInfo(hash=spec_hash(spec), snapshot=_snapshot(spec)),
        ),
        # Plain mappings, validated into PlannedRun records in one pass with the record
        # (a thousand runs: a fraction of building each model in Python).
        plan=[
            {
                "id": run.run_id,
                "case": run.case.id,
                "variant": run.variant.id,
                "path": run.path,
                "input": input_hashes[run.case.id],
            }
            for run in plan.runs
        ],
        files=dict(files),
        environment=dict(environment),
        # The spec's own types and those of installed plugins and metric packs: replay
        # knows them (their units, parents, additivity) without the plugins.
        semantic_registry=spec.registry.custom_entries(DEFAULT_SEMANTIC_REGISTRY),
        report=spec.reports.model_dump(mode="json", exclude_defaults=True),
        redaction=_redaction(),
    )
    share_fields_sets(record.plan)  # one planned run per run: one set for all of them
    return record


def _redaction() -> RedactionInfo | None:
    """The redaction rules added in this process (the spec's ``redaction:`` section and any
    :func:`~autobench.abp.extend_redaction` call), for the record's readers; ``None`` when
    none were."""
    added = redaction_additions().as_dict()
    return RedactionInfo.model_validate(added) if added else None


def _counts(runs: Sequence[RunRecord]) -> StatusCounts:
    counts = dict.fromkeys(RunStatus, 0)
    for run in runs:
        counts[run.status] += 1
    return StatusCounts(**{status.value: count for status, count in counts.items()})


def build_summary(
    experiment: ExperimentRecord, runs: Sequence[RunRecord], *, duration: float
) -> ExperimentSummary:
    """Status counts overall and per variant (every planned variant appears), the
    duration in seconds and whether every planned run has a record."""
    variant_ids = [variant.id for variant in experiment.benchmark.variants]
    by_variant: dict[str, list[RunRecord]] = {}
    for run in runs:
        by_variant.setdefault(run.variant_id, []).append(run)
    return ExperimentSummary(
        experiment=experiment.experiment_id,
        benchmark=experiment.benchmark_id,
        finished_at=datetime.now(UTC),
        duration=duration,
        complete=len(runs) == len(experiment.plan),
        runs=len(runs),
        status=_counts(runs),
        variants={vid: _counts(by_variant.get(vid, ())) for vid in variant_ids},
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
