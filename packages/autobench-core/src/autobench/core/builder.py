"""The Python builder: compose a :class:`BenchmarkSpec` step by step and run it.

::

    result = (
        Benchmark("routing")
        .description("Route tickets.")
        .dataset([Case(id="refund", input={"message": "Refund order 42"})])
        .variants([{"id": "v1", "factors": {"route": "v1"}}])
        .task("benchmark_tasks:run_case")
        .scoring([PassFailScorer(name="success", path="output.ok")])
        .run(concurrency_limit=2)
    )

Every method returns a **new** builder and leaves the one it was called on
unchanged, so a partial builder can be shared and extended in several ways.
:meth:`Benchmark.to_spec` compiles to the same :class:`BenchmarkSpec` the YAML
loader produces for the equivalent authoring-DSL file (and so the same plan and
run ids). Policies, post-derivation, report configuration and a custom semantic
registry are set on the spec itself (``spec.model_copy(update=...)``) before
:func:`run_benchmark_spec`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autobench.abp import Instrumentor
from autobench.core._targets import resolve_exception_type
from autobench.core.derive import DeriverSpec
from autobench.core.native import DiscoverySettings, InstrumentationSpec, IntegrationSettings
from autobench.core.plugins import AutobenchPlugins, default_plugins
from autobench.core.scoring import ScorerSpec
from autobench.core.spec import BenchmarkInfo, BenchmarkSpec, DatasetSpec, TaskSpec
from autobench.core.spec._models import ExecutorSpec, LimitSpec, RetrySpec
from autobench.core.spec._redaction import RedactionSpec
from autobench.records import Case, ExperimentResult, Variant

__all__ = ["Benchmark"]

_FACTOR_KEYS = frozenset({"value", "semantic", "semantic_type", "optimize", "description"})


@dataclass(frozen=True)
class _State:
    description: str | None = None
    dataset: DatasetSpec = field(default_factory=DatasetSpec)
    variants: tuple[Variant, ...] = ()
    task: TaskSpec | None = None
    scoring: tuple[ScorerSpec, ...] = ()
    derive: tuple[DeriverSpec, ...] = ()
    instrumentation: InstrumentationSpec = field(default_factory=InstrumentationSpec)
    instrumentors: tuple[Instrumentor, ...] = ()
    base_dir: Path | None = None
    executor: ExecutorSpec | None = None
    repeat: int = 1
    limits: tuple[tuple[str, LimitSpec], ...] = ()
    redaction: RedactionSpec = field(default_factory=RedactionSpec)
    plugins: AutobenchPlugins | None = None


class Benchmark:
    """A benchmark under construction; ``Benchmark(id)`` starts an empty one.

    Each method validates its argument at once (raising ``ValueError`` /
    pydantic ``ValidationError``) and returns a new builder. Scorer and deriver kinds
    and executor names are those of ``plugins`` (default:
    :func:`~autobench.core.plugins.default_plugins`), which the compiled spec keeps for
    its run.
    """

    def __init__(
        self,
        benchmark_id: str,
        *,
        plugins: AutobenchPlugins | None = None,
        _state: _State | None = None,
    ) -> None:
        BenchmarkInfo(id=benchmark_id)
        self._id = benchmark_id
        self._state = _state or _State(plugins=plugins)

    @property
    def _plugins(self) -> AutobenchPlugins:
        return self._state.plugins or default_plugins()

    def _with(self, **changes: Any) -> Benchmark:
        return Benchmark(self._id, _state=replace(self._state, **changes))

    @property
    def id(self) -> str:
        return self._id

    def description(self, text: str | None) -> Benchmark:
        """The benchmark's description."""
        return self._with(description=text)

    def dataset(self, cases: DatasetSpec | Iterable[Case | Mapping[str, Any]]) -> Benchmark:
        """The cases: a :class:`DatasetSpec`, or ``Case`` objects / case mappings
        (``{id, input, expected, metadata, tags}``). Duplicate case ids raise."""
        if isinstance(cases, DatasetSpec):
            return self._with(dataset=cases)
        items = [item if isinstance(item, Case) else Case.model_validate(item) for item in cases]
        return self._with(dataset=DatasetSpec(cases=tuple(items)))

    def variants(self, variants: Iterable[Variant | Mapping[str, Any]]) -> Benchmark:
        """The variants: ``Variant`` objects or mappings ``{id, label, description, factors}``
        whose ``factors`` is a list of ``{name, value, ...}`` or, as in YAML, a mapping
        ``{name: value | {value, semantic, optimize, description}}``."""
        return self._with(variants=tuple(_variant(item) for item in variants))

    def task(
        self,
        target: str | Callable[..., Any],
        *,
        timeout: float | None = None,
        retries: RetrySpec | Mapping[str, Any] | None = None,
    ) -> Benchmark:
        """The task: ``"module:function"``, or a module-level function (recorded as its
        ``module:qualname``; raises ``ValueError`` when that does not import back to it,
        as for a lambda or a nested function). ``timeout`` (seconds) bounds each call;
        ``retries`` is a :class:`RetrySpec` or its mapping ``{attempts, backoff, initial,
        max, on}``, where ``on`` may hold exception classes as well as dotted names (a class
        is recorded as its dotted name, which must import back to it, else ``ValueError``;
        a name is resolved when the run starts). See the YAML spec's "Timeouts and
        retries"."""
        if not isinstance(target, str):
            target = _target_of(target)
        if retries is not None and not isinstance(retries, RetrySpec):
            fields = dict(retries)
            if "on" in fields:
                on = fields["on"]
                names = [on] if isinstance(on, str | type) else list(on)
                fields["on"] = tuple(_exception_name(item) for item in names)
            retries = RetrySpec.model_validate(fields)
        task = TaskSpec(kind="python", target=target, timeout=timeout, retries=retries)
        return self._with(task=task)

    def limit(
        self,
        factor: str,
        *,
        max_concurrency: int | None = None,
        requests_per_minute: float | None = None,
        tokens_per_minute: int | None = None,
    ) -> Benchmark:
        """A rate limit shared by the runs with the same value of ``factor`` (the YAML
        ``limits: {<factor>: {...}}``); a later call for the same factor replaces the earlier
        one. Raises ``ValueError`` when none of the three is given; :meth:`to_spec` raises it
        when no variant has the factor."""
        limit = LimitSpec(
            max_concurrency=max_concurrency,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )
        others = tuple(item for item in self._state.limits if item[0] != factor)
        return self._with(limits=(*others, (factor, limit)))

    def scoring(self, scorers: Iterable[ScorerSpec | Mapping[str, Any]]) -> Benchmark:
        """The scorers: scorer models or structured mappings ``{kind, name, ...}``."""
        registry = self._plugins.scorers
        return self._with(
            scoring=tuple(
                item if isinstance(item, ScorerSpec) else registry.validate(dict(item))
                for item in scorers
            )
        )

    def derive(self, derivers: Iterable[DeriverSpec | Mapping[str, Any]]) -> Benchmark:
        """The per-run derivers: deriver models or mappings ``{kind, ...}``."""
        registry = self._plugins.derivers
        return self._with(
            derive=tuple(
                item if isinstance(item, DeriverSpec) else registry.validate(dict(item))
                for item in derivers
            )
        )

    def instrument(self, *items: IntegrationSettings | Instrumentor) -> Benchmark:
        """Install native instrumentors for the whole matrix: typed settings
        (``OpenAIInstrumentation()``, ``HTTPXInstrumentation(capture=...)``; serialized with
        the spec) or custom :class:`~autobench.abp.Instrumentor` instances (runtime-only).
        Calls add up; a later setting of one integration replaces the earlier one. Raises
        ``ValueError`` when two instrumentors (custom, or custom and typed) share an id, and
        ``TypeError`` for anything else."""
        explicit = dict(self._state.instrumentation.explicit())
        custom = list(self._state.instrumentors)
        for item in items:
            if isinstance(item, IntegrationSettings):
                explicit[item.integration] = item
            elif isinstance(item, Instrumentor):
                custom.append(item)
            else:
                raise TypeError(
                    f"instrument() takes instrumentation settings or Instrumentor instances, "
                    f"not {type(item).__name__}"
                )
        ids = [instrumentor.info.id for instrumentor in custom]
        clash = sorted({i for i in ids if ids.count(i) > 1 or explicit.get(i) not in (None, False)})
        if clash:
            raise ValueError(f"instrumentor id {clash[0]!r} is configured twice")
        section = InstrumentationSpec(all=self._state.instrumentation.all, **explicit)
        return self._with(instrumentation=section, instrumentors=tuple(custom))

    def instrument_all(self, *, exclude: Iterable[str] = (), strict: bool = False) -> Benchmark:
        """Also install every installed, compatible built-in integration not configured
        explicitly and not in ``exclude`` (``pydantic_ai``, ``openai``, ``openai_agents``,
        ``httpx``, ``opentelemetry``). Without ``strict`` an unavailable one is skipped and every run records an
        ``instrumentation.skipped`` diagnostic; with it the run fails before any case with an
        ``InstrumentationError``. A second call replaces the first's discovery settings."""
        section = self._state.instrumentation.model_copy(
            update={"all": DiscoverySettings(exclude=tuple(exclude), strict=strict)}
        )
        return self._with(instrumentation=section)

    def base_dir(self, path: Path | str | None) -> Benchmark:
        """The directory relative references (task modules, pricing files) resolve from
        (a loaded spec's is its file's directory; default: none, the import path)."""
        return self._with(base_dir=None if path is None else Path(path).resolve())

    def executor(self, name: str, **options: Any) -> Benchmark:
        """The executor that runs the matrix: ``"local"`` (built in) or one an
        ``autobench_executors`` plugin adds, with its ``options``. Raises
        :class:`~autobench.core.plugins.UnknownExecutorError` (naming the known executors)
        for a name the plugins do not know."""
        self._plugins.executors.get(name)
        return self._with(executor=ExecutorSpec(name=name, **options))

    def repeat(self, times: int) -> Benchmark:
        """Run every case x variant ``times`` times (an integer >= 1, else ``ValueError``);
        repeat ``r >= 2`` gets the run id suffix ``_r<r>``."""
        if isinstance(times, bool) or not isinstance(times, int) or times < 1:
            raise ValueError(f"repeat must be an integer >= 1, not {times!r}")
        return self._with(repeat=times)

    def redact(
        self,
        *,
        keys: Iterable[str] = (),
        patterns: Iterable[str] = (),
        query_params: Iterable[str] = (),
    ) -> Benchmark:
        """Secrets the application handles beyond the built-in redaction rules (the YAML
        ``redaction: {keys, patterns, query_params}``): mapping keys whose values are secret
        (any spelling), regular expressions whose matches are secret anywhere in text, URL
        query or form parameter names. Added to those of earlier calls. Raises
        ``ValueError`` for a pattern that does not compile or matches the empty string.
        They apply from :meth:`to_spec` on (see :func:`autobench.abp.extend_redaction`)."""
        current = self._state.redaction
        redaction = RedactionSpec(
            keys=(*current.keys, *keys),
            patterns=(*current.patterns, *patterns),
            query_params=(*current.query_params, *query_params),
        )
        return self._with(redaction=redaction)

    def to_spec(self) -> BenchmarkSpec:
        """The compiled :class:`BenchmarkSpec` (validated: duplicate ids raise ``ValueError``)."""
        state = self._state
        fields: dict[str, Any] = {
            "benchmark": BenchmarkInfo(id=self._id, description=state.description),
            "dataset": state.dataset,
            "task": state.task,
            "variants": state.variants,
            "scoring": state.scoring,
            "derive": state.derive,
            "instrumentation": state.instrumentation,
            "instrumentors": state.instrumentors,
            "base_dir": state.base_dir,
        }
        if state.executor is not None:
            fields["executor"] = state.executor
        if state.repeat != 1:
            fields["repeat"] = state.repeat
        if state.limits:
            fields["limits"] = dict(state.limits)
        if not state.redaction.empty:
            fields["redaction"] = state.redaction
        return BenchmarkSpec.model_validate(fields, context={"plugins": state.plugins})

    async def run_async(self, **options: Any) -> ExperimentResult:
        """Run the spec: ``await run_benchmark_spec(self.to_spec(), **options)``
        (``concurrency_limit``, ``sink``, ``progress``, ``experiment_id``, ...)."""
        from autobench.core.runtime import run_benchmark_spec

        return await run_benchmark_spec(self.to_spec(), **options)

    def run(self, **options: Any) -> ExperimentResult:
        """:meth:`run_async` through its own event loop (``asyncio.run``); raises
        :class:`~autobench.core.runtime.RunningLoopError` inside a running one, where
        ``await builder.run_async(...)`` is the call to make."""
        from autobench.core.runtime._sync import run_sync

        return run_sync(
            self.run_async(**options),
            name="Benchmark.run",
            instead="await benchmark.run_async(...)",
        )

    def __repr__(self) -> str:
        return f"Benchmark({self._id!r})"


def _variant(item: Variant | Mapping[str, Any]) -> Variant:
    if isinstance(item, Variant):
        return item
    data = dict(item)
    factors = data.get("factors")
    if isinstance(factors, Mapping):
        data["factors"] = [_factor(str(name), value) for name, value in factors.items()]
    return Variant.model_validate(data)


def _factor(name: str, value: Any) -> dict[str, Any]:
    """The YAML mapping-form rule: a mapping with ``value`` is the full form."""
    if isinstance(value, Mapping) and "value" in value:
        return {"name": name, **value}
    if isinstance(value, Mapping) and value and set(value) <= _FACTOR_KEYS:
        raise ValueError(
            f"factor '{name}' has {', '.join(map(str, value))} but no 'value' "
            "(expected {value, semantic, optimize, description})"
        )
    return {"name": name, "value": value}


def _exception_name(item: str | type) -> str:
    """The dotted name of an exception class (a builtin's bare name), or ``item`` itself."""
    if isinstance(item, str):
        return item
    if not (isinstance(item, type) and issubclass(item, BaseException)):
        raise ValueError(f"retries on: {item!r} is not an exception class or a dotted name")
    name = (
        item.__qualname__
        if item.__module__ == "builtins"
        else f"{item.__module__}.{item.__qualname__}"
    )
    try:
        found: type[BaseException] | None = resolve_exception_type(name, None)
    except ValueError:
        found = None
    if found is not item:
        raise ValueError(f"retries on: {name!r} does not import back to {item!r}")
    return name


def _target_of(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        raise ValueError(
            f"task {function!r} is not a module-level function; pass 'module:function'"
        )
    resolved: Any = importlib.import_module(module)
    for part in qualname.split("."):
        resolved = getattr(resolved, part, None)
    if resolved is not function:
        raise ValueError(f"task {function!r} does not import back as '{module}:{qualname}'")
    return f"{module}:{qualname}"
