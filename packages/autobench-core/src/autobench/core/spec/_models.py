"""The structured benchmark spec: the typed models every front end compiles to.

YAML in the authoring DSL, YAML in this structured form and the Python builder
all produce a :class:`BenchmarkSpec`. Relative paths (datasets, task modules)
resolve against :attr:`BenchmarkSpec.base_dir`, the directory of the spec file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_serializer,
    field_validator,
    model_validator,
)

from autobench.abp import extend_redaction
from autobench.core._targets import resolve_exception_type
from autobench.core.derive import DeriverSpec
from autobench.core.native._settings import InstrumentationSpec
from autobench.core.plugins import AutobenchPlugins, default_plugins
from autobench.core.policies import PolicySpec
from autobench.core.postderive import PostDeriverSpec
from autobench.core.scoring._base import ScorerSpec
from autobench.core.spec._case_list import CaseList
from autobench.core.spec._evaluation import duplicate_policy, policy_problem, post_deriver_problem
from autobench.core.spec._redaction import RedactionSpec
from autobench.records import Case, SemanticRegistry, Variant


class SpecModel(BaseModel):
    """Base of spec models: immutable and strict about unknown keys."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


def plugins_in(info: ValidationInfo) -> AutobenchPlugins:
    """The plugins a validation was given (``context={"plugins": AutobenchPlugins}``), else
    :func:`default_plugins`."""
    context = info.context
    plugins = context.get("plugins") if isinstance(context, Mapping) else None
    return plugins if isinstance(plugins, AutobenchPlugins) else default_plugins()


class _PluginsRef:
    """The plugins a spec was validated with, as a private attribute of the spec: carried by
    ``model_copy``, but not part of its content (any two compare equal, a deep copy shares
    the plugins, a pickled spec drops them and uses the default plugins where it is read)."""

    __slots__ = ("plugins",)

    def __init__(self, plugins: AutobenchPlugins | None = None) -> None:
        self.plugins = plugins

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _PluginsRef)

    __hash__ = None  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> _PluginsRef:
        return self

    def __reduce__(self) -> tuple[type[_PluginsRef], tuple[()]]:
        return (_PluginsRef, ())


class ExecutorSpec(SpecModel):
    """The executor that runs the matrix: ``name`` (``local``, built in, or one an
    ``autobench_executors`` plugin adds) and the options written beside it, handed to its
    factory (:attr:`options`). YAML: ``executor: local`` or
    ``executor: {name: <name>, <option>: <value>, ...}``; a plain string validates as the
    name alone."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _name_alone(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @property
    def options(self) -> dict[str, Any]:
        """Everything written beside ``name``."""
        return dict(self.model_extra or {})


class BenchmarkInfo(SpecModel):
    """The benchmark's id (used in run ids and record paths) and description."""

    id: str = Field(min_length=1)
    description: str | None = None


class CaseDefaults(SpecModel):
    """Values merged into every case of a dataset.

    Merge rule (:meth:`apply`): mappings (``input``, ``expected``,
    ``metadata``) are merged key by key, recursively, with the case's own
    values winning; ``tags`` are concatenated, defaults first, and
    de-duplicated; any scalar the case sets overrides the default.
    """

    input: Any = None
    expected: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    tags: tuple[str, ...] = ()

    def apply(self, case: dict[str, Any]) -> dict[str, Any]:
        """Return the raw case mapping ``case`` with these defaults merged in."""
        merged = dict(case)
        for key in ("input", "expected"):
            default = getattr(self, key)
            if default is not None:
                merged[key] = _merge(default, case.get(key)) if key in case else default
        if self.metadata:
            merged["metadata"] = _merge(self.metadata, case.get("metadata") or {})
        if self.tags:
            merged["tags"] = list(dict.fromkeys([*self.tags, *(case.get("tags") or [])]))
        return merged


def _merge(default: Any, value: Any) -> Any:
    if isinstance(default, dict) and isinstance(value, dict):
        out = dict(default)
        for key, item in value.items():
            out[key] = _merge(default[key], item) if key in default else item
        return out
    return value


def _kept_case_list(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A :class:`CaseList` is kept as it is (its cases were validated when it was built)."""
    return value if isinstance(value, CaseList) else handler(value)


class DatasetSpec(SpecModel):
    """The cases of a benchmark, inline or loaded from ``source``, with version and metadata.

    ``source`` is kept for the record (a ``file://`` reference or glob relative
    to the spec); by the time a spec is loaded its cases are already resolved
    into ``cases`` with defaults applied. Raises ``ValueError`` on duplicate case ids.
    """

    id: str | None = None
    version: str | None = None
    source: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    defaults: CaseDefaults | None = None
    cases: Annotated[tuple[Case, ...], WrapValidator(_kept_case_list)] = ()
    """The cases in order: a tuple, or (a loaded spec) a :class:`CaseList`, which reads as
    the same tuple and builds each case when asked for."""

    @field_serializer("cases", mode="wrap")
    def _dump_cases(self, value: Any, handler: SerializerFunctionWrapHandler) -> Any:
        return handler(tuple(value) if isinstance(value, CaseList) else value)

    @model_validator(mode="after")
    def _unique_ids(self) -> DatasetSpec:
        seen: set[str] = set()
        if isinstance(self.cases, CaseList):  # ids are kept as text: no case is built
            for case_id in self.cases.ids:
                if case_id in seen:
                    raise ValueError(f"duplicate case id {case_id!r}")
                seen.add(case_id)
            return self
        for case in self.cases:
            if case.id in seen:
                raise ValueError(f"duplicate case id {case.id!r}")
            seen.add(case.id)
        return self


BackoffName = Literal["exponential", "fixed", "jitter"]


class RetrySpec(SpecModel):
    """How a run's task call is retried (``run: {retries: {...}}``; the runtime drives
    :mod:`tenacity`).

    ``attempts`` is the total number of task calls (>= 1; 1 means no retry). The wait
    before attempt ``n + 1`` is, in seconds: ``fixed``: ``initial``; ``exponential``:
    ``min(max, initial * 2**(n - 1))`` (tenacity ``wait_exponential``); ``jitter``: a
    uniform draw in ``[0, min(max, initial * 2**(n - 1))]`` (tenacity
    ``wait_random_exponential``, "full jitter"). ``on`` names the exception types that
    are retried by dotted path (``openai.RateLimitError``, the builtin ``TimeoutError``,
    a user's ``module.Class``), matched with ``isinstance``; empty means every
    ``Exception`` the task raises. A run's own timeout raises ``TimeoutError``. The loader
    resolves each name (a located error when it is not an importable exception class)."""

    attempts: int = Field(default=3, ge=1, strict=True)
    backoff: BackoffName = "exponential"
    initial: float = Field(default=1.0, ge=0)
    max: float = Field(default=30.0, ge=0)
    on: tuple[str, ...] = ()

    @field_validator("on")
    @classmethod
    def _dotted_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            if not _DOTTED.match(name):
                raise ValueError(f"{name!r} is not a dotted name (module.Class or a builtin)")
        return value

    def exception_types(self, base_dir: Path | None) -> tuple[type[BaseException], ...]:
        """The classes ``on`` names (``(Exception,)`` when empty), imported per the module
        rule from ``base_dir``. Raises ``ValueError`` naming one that does not resolve."""
        if not self.on:
            return (Exception,)
        return tuple(resolve_exception_type(name, base_dir) for name in self.on)


def limit_problem(limits: Mapping[str, LimitSpec], variants: tuple[Variant, ...]) -> str | None:
    """Why ``limits`` do not fit ``variants`` (a key that no variant has as a factor), or
    ``None``."""
    factors = {factor.name for variant in variants for factor in variant.factors}
    for name in limits:
        if name not in factors:
            known = ", ".join(sorted(factors)) or "none"
            return f"limits name the factor {name!r}, which no variant has (factors: {known})"
    return None


_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class LimitSpec(SpecModel):
    """The budget of the runs sharing one value of a factor (``limits: {<factor>: {...}}``):
    at most ``max_concurrency`` task calls at once, ``requests_per_minute`` task calls
    started per minute (spaced evenly, ``60 / requests_per_minute`` seconds apart) and
    ``tokens_per_minute`` tokens (a token bucket of that size, refilled continuously,
    charged with the tokens a call used once they are known). At least one is set."""

    max_concurrency: int | None = Field(default=None, ge=1, strict=True)
    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: int | None = Field(default=None, ge=1, strict=True)

    @model_validator(mode="after")
    def _something(self) -> LimitSpec:
        if (self.max_concurrency, self.requests_per_minute, self.tokens_per_minute) == (
            None,
            None,
            None,
        ):
            raise ValueError(
                "a limit needs max_concurrency, requests_per_minute or tokens_per_minute"
            )
        return self


class TaskSpec(SpecModel):
    """The task callable: ``target`` is ``module:function`` (``module.sub:obj.attr`` allowed);
    ``timeout`` (seconds, > 0) bounds each call of it (a call past it errors the attempt
    with stage ``timeout``), ``retries`` says when it is called again (:class:`RetrySpec`).
    Both are left out of the dump when not set."""

    kind: Literal["python"] = "python"
    target: str
    timeout: float | None = Field(default=None, gt=0, exclude_if=lambda value: value is None)
    retries: RetrySpec | None = Field(default=None, exclude_if=lambda value: value is None)
    origin: str | None = Field(default=None, exclude=True)
    """Where the target was written (``file:line:column``), for error messages; not part of
    the spec's content."""

    @field_validator("target")
    @classmethod
    def _module_colon_callable(cls, value: str) -> str:
        module, sep, attr = value.partition(":")
        if not sep or not module or not attr:
            raise ValueError(f"task target {value!r} must have the form 'module:function'")
        return value


AggregateName = Literal[
    "count",
    "mean",
    "sum",
    "per_pass",
    "min",
    "max",
    "median",
    "p95",
    "stddev",
    "geomean",
    "ratio_true",
]


class MetricAggregation(SpecModel):
    """A named aggregate of one semantic metric over runs (``fn`` is the aggregate)."""

    name: str
    semantic_type: str = Field(alias="metric")
    fn: AggregateName = Field(default="mean", alias="aggregate")


class LeaderboardReportSpec(SpecModel):
    metrics: tuple[MetricAggregation, ...] = ()


class MatrixReportSpec(SpecModel):
    """A case x variant matrix of one semantic metric."""

    semantic_type: str = Field(alias="metric")


class ComparisonReportSpec(SpecModel):
    baseline: str
    candidate: str
    metrics: tuple[MetricAggregation, ...] = ()


class DistributionReportSpec(SpecModel):
    name: str
    semantic_type: str
    summaries: tuple[AggregateName, ...] = ("min", "median", "p95", "max")


class ReportSpec(SpecModel):
    """Which views the report shows: leaderboard, case matrix, comparisons, distributions."""

    leaderboard: LeaderboardReportSpec | None = None
    matrix: MatrixReportSpec | None = None
    comparisons: tuple[ComparisonReportSpec, ...] = ()
    distributions: tuple[DistributionReportSpec, ...] = ()


class BenchmarkSpec(SpecModel):
    """A complete benchmark definition.

    Raises ``ValueError`` on duplicate variant ids or a scorer name used twice.
    ``scoring`` entries are validated by kind through the scorer registry
    (built-in and plugin scorers alike). ``policies`` are checked on every run
    after scoring; ``post_derive`` entries (validated by kind through the
    post-deriver registry) run once after all runs. Also raises ``ValueError``
    for a policy name used twice, a post-deriver naming an undeclared baseline
    variant or repeating another's output name, and a policy on a semantic type
    only post-derivation produces (see :mod:`autobench.core.spec._evaluation`).
    """

    benchmark: BenchmarkInfo
    dataset: DatasetSpec = Field(default_factory=DatasetSpec)
    task: TaskSpec | None = None
    variants: tuple[Variant, ...] = ()
    scoring: tuple[SerializeAsAny[ScorerSpec], ...] = ()
    reports: ReportSpec = Field(default_factory=ReportSpec)
    semantic_registry: SemanticRegistry = Field(default_factory=SemanticRegistry)
    derive: tuple[SerializeAsAny[DeriverSpec], ...] = ()
    """Per-run derivers (validated by kind through the deriver registry); they run after
    scoring and before policies (see :mod:`autobench.core.derive`)."""
    policies: tuple[PolicySpec, ...] = ()
    post_derive: tuple[SerializeAsAny[PostDeriverSpec], ...] = ()
    instrumentation: InstrumentationSpec = Field(default_factory=InstrumentationSpec)
    """Native SDK instrumentors installed for the whole matrix (see :mod:`autobench.core.native`)."""
    strict_scalars: bool = False
    """Refuse a factor or case value whose written text YAML reads as a number that loses it
    (``2.10``, ``007``): a located error at load time instead of a note."""
    scalar_notes: tuple[str, ...] = Field(default=(), exclude=True)
    """One note per such value (``strict_scalars`` off), with its file:line:column: runtime-only,
    shown by ``validate`` and ``run``."""
    instrumentors: tuple[Any, ...] = Field(default=(), exclude=True)
    """Custom :class:`~autobench.abp.Instrumentor` instances: runtime-only, never serialized."""
    base_dir: Path | None = Field(default=None, exclude=True)
    source_files: tuple[Path, ...] = Field(default=(), exclude=True)
    """Resolved paths of every file the loader read (the spec, then dataset files), in read order."""
    executor: ExecutorSpec | None = Field(default=None, exclude_if=lambda value: value is None)
    """The executor chosen by the spec (``None``: ``local``, unless the caller names one);
    left out of the dump (and so of the spec hash) when not set."""
    repeat: int = Field(default=1, ge=1, strict=True, exclude_if=lambda value: value == 1)
    limits: dict[str, LimitSpec] = Field(default_factory=dict, exclude_if=lambda value: not value)
    redaction: RedactionSpec = Field(
        default_factory=lambda: RedactionSpec(), exclude_if=lambda value: value.empty
    )
    """Secret names and patterns added to the built-in redaction rules (:class:`RedactionSpec`);
    left out of the dump when empty."""
    """Budgets keyed by a factor name (:class:`LimitSpec`): the runs whose variant has the
    same value of that factor share one budget; a run whose variant lacks the factor is
    not limited by it. Left out of the dump when empty."""
    """How many times every case x variant runs (>= 1); left out of the dump (and so of the
    spec hash) when 1, so a spec without repeats keeps its hash and run ids."""
    _plugins: _PluginsRef = PrivateAttr(default_factory=_PluginsRef)

    @field_validator("scoring", mode="before")
    @classmethod
    def _scorers_by_kind(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, list | tuple):
            return value
        registry = plugins_in(info).scorers
        return tuple(registry.validate(item) for item in value)

    @field_validator("derive", mode="before")
    @classmethod
    def _derivers_by_kind(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, list | tuple):
            return value
        registry = plugins_in(info).derivers
        return tuple(registry.validate(item) for item in value)

    @field_validator("post_derive", mode="before")
    @classmethod
    def _post_derivers_by_kind(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, list | tuple):
            return value
        registry = plugins_in(info).post_derivers
        return tuple(registry.validate(item) for item in value)

    @field_validator("executor")
    @classmethod
    def _known_executor(cls, value: ExecutorSpec | None, info: ValidationInfo) -> Any:
        if value is not None:
            plugins_in(info).executors.get(value.name)  # UnknownExecutorError names the known
        return value

    @model_validator(mode="after")
    def _evaluation_fits(self, info: ValidationInfo) -> BenchmarkSpec:
        # First of the after-validators: the registry below is that of these plugins.
        context = info.context
        plugins = context.get("plugins") if isinstance(context, Mapping) else None
        self._plugins = _PluginsRef(plugins if isinstance(plugins, AutobenchPlugins) else None)
        problem = duplicate_policy(self.policies)
        variant_ids = {variant.id for variant in self.variants}
        for index, deriver in enumerate(self.post_derive):
            problem = problem or post_deriver_problem(
                index, deriver, self.post_derive[:index], variant_ids, self.registry
            )
        for policy in self.policies:
            problem = problem or policy_problem(policy, self.post_derive, self.registry)
        if problem is not None:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _unique_ids(self) -> BenchmarkSpec:
        for label, ids in (
            ("variant", [v.id for v in self.variants]),
            ("scorer", [s.name for s in self.scoring]),
        ):
            seen: set[str] = set()
            for item in ids:
                if item in seen:
                    raise ValueError(f"duplicate {label} id {item!r}")
                seen.add(item)
        return self

    @model_validator(mode="after")
    def _register_redaction(self) -> BenchmarkSpec:
        # A spec that names secrets has them redacted from everything written from here on.
        if not self.redaction.empty:
            extend_redaction(
                keys=self.redaction.keys,
                patterns=self.redaction.patterns,
                query_params=self.redaction.query_params,
            )
        return self

    @model_validator(mode="after")
    def _limits_name_factors(self) -> BenchmarkSpec:
        problem = limit_problem(self.limits, self.variants)
        if problem is not None:
            raise ValueError(problem)
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy of the spec, ``update`` (field name -> value) laid over it.

        Unlike pydantic's own ``model_copy``, the updated copy is validated as a new spec
        would be, with the plugins this spec was validated with: a list of policies or
        scorers (or their mappings) becomes the tuple of models the spec holds, and a value
        the spec refuses raises ``pydantic.ValidationError`` here rather than later.
        """
        copied = super().model_copy(update=update, deep=deep)
        if not update:
            return copied
        plugins = self._plugins.plugins
        return self.model_validate(
            {name: getattr(copied, name) for name in type(self).model_fields},
            context=None if plugins is None else {"plugins": plugins},
        )

    @property
    def id(self) -> str:
        return self.benchmark.id

    @property
    def cases(self) -> tuple[Case, ...]:
        return self.dataset.cases

    @property
    def plugins(self) -> AutobenchPlugins:
        """The plugins this spec was validated with (``context={"plugins": ...}``, as the
        loaders and the builder pass them), else :func:`default_plugins`. Runtime-only:
        never serialized, kept by ``model_copy``."""
        plugins = self._plugins.plugins
        return default_plugins() if plugins is None else plugins

    @property
    def registry(self) -> SemanticRegistry:
        """The built-in semantic registry, plus the plugins' semantic types (see
        :attr:`plugins`), with this spec's own types and aliases laid over it."""
        return self.plugins.semantic_registry.merged(self.semantic_registry)
