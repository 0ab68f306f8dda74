"""The sink protocol: where a live experiment hands its evidence as it is produced."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from autobench.records._evidence import Observation
from autobench.records._records import ExperimentRecord, ExperimentSummary, RunRecord


class ExperimentSink(Protocol):
    """Receives an experiment's evidence in order: ``start`` once, ``run_finished`` as
    each run ends (in completion order), ``post_derived`` once after every run when
    the spec has ``post_derive`` entries, ``finish`` once at the end.

    ``run_finished`` gets the artifact payloads of the run keyed by artifact id
    and returns the run record as stored (artifact references completed with
    their paths, sizes and digests).
    """

    def start(self, experiment: ExperimentRecord) -> None: ...

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord: ...

    def post_derived(self, observations_by_run: Mapping[str, Sequence[Observation]]) -> None:
        """Store the observations post-derivation added, keyed by run id (plan order).
        Called only when the spec declares ``post_derive`` (possibly with no entries)."""
        ...

    def finish(self, summary: ExperimentSummary) -> None: ...


@runtime_checkable
class DurableSink(Protocol):
    """A sink that stores runs in the background and says when each one is on disk.

    ``after_stored(run_id, callback)`` calls ``callback(True)`` once the files of a
    run handed to ``run_finished`` are durably stored, ``callback(False)`` if storing
    them failed (the error itself is raised by the next ``run_finished`` or by
    ``finish``). The callback may run on another thread, or at once.
    """

    def after_stored(self, run_id: str, callback: Callable[[bool], None]) -> None: ...
