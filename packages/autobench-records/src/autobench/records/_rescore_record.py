"""The derived record re-scoring writes: one scorer's score of one run, with its lineage.

Re-scoring runs a scorer again on what a run recorded (its case, variant, output,
observations and trace) without running the task. The run record stays as it is;
the new score goes into a derived record beside the extraction replay's, in the
same layout (``derived/<producer>/<version>/<the run's own path>``)::

    derived/rescore/<scorer>/<definition hash, 12 hex>/cases/<case>/<variant>/score.yaml

(``<scorer>`` made path-safe.) One file per scorer and run. Its sections::

    record: {type: rescore, version: 1}
    lineage:
      run: run_0001_easy_candidate          # the parent run id
      experiment: exp_...
      case: easy
      variant: candidate
      run_record: cases/easy/candidate/run.yaml
      run_sha256: ...                       # of the parent run.yaml bytes, for audit
      scorer:
        name: correct
        kind: python
        hash: 5f1c...                       # sha256 of the canonical JSON of `definition`
        definition: {kind: python, name: correct, target: scorers:strict}
      spec: recorded                        # or the path of the spec file given
      spec_sha256: ...                      # of that file (absent for the recorded spec)
      rescored_at: 2026-...
    score: {name: correct, value: 1.0, ...} # what the scoring stage kept
    errors: [...]                           # the scorer's error, if it raised
    observations: [...]                     # what the scorer recorded beside its score
    artifacts: [...]                        # (a judge's judge.* spend, its trace), see below
    asset_versions: {...}                   # (the rubric version it judged with)

What the scorer recorded beside its score (``ScoringCall.evidence``) is kept with it:
its observations (ids ``rescore_obs_<n>``, tagged ``scorer: <name>``), its artifacts,
whose payloads are files beside ``score.yaml`` (paths relative to the experiment
directory, as a run's are), and the tracked asset versions it used. A re-score's
spend is therefore in its own record, never in the run's files.

The derived records of one scorer definition (one ``<hash>`` directory) form one
re-scoring; :meth:`RescoreRecord.apply` puts its score in place of the run's score
of the same name, and its evidence in place of what the scorer recorded at run time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field

from autobench.records._base import RecordModel, StoredRecordModel
from autobench.records._evidence import ArtifactRef, ErrorRecord, Observation, ScoreRecord
from autobench.records._records import AssetBinding, RunRecord

RESCORE_RECORD_VERSION = 1
RESCORE_FILE = "score.yaml"
RESCORE_DIR = "rescore"
"""The producer directory of re-scoring under ``derived/`` (extraction replay skips it)."""
SCORER_TAG = "scorer"
"""The tag naming the scorer that recorded an observation or artifact beside its score."""
RECORDED_SPEC = "recorded"
"""``lineage.spec`` of a re-scoring that used the experiment's recorded spec."""


class ScorerDefinition(RecordModel):
    """The scorer a re-scoring ran: its ``name`` and ``kind``, its ``definition`` (the
    scorer as the spec model dumps it) and ``hash``, the sha256 hex digest of the
    definition's canonical JSON: two re-scorings with the same hash ran the same scorer."""

    model_config = ConfigDict(defer_build=True)

    name: str
    kind: str
    hash: str
    definition: dict[str, Any]


class RescoreLineage(RecordModel):
    """Where a re-scored score comes from (see the module docstring)."""

    model_config = ConfigDict(defer_build=True)

    run: str
    experiment: str
    case: str
    variant: str
    run_record: str
    run_sha256: str | None = None
    scorer: ScorerDefinition
    spec: str
    """``recorded`` (:data:`RECORDED_SPEC`) or the path of the spec file given."""
    spec_sha256: str | None = None
    rescored_at: datetime


class RescoreRecord(StoredRecordModel):
    """The content of a ``score.yaml``: lineage, the score, the scorer's errors (empty
    when it scored), and what the scorer recorded beside the score: ``observations``
    (a judge's ``judge.*`` tokens, requests and cost), ``artifacts`` (its trace) and
    ``asset_versions`` (asset id -> the version it used, a judge's rubric)."""

    model_config = ConfigDict(defer_build=True)

    lineage: RescoreLineage
    score: ScoreRecord
    errors: tuple[ErrorRecord, ...] = ()
    observations: tuple[Observation, ...] = ()
    artifacts: tuple[ArtifactRef, ...] = ()
    asset_versions: dict[str, AssetBinding] = Field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return self.lineage.run

    @property
    def scorer(self) -> ScorerDefinition:
        return self.lineage.scorer

    def apply(self, run: RunRecord) -> RunRecord:
        """``run`` with this score in place of its score of the same name (appended when
        the run has none), this re-scoring's errors in place of the errors the scorer
        gave at run time (stage ``scorer``, source the scorer name), and this
        re-scoring's observations and artifacts in place of those the scorer recorded
        at run time (tagged ``scorer: <name>``, as a judge tags its spend and trace); its
        asset versions replace the run's of the same id. The run's status is left as
        recorded. Raises ``ValueError`` for another run."""
        if run.run_id != self.lineage.run:
            raise ValueError(f"re-scoring of run {self.lineage.run!r} applied to {run.run_id!r}")
        name = self.score.name
        scores = [self.score if score.name == name else score for score in run.scores]
        if not any(score.name == name for score in run.scores):
            scores.append(self.score)
        errors = tuple(
            error for error in run.errors if not (error.stage == "scorer" and error.source == name)
        )
        observations = tuple(item for item in run.observations if item.tags.get(SCORER_TAG) != name)
        artifacts = tuple(item for item in run.artifacts if item.tags.get(SCORER_TAG) != name)
        return run.model_copy(
            update={
                "scores": tuple(scores),
                "errors": errors + self.errors,
                "observations": observations + self.observations,
                "artifacts": artifacts + self.artifacts,
                "asset_versions": {**run.asset_versions, **self.asset_versions},
            }
        )


class RescoredRunRecord(RunRecord):
    """The run record a re-scoring derives: the parent run with the re-scored scores in
    place (what :meth:`RescoreRecord.apply` gives for each), plus ``rescores``, the stored
    derived records they come from. The parent record (object and file) is left as it was.
    """

    model_config = ConfigDict(defer_build=True)

    rescores: tuple[RescoreRecord, ...]

    @classmethod
    def of(cls, run: RunRecord, rescores: tuple[RescoreRecord, ...]) -> RescoredRunRecord:
        """Every record of ``rescores`` applied to its parent ``run`` (``ValueError`` for
        another run)."""
        applied = run
        for record in rescores:
            applied = record.apply(applied)
        fields = {name: getattr(applied, name) for name in RunRecord.model_fields}
        return cls.model_validate({**fields, "rescores": rescores})
