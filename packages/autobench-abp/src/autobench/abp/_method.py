"""``instrument_method``: spans, metrics and factors for one method of a class.

The wrapper records only while a trace collector is active (inside a run)
and the call is not suppressed; otherwise it calls straight through. It keeps
the signature (``functools.wraps``), the return value, the identity of a
raised exception and the laziness of streams. Metric and factor extraction
runs when the call (or its stream) ends; an extraction failure becomes a
diagnostic measurement and never replaces the application's result or
exception.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import AsyncGeneratorType, GeneratorType
from typing import Any, Literal

from autobench.abp._collector import TraceCollector
from autobench.abp._context import active_collector
from autobench.abp._detached import DetachedSpan, bind_span, unbind_span
from autobench.abp._extract import InstrumentCall, InstrumentFactorSpec, InstrumentMetricSpec
from autobench.abp._instrumentor import (
    AbstractionLayer,
    CaptureMechanism,
    InstrumentationHandle,
    InstrumentorInfo,
)
from autobench.abp._measure import InstrumentMeasurement, MeasurementRecorder, bind_measurements
from autobench.abp._model import InstrumentationScope, SpanKind
from autobench.abp._patching import MethodPatch
from autobench.abp._streams import (
    CallTracker,
    InstrumentedAsyncGenerator,
    InstrumentedContextManager,
    InstrumentedGenerator,
    end_reason_for,
)
from autobench.abp._suppress import is_suppressed

logger = logging.getLogger("autobench.abp.instrumentation")

METHOD_INSTRUMENTOR_ID = "autobench.method"
EXTRACTION_ERROR = "instrumentation.extraction_error"
_VERSION = "0.1.0"

Lifecycle = Literal["auto", "call", "context"]
_CONTEXT_MANAGER_TYPES: tuple[type, ...] = (contextlib._GeneratorContextManagerBase,)


@dataclass(frozen=True, slots=True)
class _Settings:
    method: str
    operation: str
    kind: str
    family: str
    instrumentor_id: str
    scope: InstrumentationScope
    metrics: tuple[InstrumentMetricSpec, ...]
    factors: tuple[InstrumentFactorSpec, ...]
    lifecycle: Lifecycle
    capture_input: bool
    capture_output: bool
    attributes: Mapping[str, Any] | None


def _record(
    settings: _Settings, recorder: MeasurementRecorder | None, tracker: CallTracker
) -> None:
    if recorder is None:
        return
    call = tracker.call
    span_id = tracker.detached.span.id
    source = settings.instrumentor_id
    specs: Iterable[InstrumentMetricSpec | InstrumentFactorSpec] = (
        *settings.metrics,
        *settings.factors,
    )
    for spec in specs:
        try:
            value = spec.extract(call)
        except Exception as exc:
            if call.error is not None and spec.value_factory is None:
                continue  # a failed call has no result to walk; nothing to report
            measurement = InstrumentMeasurement(
                "diagnostic",
                EXTRACTION_ERROR,
                f"{settings.operation}: {spec.name}: {type(exc).__name__}: {exc}",
                span_id=span_id,
                semantic_type=EXTRACTION_ERROR,
                source=source,
            )
        else:
            if value is None:
                continue
            if isinstance(spec, InstrumentMetricSpec):
                measurement = InstrumentMeasurement(
                    "metric",
                    spec.name,
                    value,
                    span_id=span_id,
                    semantic_type=spec.semantic_type,
                    unit=spec.unit,
                    role=spec.role,
                    direction=spec.direction,
                    source=source,
                )
            else:
                measurement = InstrumentMeasurement(
                    "factor",
                    spec.name,
                    value,
                    span_id=span_id,
                    semantic_type=spec.semantic_type,
                    source=source,
                )
        try:
            recorder(measurement)
        except Exception:  # the sink must never break the application
            logger.exception("instrumentation: recording %s failed", measurement.name)


def _no_extraction(tracker: CallTracker) -> None:
    return None


def _start(
    settings: _Settings,
    collector: TraceCollector,
    bound: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> CallTracker:
    if bound and args:
        instance, call_args = args[0], args[1:]
    else:
        instance, call_args = None, args
    call = InstrumentCall(settings.method, instance, call_args, kwargs)
    detached = DetachedSpan(
        settings.operation,
        kind=settings.kind,
        scope=settings.scope,
        collector=collector,
        input={"args": list(call_args), "kwargs": dict(kwargs)} if settings.capture_input else None,
        attributes=settings.attributes,
    )
    if settings.metrics or settings.factors:
        on_end: Callable[[CallTracker], None] = functools.partial(
            _record, settings, bind_measurements()
        )
    else:
        on_end = _no_extraction
    return CallTracker(detached, call, on_end)


def _settle(settings: _Settings, tracker: CallTracker, result: Any) -> Any:
    tracker.call.result = result
    if settings.lifecycle != "call":
        if isinstance(result, GeneratorType):
            return InstrumentedGenerator(result, tracker)
        if isinstance(result, AsyncGeneratorType):
            return InstrumentedAsyncGenerator(result, tracker)
        if isinstance(result, _CONTEXT_MANAGER_TYPES) or (
            settings.lifecycle == "context"
            and (hasattr(result, "__enter__") or hasattr(result, "__aenter__"))
        ):
            return InstrumentedContextManager(result, tracker)
    if settings.capture_output:
        tracker.detached.span.set_output(result)
    tracker.finish("completed")
    return result


def _make_wrapper(
    settings: _Settings,
) -> Callable[[Callable[..., Any], str, MethodPatch], Callable[..., Any]]:
    def make(function: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        bound = kind != "static"
        instrumentor_id, family = settings.instrumentor_id, settings.family

        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                collector = active_collector()
                if collector is None or not patch.active or is_suppressed(instrumentor_id, family):
                    return await function(*args, **kwargs)
                tracker = _start(settings, collector, bound, args, kwargs)
                token = bind_span(tracker.detached.span)
                try:
                    result = await function(*args, **kwargs)
                except BaseException as exc:
                    tracker.finish(end_reason_for(exc), exc)
                    raise
                finally:
                    unbind_span(token)
                return _settle(settings, tracker, result)

            return async_wrapper

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            collector = active_collector()
            if collector is None or not patch.active or is_suppressed(instrumentor_id, family):
                return function(*args, **kwargs)
            tracker = _start(settings, collector, bound, args, kwargs)
            token = bind_span(tracker.detached.span)
            try:
                result = function(*args, **kwargs)
            except BaseException as exc:
                tracker.finish(end_reason_for(exc), exc)
                raise
            finally:
                unbind_span(token)
            return _settle(settings, tracker, result)

        return wrapper

    return make


def instrument_method(
    cls: type,
    name: str,
    *,
    span: str | None = None,
    kind: str = SpanKind.CUSTOM,
    metrics: Iterable[InstrumentMetricSpec] = (),
    factors: Iterable[InstrumentFactorSpec] = (),
    family: str | None = None,
    instrumentor_id: str = METHOD_INSTRUMENTOR_ID,
    lifecycle: Lifecycle = "auto",
    capture_input: bool = False,
    capture_output: bool = False,
    attributes: Mapping[str, Any] | None = None,
    span_kind: str | None = None,
) -> InstrumentationHandle:
    """Record a span (and optional metrics and factors) for every call of ``cls.name``.

    Works for instance, static, class and inherited methods (an inherited
    method is patched on ``cls`` itself and deleted again on close), sync and
    async. ``span`` is the operation name (default ``"<Class>.<name>"``);
    ``family`` the suppression family (default: the operation name).
    ``lifecycle`` decides how long the span lasts: ``"auto"`` keeps it open
    for returned generators, async generators and ``contextlib`` context
    managers until they end; ``"context"`` treats any returned context
    manager that way; ``"call"`` ends it when the call returns.
    ``capture_input``/``capture_output`` store the arguments and the return
    value on the span (off by default: they may be large or private).

    ``kind`` is the span's kind (``span_kind`` is the same, by the name the span
    signal uses; giving both with different values raises ``TypeError``).

    Returns an :class:`InstrumentationHandle` (also a context manager); closing
    it restores the exact original descriptor.
    """
    if span_kind is not None:
        if kind != SpanKind.CUSTOM and kind != span_kind:
            raise TypeError(f"instrument_method: kind={kind!r} and span_kind={span_kind!r} differ")
        kind = span_kind
    if lifecycle not in ("auto", "call", "context"):
        raise ValueError(f"lifecycle must be 'auto', 'call' or 'context', got {lifecycle!r}")
    operation = span or f"{cls.__qualname__}.{name}"
    info = InstrumentorInfo(
        id=instrumentor_id,
        version=_VERSION,
        mechanism=CaptureMechanism.PATCH,
        layer=AbstractionLayer.APPLICATION,
        span_kinds=(str(kind),),
        capabilities=("sync", "async", "streaming", "context_manager"),
    )
    settings = _Settings(
        method=f"{cls.__qualname__}.{name}",
        operation=operation,
        kind=str(kind),
        family=family or operation,
        instrumentor_id=instrumentor_id,
        scope=info.scope(),
        metrics=tuple(metrics),
        factors=tuple(factors),
        lifecycle=lifecycle,
        capture_input=capture_input,
        capture_output=capture_output,
        attributes=dict(attributes) if attributes else None,
    )
    patch = MethodPatch(cls, name, _make_wrapper(settings))
    return InstrumentationHandle(patch.restore, info=info)
