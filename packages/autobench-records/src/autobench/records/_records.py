"""Run and experiment records: the immutable evidence written to a record directory.

The field layout of these models *is* the layout of the YAML files
(``run.yaml``, ``experiment.yaml``, ``summary.yaml``): sections grouped for a
person reading them. Convenience properties give the flat names
(``record.run_id``, ``record.status``) code usually wants.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Annotated, Any, overload

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_serializer,
)

from autobench.abp import SpanRecord, Trace
from autobench.records._base import RecordModel
from autobench.records._enums import EvaluationStatus, RunStatus, TaskStatus
from autobench.records._evidence import (
    ArtifactRef,
    Case,
    ErrorRecord,
    FactorValue,
    Observation,
    ScoreRecord,
    Variant,
)
from autobench.records._semantics import SemanticRegistry
from autobench.records._sequences import equal_as_sequence

RUN_RECORD_VERSION = 2
"""Version 2 added ``run.accounting`` (run totals of additive evidence); version 1 records
are read as written, and replay accounts them."""
EXPERIMENT_RECORD_VERSION = 1
SUMMARY_RECORD_VERSION = 1
TRACE_RECORD_VERSION = 1
TRACE_MEDIA_TYPE = "application/vnd.autobench.abp-trace+yaml"
"""Media type of a trace stored as its own file (``artifacts/<run>/trace.yaml``)."""


class RunOutcome(RecordModel):
    """The two status layers under the final run status."""

    task: TaskStatus
    evaluation: EvaluationStatus


class RunInfo(RecordModel):
    """Identity and status of a run. ``index`` is its position in the plan;
    ``duration`` is seconds of wall time from task start to evaluation end;
    ``accounting`` is the version of the run-total rules the record was accounted by
    (``autobench.records._run_accounting``), ``None`` for records written before them;
    ``repeat`` is which repeat of its case x variant the run is (1 for the first, and the
    only one without repeats; written only when above 1).
    """

    id: str
    experiment: str
    benchmark: str
    case: str
    variant: str
    index: int
    status: RunStatus
    outcome: RunOutcome
    started_at: datetime | None = None
    duration: float | None = None
    accounting: int | None = None
    repeat: int = Field(default=1, ge=1)


class TraceSummary(RecordModel):
    """What ``run.yaml`` keeps of a trace too large to inline: its id, whether it is
    partial, its span count and the reference to the ``trace.yaml`` artifact
    (media :data:`TRACE_MEDIA_TYPE`) holding the full :class:`~autobench.abp.Trace`."""

    id: str
    partial: bool = False
    spans: int = 0
    artifact: ArtifactRef


class AssetBinding(RecordModel):
    """The exact version of a tracked asset (prompt, tool, type, ...) a run used:
    what ``ctx.attach_tracked_asset`` copies into :attr:`RunRecord.asset_versions`."""

    version: str
    kind: str


class AttemptError(RecordModel):
    """Why an attempt failed: the exception's ``type`` (qualified, ``openai.RateLimitError``)
    and ``message``, and the ``stage`` (``task`` or ``timeout``)."""

    stage: str
    type: str
    message: str = ""


class AttemptRecord(RecordModel):
    """One call of a retried run's task: its ``number`` (1-based), ``duration`` (seconds,
    the call alone: neither the wait for rate limits nor the backoff before it), the
    seconds it ``queued`` for the run's rate limits, and its ``error`` (``None`` for an
    attempt whose task returned)."""

    number: int = Field(ge=1)
    duration: float
    queued: float = 0.0
    error: AttemptError | None = None


class RunRecord(RecordModel):
    """Everything one case x variant run produced.

    ``observations`` holds what the task (and derivers) recorded; scores live in
    ``scores`` and are projected into observations on demand
    (:func:`autobench.records.run_observations`), so nothing is stored twice.
    ``trace`` is the full trace, or a :class:`TraceSummary` when the trace was
    stored as an artifact and the record was read without its directory.
    ``asset_versions`` maps the id of each tracked asset the task attached to its exact version.
    """

    run: RunInfo
    case: Case
    variant: Variant
    output: Any = None
    scores: tuple[ScoreRecord, ...] = ()
    observations: tuple[Observation, ...] = ()
    trace: Trace | TraceSummary | None = None
    artifacts: tuple[ArtifactRef, ...] = ()
    errors: tuple[ErrorRecord, ...] = ()
    asset_versions: dict[str, AssetBinding] = Field(default_factory=dict)
    attempts: tuple[AttemptRecord, ...] = ()
    """Every call of the task when it was called more than once (retries), in order; the
    run's evidence (output, trace, observations, errors) is that of the last. Empty (and
    not written) for a run called once."""

    @property
    def run_id(self) -> str:
        return self.run.id

    @property
    def experiment_id(self) -> str:
        return self.run.experiment

    @property
    def benchmark_id(self) -> str:
        return self.run.benchmark

    @property
    def case_id(self) -> str:
        return self.run.case

    @property
    def variant_id(self) -> str:
        return self.run.variant

    @property
    def status(self) -> RunStatus:
        return self.run.status

    @property
    def task_status(self) -> TaskStatus:
        return self.run.outcome.task

    @property
    def evaluation_status(self) -> EvaluationStatus:
        return self.run.outcome.evaluation

    @property
    def task_output(self) -> Any:
        return self.output

    @property
    def factors(self) -> tuple[FactorValue, ...]:
        return self.variant.factors

    @property
    def spans(self) -> tuple[SpanRecord, ...]:
        """The spans of the trace; empty when there is none or only its summary was loaded."""
        return self.trace.spans if isinstance(self.trace, Trace) else ()

    @property
    def error(self) -> ErrorRecord | None:
        """The first error of the run, if any."""
        return self.errors[0] if self.errors else None

    def score(self, name: str) -> ScoreRecord:
        """The score named ``name``; raises ``KeyError`` when absent."""
        for score in self.scores:
            if score.name == name:
                return score
        raise KeyError(name)


class PlannedRun(RecordModel):
    """One entry of the plan: run id, its case and variant, its record path and ``input``,
    the sha256 of the case input as recorded (``case_input_hash``; ``None`` in records
    written before it was listed), which the run's ``run.yaml`` must match."""

    id: str
    case: str
    variant: str
    path: str
    input: str | None = None


class PlanSequence(Sequence[PlannedRun]):
    """A plan kept in compact form, each :class:`PlannedRun` built when asked for (the
    runtime's plan of a loaded spec): :class:`ExperimentRecord` keeps it as it is, and
    ``experiment.yaml`` is written from :meth:`entries` a part at a time.

    A subclass gives ``__len__``, :meth:`entries`, :meth:`path_of` and
    :meth:`position_of`; the rest reads as
    the tuple of its planned runs (indexing, slices as tuples, iteration, ``==``)."""

    __slots__ = ()

    @abstractmethod
    def entries(self, start: int, stop: int) -> list[dict[str, Any]]:
        """The planned runs ``start`` to ``stop`` (exclusive) as the mappings of their
        non-default fields (``PlannedRun.model_dump(exclude_defaults=True)``)."""

    @abstractmethod
    def path_of(self, run_id: str) -> str | None:
        """The record path of planned run ``run_id``; ``None`` when it is not planned."""

    @abstractmethod
    def position_of(self, run_id: str) -> int | None:
        """The plan position of planned run ``run_id``; ``None`` when it is not planned."""

    def place_of(self, run_id: str) -> tuple[int, str] | None:
        """``(plan position, record path)`` of planned run ``run_id``, or ``None`` (a
        subclass may find both at once)."""
        position = self.position_of(run_id)
        path = None if position is None else self.path_of(run_id)
        return None if position is None or path is None else (position, path)

    @overload
    def __getitem__(self, index: int) -> PlannedRun: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PlannedRun, ...]: ...

    def __getitem__(self, index: int | slice) -> PlannedRun | tuple[PlannedRun, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(len(self))[index])
        index = range(len(self))[index]  # IndexError as a tuple's
        (entry,) = self.entries(index, index + 1)
        return PlannedRun.model_validate(entry)

    def __iter__(self) -> Iterator[PlannedRun]:
        for start in range(0, len(self), 1024):
            for entry in self.entries(start, min(start + 1024, len(self))):
                yield PlannedRun.model_validate(entry)

    __eq__ = equal_as_sequence

    __hash__ = None  # type: ignore[assignment]


def _kept_plan(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    return value if isinstance(value, PlanSequence) else handler(value)


class DatasetInfo(RecordModel):
    """What identifies the dataset: version, content hash, source and metadata."""

    version: str | None = None
    hash: str | None = None
    source: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class SpecInfo(RecordModel):
    """The spec's hash (sha256 of the canonical JSON of the whole normalised spec) and its
    snapshot: the normalised spec without the sections stored elsewhere in the record
    (variants, report configuration, semantic registry) and without its cases (every run
    record holds its case; ``DatasetInfo.hash`` identifies them)."""

    hash: str
    snapshot: dict[str, Any] = Field(default_factory=dict)


class BenchmarkInfoRecord(RecordModel):
    """The benchmark as planned: dataset identity, variants, counts and spec snapshot."""

    id: str
    description: str | None = None
    dataset: DatasetInfo = Field(default_factory=DatasetInfo)
    variants: tuple[Variant, ...] = ()
    cases: int = 0
    runs: int = 0
    spec: SpecInfo | None = None


class ExperimentInfo(RecordModel):
    """Identity and timing of an experiment."""

    id: str
    benchmark: str
    started_at: datetime | None = None
    autobench: str | None = None


class CassetteInfo(RecordModel):
    """The cassettes an experiment's runs used (``autobench run --cassette MODE``): ``mode``
    (``record``, ``replay``, ``replay-or-record``) and, when replaying, the source record
    directory, its experiment id and a sha256 over its cassette files' digests."""

    mode: str
    record_dir: str | None = None
    experiment_id: str | None = None
    sha256: str | None = None


class RedactionInfo(RecordModel):
    """The secret key names, value patterns and query parameter names added to the built-in
    redaction rules while the experiment ran (a spec's ``redaction:`` section, or
    ``autobench.abp.extend_redaction`` in a program): every reader of the record applies
    them too, so what it shows or exports from the record redacts what the run did."""

    keys: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()


class ExperimentRecord(RecordModel):
    """The content of ``experiment.yaml``: written once when the experiment starts.

    ``plan`` lists every planned run with its record path; ``files`` maps each
    source file the benchmark read (spec, datasets, task modules) to its sha256;
    ``semantic_registry`` holds only the entries the spec added to the built-ins;
    ``report`` keeps the report configuration for replay; ``redaction`` the redaction
    rules added to the built-in ones (absent when none were).
    """

    experiment: ExperimentInfo
    benchmark: BenchmarkInfoRecord
    plan: Annotated[tuple[PlannedRun, ...], WrapValidator(_kept_plan)] = ()
    """Every planned run: a tuple, or a :class:`PlanSequence` (a plan the runtime built)."""
    files: dict[str, str] = Field(default_factory=dict)
    environment: dict[str, Any] = Field(default_factory=dict)
    semantic_registry: SemanticRegistry = Field(default_factory=SemanticRegistry)
    report: dict[str, Any] = Field(default_factory=dict)
    cassette: CassetteInfo | None = None
    redaction: RedactionInfo | None = None

    @field_serializer("plan", mode="wrap")
    def _dump_plan(self, value: Any, handler: SerializerFunctionWrapHandler) -> Any:
        return handler(tuple(value) if isinstance(value, PlanSequence) else value)

    @property
    def experiment_id(self) -> str:
        return self.experiment.id

    @property
    def benchmark_id(self) -> str:
        return self.benchmark.id

    @property
    def run_paths(self) -> tuple[str, ...]:
        return tuple(run.path for run in self.plan)


class StatusCounts(RecordModel):
    """How many runs ended in each status."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored + self.skipped


class ResumeInfo(RecordModel):
    """How a resumed session continued an experiment (``autobench run --resume``):
    when it started, how many runs were missing and how many it recorded, whether
    ``--force`` let it continue despite ``changed`` (what differs from
    ``experiment.yaml``: ``spec``, ``dataset``, or source file paths)."""

    started_at: datetime
    missing: int = 0
    runs: int = 0
    forced: bool = False
    changed: tuple[str, ...] = ()


class ExperimentSummary(RecordModel):
    """The content of ``summary.yaml``: written once when a session of the experiment ends
    (a resumed session writes ``summary.<n>.yaml``, n = 2, 3, ...; the highest is the latest).

    ``complete`` is false when runs of the plan are missing (an interrupted
    experiment); ``duration`` is seconds of wall time; ``resumed`` is set by a
    resumed session.
    """

    experiment: str
    benchmark: str
    finished_at: datetime | None = None
    duration: float | None = None
    complete: bool = True
    runs: int = 0
    status: StatusCounts = Field(default_factory=StatusCounts)
    variants: dict[str, StatusCounts] = Field(default_factory=dict)
    resumed: ResumeInfo | None = None
