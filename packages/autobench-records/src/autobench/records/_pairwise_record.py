"""The derived record pairwise judging writes: per case, a judge's preference between two
variants' outputs, asked in both orders, with its lineage and the judge's own spend.

Pairwise judging never runs the task: it reads the outputs two variants recorded and asks
a judge which is better, once with the baseline shown first and once with the candidate
shown first. One file per judging of a pair, beside the other derived records::

    derived/pairwise/<judge>/<definition hash, 12 hex>/<baseline>~<candidate>.yaml

Its sections::

    record: {type: pairwise, version: 1}
    lineage:
      experiment: exp_...
      baseline: swift
      candidate: sage
      judge: {name: helpful, kind: judge, hash: 5f1c..., definition: {...}}
      spec: recorded                     # or the path of the spec file given
      spec_sha256: ...                   # of that file (absent for the recorded spec)
      judged_at: 2026-...
    cases:
      - case: refund
        baseline_run: run_0001_refund_swift
        candidate_run: run_0002_refund_sage
        runs_sha256: {run_0001_refund_swift: ..., run_0002_refund_sage: ...}
        orders:                          # the baseline first, then the candidate first
          - {first: swift, second: sage, winner: second, reason: ...}
          - {first: sage, second: swift, winner: first, reason: ...}
        outcome: win                     # for the candidate: win, tie or loss
        observations: [...]              # judge.tokens.*, judge.request.count, judge.cost

``outcome`` combines both orders (:func:`combined_outcome`): each order counts +1 when it
prefers the candidate, -1 when it prefers the baseline, 0 for a tie; a positive sum is a
win, a negative one a loss, zero a tie (so two orders that disagree make a tie, the usual
way of cancelling position bias, e.g. Zheng et al. 2023, *Judging LLM-as-a-judge*, §3.4).
An order whose judge call failed has ``winner`` absent and ``error`` set; the case's
``outcome`` is then absent and it is left out of the rates.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field

from autobench.records._base import RecordModel, StoredRecordModel
from autobench.records._evidence import Observation
from autobench.records._rescore_record import ScorerDefinition

PAIRWISE_RECORD_VERSION = 1
PAIRWISE_DIR = "pairwise"
"""The producer directory of pairwise judging under ``derived/``."""

Winner = Literal["first", "second", "tie"]
Outcome = Literal["win", "tie", "loss"]


class PairwiseOrder(RecordModel):
    """One question to the judge: ``first`` and ``second`` are the variants in the order
    shown; ``winner`` the judge's answer (``None`` when the call failed: ``error`` says
    why); ``reason`` the judge's reason."""

    model_config = ConfigDict(defer_build=True)

    first: str
    second: str
    winner: Winner | None = None
    reason: str | None = None
    error: str | None = None

    @property
    def preferred(self) -> str | None:
        """The variant the judge preferred, ``"tie"``, or ``None`` when the call failed."""
        if self.winner is None:
            return None
        return {"first": self.first, "second": self.second, "tie": "tie"}[self.winner]


def combined_outcome(orders: tuple[PairwiseOrder, ...], candidate: str) -> Outcome | None:
    """The candidate's outcome over ``orders`` (see the module docstring); ``None`` when an
    order has no answer."""
    total = 0
    for order in orders:
        preferred = order.preferred
        if preferred is None:
            return None
        total += 0 if preferred == "tie" else 1 if preferred == candidate else -1
    return "win" if total > 0 else "loss" if total < 0 else "tie"


class PairwiseCase(RecordModel):
    """One case judged: the two runs compared, both orders, the combined ``outcome`` for
    the candidate, and the judge's spend on this case (its ``judge.*`` observations)."""

    model_config = ConfigDict(defer_build=True)

    case: str
    baseline_run: str
    candidate_run: str
    runs_sha256: dict[str, str | None] = Field(default_factory=dict)
    orders: tuple[PairwiseOrder, ...]
    outcome: Outcome | None = None
    observations: tuple[Observation, ...] = ()


class PairwiseLineage(RecordModel):
    """What was judged and by what: the experiment, the pair, the judge's definition (the
    ``judge:`` scorer it reuses, with the hash of its definition) and the spec it came from."""

    model_config = ConfigDict(defer_build=True)

    experiment: str
    baseline: str
    candidate: str
    judge: ScorerDefinition
    spec: str
    spec_sha256: str | None = None
    judged_at: datetime


class PairwiseRecord(StoredRecordModel):
    """The content of a pairwise record file (see the module docstring)."""

    model_config = ConfigDict(defer_build=True)

    lineage: PairwiseLineage
    cases: tuple[PairwiseCase, ...] = ()
