"""The sink protocol: where a live experiment hands its evidence as it is produced."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from autobench.records._records import ExperimentRecord, ExperimentSummary, RunRecord


class ExperimentSink(Protocol):
    """Receives an experiment's evidence in order: ``start`` once, ``run_finished`` as
    each run ends (in completion order), ``finish`` once at the end.

    ``run_finished`` gets the artifact payloads of the run keyed by artifact id
    and returns the run record as stored (artifact references completed with
    their paths, sizes and digests).
    """

    def start(self, experiment: ExperimentRecord) -> None: ...

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord: ...

    def finish(self, summary: ExperimentSummary) -> None: ...
