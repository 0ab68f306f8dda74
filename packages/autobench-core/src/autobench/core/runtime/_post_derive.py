"""The post-derivation stage: after every run finished, before the summary.

Each ``post_derive`` entry of the spec (in order) sees every run record, in
plan order, with the observations of the entries before it already appended,
and returns new observations keyed by run id (:meth:`PostDeriverSpec.derive`).
The stage returns the runs with all of them appended and the combined
mapping, which the sink stores (``ExperimentSink.post_derived``; the record
directory writes ``post_derived.yaml``). Run records on disk are never
rewritten, and post-derivation does not change any run's status.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.core.postderive import PostDeriverSpec
from autobench.records import Observation, RunRecord, SemanticRegistry, merge_post_derived


def post_derive_runs(
    derivers: Sequence[PostDeriverSpec], runs: Sequence[RunRecord], registry: SemanticRegistry
) -> tuple[tuple[RunRecord, ...], dict[str, tuple[Observation, ...]]]:
    """``(runs with post-derived observations appended, observations by run id)``; the
    mapping lists run ids in plan order. Exceptions of a post-deriver propagate."""
    current = tuple(runs)
    added: dict[str, list[Observation]] = {}
    for deriver in derivers:
        derived = deriver.derive(current, registry)
        current = merge_post_derived(current, derived)
        for run_id, observations in derived.items():
            added.setdefault(run_id, []).extend(observations)
    by_run = {run.run_id: tuple(added[run.run_id]) for run in current if added.get(run.run_id)}
    return current, by_run
