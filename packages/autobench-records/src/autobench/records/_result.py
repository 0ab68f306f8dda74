"""The in-memory result of an experiment, produced by a live run or by replay."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autobench.records._enums import RunStatus
from autobench.records._plan_table import plan_column
from autobench.records._records import ExperimentRecord, ExperimentSummary, RunRecord, StatusCounts
from autobench.records._run_table import RunTable
from autobench.records._semantics import DEFAULT_SEMANTIC_REGISTRY, SemanticRegistry


@dataclass(frozen=True, repr=False)
class ExperimentResult:
    """An experiment and its runs, in plan order.

    ``root_dir`` is the record directory (``None`` for an unrecorded run);
    ``artifact_payloads`` maps ``(run_id, artifact_id)`` to payloads that were
    not written to disk (only for runs executed with recording off).
    ``registry`` is the built-in semantic registry with the spec's entries laid
    over it.
    """

    experiment: ExperimentRecord
    runs: tuple[RunRecord, ...]
    """The runs in plan order; a :class:`~autobench.records.RunTable` (a sequence of run
    records that builds each on access) when read from a columnar store."""
    summary: ExperimentSummary | None = None
    root_dir: Path | None = None
    artifact_payloads: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY
    evidence_only: bool = False
    """True when the runs were replayed without case payloads, output and trace."""

    def __repr__(self) -> str:
        # Short on purpose: the full records can be megabytes, and Python 3.11's
        # asyncio.run formats the main task (result included) when it restores
        # the SIGINT handler.
        return (
            f"ExperimentResult(experiment_id={self.experiment_id!r}, runs={len(self.runs)}, "
            f"planned={len(self.experiment.plan)}, root_dir={self.root_dir!r})"
        )

    @property
    def experiment_id(self) -> str:
        return self.experiment.experiment_id

    @property
    def benchmark_id(self) -> str:
        return self.experiment.benchmark_id

    @property
    def complete(self) -> bool:
        """Whether every planned run has a record."""
        return len(self.runs) == len(self.experiment.plan)

    @property
    def missing_runs(self) -> tuple[str, ...]:
        """Ids of planned runs without a record."""
        runs = self.runs
        if isinstance(runs, RunTable) and runs.missing is not None:
            return runs.missing
        present = set(runs.run_ids if isinstance(runs, RunTable) else (r.run_id for r in runs))
        ids = plan_column(self.experiment.plan, "id")
        return tuple(run_id for run_id in ids if run_id is not None and run_id not in present)

    def status_counts(self, variant_id: str | None = None) -> StatusCounts:
        """Run counts per final status, for all runs or one variant."""
        counts = {status: 0 for status in RunStatus}
        runs = self.runs
        if isinstance(runs, RunTable):
            for variant, status in zip(runs.variant_ids, runs.statuses, strict=True):
                if variant_id is None or variant == variant_id:
                    counts[status] += 1
        else:
            for run in runs:
                if variant_id is None or run.variant_id == variant_id:
                    counts[run.status] += 1
        return StatusCounts(**{status.value: count for status, count in counts.items()})

    def runs_for(
        self, *, variant_id: str | None = None, case_id: str | None = None
    ) -> tuple[RunRecord, ...]:
        """Runs of one variant and/or one case, in plan order."""
        runs = self.runs
        if isinstance(runs, RunTable):
            return tuple(
                runs.records(
                    [
                        index
                        for index, (case, variant) in enumerate(
                            zip(runs.case_ids, runs.variant_ids, strict=True)
                        )
                        if (variant_id is None or variant == variant_id)
                        and (case_id is None or case == case_id)
                    ]
                )
            )
        return tuple(
            run
            for run in self.runs
            if (variant_id is None or run.variant_id == variant_id)
            and (case_id is None or run.case_id == case_id)
        )
