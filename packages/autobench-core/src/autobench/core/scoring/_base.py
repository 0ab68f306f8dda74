"""The scorer contract: :class:`ScorerSpec` models and the :class:`ScoringCall` they receive."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from autobench.abp import SpanRecord
from autobench.abp._cassette import RunCassette
from autobench.core._targets import TargetResolutionError
from autobench.core.scoring._paths import resolve_dotted_path
from autobench.core.scoring._selector import SpanSelector
from autobench.records import (
    Case,
    Direction,
    Observation,
    ObservationKind,
    ObservationRole,
    ScoreRecord,
    Variant,
)


class ScorerCassettes(Protocol):
    """Where a scorer's HTTP calls record to or replay from, for one run
    (``autobench.core.runtime._cassette.ScorerCassettes``)."""

    def open(self, name: str) -> RunCassette:
        """A fresh cassette for the scorer whose cassette artifact is ``name``."""
        ...


@dataclass(frozen=True, slots=True)
class ScorerObservation:
    """An observation a scorer records beside its score (a judge's tokens and cost).

    Fields as :meth:`RunContext.observe` takes them; the runtime stores it as a task
    observation of the run (a metric unless ``kind`` says otherwise; never a score, so
    spend is summed like the application's, under its own semantic type).
    """

    name: str
    value: Any
    semantic_type: str | None
    unit: str | None = None
    direction: Direction | None = None
    role: ObservationRole = ObservationRole.DIAGNOSTIC
    tags: Mapping[str, str] = field(default_factory=dict)
    kind: ObservationKind = ObservationKind.METRIC
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ScorerArtifact:
    """An artifact a scorer records beside its score: ``payload`` (JSON-like) stored as
    ``media_type`` under ``name`` (a judge's own trace)."""

    name: str
    payload: Any
    media_type: str = "application/json"
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass
class ScorerEvidence:
    """What scorers of one run record besides their scores, for the runtime to add to the
    run's record once scoring is over: observations, artifacts, and tracked asset versions
    (``asset id -> (version, kind)``). Shared by every scorer of the run (one per
    :class:`ScoringCall`, kept by the copies a span selector makes)."""

    observations: list[ScorerObservation] = field(default_factory=list)
    artifacts: list[ScorerArtifact] = field(default_factory=list)
    assets: dict[str, tuple[str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.observations or self.artifacts or self.assets)


@dataclass(frozen=True)
class ScoringCall:
    """Everything a scorer may look at for one run.

    ``output`` is the task's return value (``task_result`` is the same value,
    kept under its older name), ``None`` when the task raised: scorers run on
    errored runs too and see what was recorded before the raise. ``spans`` are
    the run's spans in start order and ``selected_spans`` those matching the
    scorer's ``span`` selector (all spans when it has none); ``observations``
    are the task's observations. ``ctx`` is the run's context, ``None`` when
    scoring recorded evidence. ``evidence`` collects what scorers record besides
    their scores (:class:`ScorerEvidence`); whoever runs the scorers adds it to the
    record (the runtime does, after scoring). ``cassettes`` gives a scorer that calls a
    model over HTTP (a judge) a cassette of its own when the session records or replays
    cassettes (``autobench run --cassette``, ``autobench rescore --cassette``), else ``None``.
    """

    case: Case
    variant: Variant
    output: Any
    observations: Sequence[Observation] = ()
    spans: Sequence[SpanRecord] = ()
    selected_spans: Sequence[SpanRecord] = ()
    ctx: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    evidence: ScorerEvidence = field(default_factory=ScorerEvidence)
    cassettes: ScorerCassettes | None = None

    @property
    def task_result(self) -> Any:
        return self.output

    def path_root(self) -> dict[str, Any]:
        """The names a dotted path may start with: ``output``, ``case``, ``variant``, ``factors``
        (built once per call: each scorer of a run resolves its paths against it)."""
        root: dict[str, Any] | None = self.__dict__.get("_path_root")
        if root is None:
            root = self._build_path_root()
            object.__setattr__(self, "_path_root", root)
        return root

    def _build_path_root(self) -> dict[str, Any]:
        factors = self.variant.factor_values
        return {
            "output": self.output,
            "case": {
                "id": self.case.id,
                "input": self.case.input,
                "expected": self.case.expected,
                "metadata": self.case.metadata,
                "tags": list(self.case.tags),
            },
            "variant": {
                "id": self.variant.id,
                "label": self.variant.label,
                "factors": factors,
            },
            "factors": factors,
        }

    def resolve(self, path: str) -> Any:
        """Resolve a dotted path (see :func:`resolve_dotted_path`)."""
        return resolve_dotted_path(self.path_root(), path)


_ORIGIN = "_autobench_origin"
"""The instance ``__dict__`` key of :attr:`ScorerSpec.origin`."""


class ScorerResolutionError(TargetResolutionError):
    """A scorer's ``module:attribute`` target (a ``python`` scorer's function, a
    ``schema`` scorer's model) could not be resolved; raised when the
    experiment starts, before any run."""


class ScorerSpec(BaseModel):
    """Base of every scorer kind.

    Subclasses set ``kind`` (the structured-form discriminator) as a
    ``Literal`` field, ``keyword`` (the authoring DSL key, such as ``pass``)
    and ``default_role``, and implement :meth:`score`. ``direction`` is the
    DSL's ``goal``. A scorer with ``optional=True`` whose evaluation fails
    records the error without affecting the run's status. ``span`` (every
    kind has it) selects the spans the scorer receives as
    ``ScoringCall.selected_spans``.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    keyword: ClassVar[str]
    default_role: ClassVar[ObservationRole] = ObservationRole.OBJECTIVE
    target_field: ClassVar[str | None] = None
    """The field holding a ``module:attribute`` target the kind imports (``target``,
    ``model``), if any: the spec loader locates the scorer at it."""

    kind: str
    name: str = Field(min_length=1)
    semantic_type: str | None = Field(default=None, alias="semantic")
    unit: str | None = None
    direction: Direction | None = Field(default=None, alias="goal")
    role: ObservationRole | None = None
    optional: bool = False
    span: SpanSelector | None = None

    @model_serializer(mode="wrap")
    def _always_kind(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            data = {"kind": self.kind, **data}
        return data

    @property
    def effective_role(self) -> ObservationRole:
        return self.role or self.default_role

    @property
    def origin(self) -> str | None:
        """Where the YAML spec wrote this scorer's target (or the scorer, for a kind with no
        target), as ``file:line:column``; ``None`` for a scorer built in Python. It prefixes
        resolution errors and is not part of the spec's content: never dumped, and two
        scorers that differ only in it are equal (it is kept in the instance ``__dict__``
        beside the fields, which pydantic's equality and hash leave out)."""
        origin = self.__dict__.get(_ORIGIN)
        return origin if isinstance(origin, str) else None

    def located_at(self, origin: str | None) -> Self:
        """A copy of this scorer whose :attr:`origin` is ``origin`` (copies keep it)."""
        copy = self.model_copy()
        object.__setattr__(copy, _ORIGIN, origin)  # not a field: the model stays frozen
        return copy

    def score_record(self, value: Any, **fields: Any) -> ScoreRecord:
        """A :class:`ScoreRecord` of ``value`` under this scorer's name, semantic type, unit,
        direction, role and ``optional``: what the scoring stage would make of a record
        carrying only ``name`` and ``value`` (so it stores this one as it is, without a
        copy). ``fields`` sets the others (``actual_value``, ``expected_value``, ``reason``)."""
        return ScoreRecord(
            name=self.name,
            value=value,
            semantic_type=self.semantic_type,
            unit=self.unit,
            direction=self.direction,
            role=self.effective_role,
            optional=self.optional,
            **fields,
        )

    def prepare(self, base_dir: Path | None) -> ScorerSpec:
        """The scorer ready to score an experiment whose spec lives in ``base_dir``.

        Called once per experiment, before any run. Kinds that import user
        code (``module:attribute`` targets, resolved from ``base_dir`` first)
        resolve it here and return a copy holding it, raising
        :class:`ScorerResolutionError` when it cannot be resolved. The default
        returns the scorer itself.
        """
        return self

    def definition_content(self) -> dict[str, str]:
        """Digests of what the definition names by reference and a prepared scorer has read
        (a ``file://`` rubric's text): part of the scorer's identity where its definition is
        hashed (``autobench rescore``), so editing such a file makes a new definition. Empty
        by default."""
        return {}

    async def score(self, call: ScoringCall) -> ScoreRecord | Any:
        """Score one run; return a :class:`ScoreRecord` or a plain value.

        Raise any exception (for example :class:`MissingPathError`) to report a
        scorer error for this run only.
        """
        raise NotImplementedError

    @classmethod
    def dsl_options(cls) -> frozenset[str]:
        """Keys a DSL ``score`` entry of this kind may hold beside its keyword.

        The default is the common options: ``semantic``, ``unit``, ``goal``,
        ``role``, ``optional`` and ``span``. A kind with more top-level options
        extends it.
        """
        return frozenset({"semantic", "unit", "goal", "role", "optional", "span"})

    @classmethod
    def from_dsl(cls, name: str, action: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        """The structured mapping (with ``kind`` and ``name``) of a DSL ``score`` entry.

        ``action`` is the value under this kind's keyword and ``options`` the
        entry's other keys. Default rule: a string action is the ``path``
        field; a mapping action is merged with the options (its keys must not
        repeat an option, ``kind`` or ``name``). Raises ``ValueError`` for any
        other action value. Kinds with a different DSL shape override this.
        """
        kind = cls.model_fields["kind"].default
        if isinstance(action, str):
            return {"kind": kind, "name": name, "path": action, **options}
        if isinstance(action, Mapping):
            clash = sorted(str(key) for key in action if key in options or key in ("kind", "name"))
            if clash:
                raise ValueError(
                    f"'{cls.keyword}' repeats {', '.join(clash)}, which belong beside it"
                )
            return {"kind": kind, "name": name, **action, **options}
        raise ValueError(
            f"'{cls.keyword}' takes a dotted path or a mapping, not {type(action).__name__}"
        )

    def action_dsl(self) -> Any:
        """The value this scorer's DSL keyword holds when the spec is written back to YAML."""
        raise NotImplementedError
