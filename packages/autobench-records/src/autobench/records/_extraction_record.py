"""The derived record extraction replay writes: observations plus their lineage.

A run record is immutable, so re-extracting evidence from its trace writes a
new file (record type ``extraction``) beside it, never into it::

    derived/<extractor>/<version>/cases/<case>/<variant>/extraction.yaml

(``<extractor>`` and ``<version>`` made path-safe; the rest mirrors the run's
own path.) Its sections::

    record: {type: extraction, version: 1}
    lineage:
      run: run_0001_easy_candidate          # the parent run id
      experiment: exp_...
      case: easy
      variant: candidate
      run_record: cases/easy/candidate/run.yaml
      run_sha256: ...                       # of the parent run.yaml bytes, for audit
      trace: 4bf9...                        # the trace id extracted from
      protocol: abp
      protocol_version: 1
      semantic_registry: 1
      extractor: {name: composite, version: signal@1+span@1+usage@1}
      components: [{name: signal, version: "1"}, ...]
      parent: derived/composite/.../extraction.yaml   # previous derived record, if any
      extracted_at: 2026-...
    observations: [...]                     # each tagged extractor / extractor_version
    diagnostics: [...]
    references: [...]
"""

from __future__ import annotations

from datetime import datetime

from pydantic import ConfigDict

from autobench.records._base import RecordModel, StoredRecordModel
from autobench.records._evidence import Observation
from autobench.records._extraction import EvidenceReference, ExtractionDiagnostic
from autobench.records._records import RunRecord

EXTRACTION_RECORD_VERSION = 1
EXTRACTION_FILE = "extraction.yaml"
DERIVED_DIR = "derived"


class ExtractorInfo(RecordModel):
    """The identity of an extractor: its stable name and version."""

    model_config = ConfigDict(defer_build=True)

    name: str
    version: str


class ExtractionLineage(RecordModel):
    """Where a derived record comes from (see the module docstring)."""

    model_config = ConfigDict(defer_build=True)

    run: str
    experiment: str
    case: str
    variant: str
    run_record: str
    run_sha256: str | None = None
    trace: str | None = None
    protocol: str = "abp"
    protocol_version: int = 1
    semantic_registry: int = 1
    extractor: ExtractorInfo
    components: tuple[ExtractorInfo, ...] = ()
    parent: str | None = None
    extracted_at: datetime | None = None


class ExtractionRecord(StoredRecordModel):
    """The content of an ``extraction.yaml``: lineage, observations, diagnostics, references.

    Observations omit ``case``/``variant`` in the file (the lineage names them; the
    reader puts them back).
    """

    model_config = ConfigDict(defer_build=True)

    lineage: ExtractionLineage
    observations: tuple[Observation, ...] = ()
    diagnostics: tuple[ExtractionDiagnostic, ...] = ()
    references: tuple[EvidenceReference, ...] = ()

    @property
    def run_id(self) -> str:
        return self.lineage.run

    @property
    def extractor(self) -> ExtractorInfo:
        return self.lineage.extractor

    def apply(self, run: RunRecord) -> RunRecord:
        """The derived run record: ``run`` with these observations appended (case and
        variant filled from ``run``). Raises ``ValueError`` for another run."""
        if run.run_id != self.lineage.run:
            raise ValueError(f"extraction of run {self.lineage.run!r} applied to {run.run_id!r}")
        filled = tuple(
            observation.model_copy(
                update={
                    "case_id": observation.case_id or run.case_id,
                    "variant_id": observation.variant_id or run.variant_id,
                }
            )
            for observation in self.observations
        )
        return run.model_copy(update={"observations": run.observations + filled})


class DerivedRunRecord(RunRecord):
    """The run record an extraction derives: the parent run's evidence with the extracted
    observations appended (what :meth:`ExtractionRecord.apply` gives), plus ``extraction``,
    the stored derived record it comes from.

    ``lineage`` (the parent run file and its sha256, the trace, the extractor's name and
    version, the previous derived record), ``path``, ``diagnostics`` and ``references`` are
    those of ``extraction``. A derived run record is never equal to a plain
    :class:`RunRecord`, and the parent record (object and file) is left as it was.
    """

    model_config = ConfigDict(defer_build=True)

    extraction: ExtractionRecord

    @classmethod
    def of(cls, run: RunRecord, extraction: ExtractionRecord) -> DerivedRunRecord:
        """``extraction`` applied to its parent ``run`` (``ValueError`` for another run)."""
        applied = extraction.apply(run)
        fields = {name: getattr(applied, name) for name in RunRecord.model_fields}
        return cls.model_validate({**fields, "extraction": extraction})

    @property
    def lineage(self) -> ExtractionLineage:
        return self.extraction.lineage

    @property
    def path(self) -> str | None:
        """Where the derived record is stored, relative to the experiment directory."""
        return self.extraction.path

    @property
    def extracted_observations(self) -> tuple[Observation, ...]:
        """The observations the extraction added (the derived record's own)."""
        return self.extraction.observations

    @property
    def diagnostics(self) -> tuple[ExtractionDiagnostic, ...]:
        return self.extraction.diagnostics

    @property
    def references(self) -> tuple[EvidenceReference, ...]:
        return self.extraction.references
