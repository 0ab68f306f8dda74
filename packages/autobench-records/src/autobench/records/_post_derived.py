"""Post-derived evidence: observations computed across runs after every run was recorded.

Run records are immutable and already on disk when post-derivation runs, so
its observations are stored in one more file, ``post_derived.yaml``, written
atomically before ``summary.yaml``::

    record: {type: post_derived, version: 1}
    experiment: exp_...
    runs:
      run_1_easy_candidate:             # run id -> that run's new observations
        - id: post.speedup
          name: speedup
          value: 2.0
          unit: ratio
          semantic: performance.speedup
          source: derived
          ...

Each observation's ``case``/``variant`` is left out (the run id names them)
and put back on read. Replay appends these observations to each run's
``observations`` (:func:`merge_post_derived`), so reports, exports and
policies checked after the fact see them like any derived value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import ConfigDict, Field

from autobench.records._base import RecordModel
from autobench.records._evidence import Observation
from autobench.records._records import RunRecord

POST_DERIVED_RECORD_VERSION = 1
POST_DERIVED_FILE = "post_derived.yaml"


class PostDerivedRecord(RecordModel):
    """The content of ``post_derived.yaml``: the experiment id and, per run id, the
    observations post-derivation added to that run (in plan order)."""

    model_config = ConfigDict(defer_build=True)

    experiment: str
    runs: dict[str, tuple[Observation, ...]] = Field(default_factory=dict)


def merge_post_derived(
    runs: Sequence[RunRecord], observations_by_run: Mapping[str, Sequence[Observation]]
) -> tuple[RunRecord, ...]:
    """``runs`` with each run's post-derived observations appended (case and variant
    filled from the run when missing). Runs without any are returned unchanged."""
    merged: list[RunRecord] = []
    for run in runs:
        extra = observations_by_run.get(run.run_id)
        if not extra:
            merged.append(run)
            continue
        filled = tuple(
            observation
            if observation.case_id is not None and observation.variant_id is not None
            else observation.model_copy(
                update={
                    "case_id": observation.case_id or run.case_id,
                    "variant_id": observation.variant_id or run.variant_id,
                }
            )
            for observation in extra
        )
        merged.append(run.model_copy(update={"observations": run.observations + filled}))
    return tuple(merged)
