"""The run context: what a task receives as ``ctx`` for one case x variant run.

The context is small on purpose: identity (case, variant, ids), factor
access and span opening live here; the evidence vocabulary comes from
:class:`EvidenceRecorder` and storage from :class:`EvidenceBuffer`. The active
context of the current asyncio task or worker thread is kept on a
:class:`~contextvars.ContextVar` (see :func:`get_active_run_context`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from autobench.abp import SpanKind, TraceCollector, current_span
from autobench.core.runtime._evidence import EvidenceBuffer
from autobench.core.runtime._recorder import EvidenceRecorder
from autobench.core.runtime._span import DurationMetricSpec, Span
from autobench.core.tracking import TrackingRegistry, track
from autobench.records import AssetBinding, Case, Variant

_active_context: ContextVar[RunContext | None] = ContextVar("autobench_run_context", default=None)


def get_active_run_context() -> RunContext | None:
    """The :class:`RunContext` of the run executing in this task or thread, or ``None``."""
    return _active_context.get()


class RunContext(EvidenceRecorder):
    """Evidence owner of one case x variant run, passed to ``task(ctx, case)``.

    Evidence recorded through the context is linked to the span active in the
    calling asyncio task or thread (the run's ``benchmark.run`` root span when
    no user span is open), so concurrent branches link to their own spans.
    """

    __slots__ = (
        "_collector",
        "_evidence",
        "benchmark_id",
        "case",
        "experiment_id",
        "run_id",
        "variant",
    )

    def __init__(
        self,
        *,
        case: Case,
        variant: Variant,
        run_id: str,
        experiment_id: str,
        benchmark_id: str,
        collector: TraceCollector,
        evidence: EvidenceBuffer,
    ) -> None:
        self.case = case
        self.variant = variant
        self.run_id = run_id
        self.experiment_id = experiment_id
        self.benchmark_id = benchmark_id
        self._collector = collector
        self._evidence = evidence

    def __repr__(self) -> str:
        return f"RunContext(run_id={self.run_id!r}, case={self.case.id!r}, variant={self.variant.id!r})"

    @property
    def case_id(self) -> str:
        return self.case.id

    @property
    def variant_id(self) -> str:
        return self.variant.id

    @property
    def factors(self) -> dict[str, Any]:
        """``{name: value}`` of the variant's factors."""
        return self.variant.factor_values

    def factor(self, name: str) -> Any:
        """The value of the variant's factor ``name``.

        Raises ``KeyError`` naming the variant and its known factors when it has
        none of that name: the spec and the task disagree.
        """
        for factor in self.variant.factors:
            if factor.name == name:
                return factor.value
        known = ", ".join(repr(f.name) for f in self.variant.factors) or "none"
        raise KeyError(
            f"variant {self.variant.id!r} has no factor {name!r} (known factors: {known})"
        )

    def span(
        self,
        name: str,
        *,
        kind: str = SpanKind.CUSTOM,
        input: Any = None,
        attributes: Mapping[str, Any] | None = None,
        usage: Mapping[str, Any] | None = None,
        tags: Mapping[str, str] | None = None,
        duration_metric: DurationMetricSpec | Mapping[str, Any] | None = None,
    ) -> Span:
        """Open a timed span (synchronous context manager, usable in async tasks too).

        The span's parent is the span active in the calling task; ``kind`` is
        any string (:class:`SpanKind` lists the standard ones). ``duration_metric``
        (a :class:`DurationMetricSpec` or a mapping of its fields, ``{"name": ...}``)
        records the span's duration as a metric. See :class:`Span` for how it ends.
        """
        return Span(
            self._collector,
            self._evidence,
            name,
            kind,
            input,
            attributes,
            usage,
            tags,
            duration_metric,
        )

    def attach_tracked_asset(
        self, asset: Any, *, registry: TrackingRegistry | None = None
    ) -> AssetBinding:
        """Bind the exact version of a tracked asset (a :class:`TrackedPrompt`, a tracked
        function, class or value, an ``AssetVersion`` or an asset id) to this run: it is
        copied into the run record's ``asset_versions`` section. Raises ``UntrackedAssetError``."""
        version = (registry or track).version_of(asset)
        binding = AssetBinding(version=version.version, kind=version.kind)
        self._evidence.assets[version.asset_id] = binding
        return binding

    def _link_span_id(self) -> str | None:
        current = current_span()
        if current is None or current.collector is not self._collector:
            return None
        return current.id


@contextmanager
def bind_run_context(context: RunContext) -> Iterator[RunContext]:
    """Make ``context`` the active run context of the current task inside the block."""
    token = _active_context.set(context)
    try:
        yield context
    finally:
        _active_context.reset(token)
