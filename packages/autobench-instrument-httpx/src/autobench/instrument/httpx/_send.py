"""The wrappers installed on ``Client.send`` and ``AsyncClient.send``.

``send`` is the one public method every request of a client goes through
(``request``, ``get``/``post``/..., ``stream`` and libraries holding their own
client all call it), and it is one logical request: redirects and auth
retries happen inside it. Each wrapper:

- calls straight through when no ABP run is active, when the patch was
  closed, or when the ``httpx`` instrumentor or the ``http`` family is
  suppressed (an active-collector lookup and a flag test);
- otherwise opens the span in the caller's context (so its parent is the
  caller's active span), binds it as the active span while the SDK runs,
  and records the response or the failure (see :mod:`._exchange`);
- never changes the arguments, the returned response or a raised exception
  (the same object is re-raised). A failure of the instrumentation itself is
  logged and never reaches the application.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from autobench.abp import InstrumentationRuntime, active_collector
from autobench.abp._detached import DetachedSpan, bind_span, unbind_span
from autobench.abp._patching import MethodPatch
from autobench.instrument.httpx._capture import CapturePlan
from autobench.instrument.httpx._exchange import fail, open_exchange, respond
from autobench.instrument.httpx._streams import StreamSpan

logger = logging.getLogger("autobench.instrument.httpx")


@dataclass(frozen=True, slots=True)
class SendContext:
    """What every wrapper of one installation shares: the runtime spans go through, the
    capture plan, and ``registry``, the open stream spans (abandoned on uninstall)."""

    runtime: InstrumentationRuntime
    plan: CapturePlan
    registry: set[StreamSpan]


def _open(context: SendContext, request: Any) -> DetachedSpan | None:
    try:
        return open_exchange(context.runtime, context.plan, request)
    except Exception:
        logger.exception("httpx instrumentation: opening the request span failed")
        return None


def _respond(
    context: SendContext,
    detached: DetachedSpan,
    response: Any,
    kwargs: dict[str, Any],
    stream_type: type,
) -> None:
    try:
        respond(
            detached,
            context.plan,
            response,
            streamed=bool(kwargs.get("stream", False)),
            stream_type=stream_type,
            registry=context.registry,
        )
    except Exception:
        logger.exception("httpx instrumentation: recording the response failed")
        detached.end()


def _fail(detached: DetachedSpan, error: BaseException, request: Any) -> None:
    try:
        fail(detached, error, request)
    except Exception:
        logger.exception("httpx instrumentation: recording the failure failed")


def sync_send_factory(
    context: SendContext, stream_type: type
) -> Callable[[Callable[..., Any], str, MethodPatch], Callable[..., Any]]:
    """The :class:`MethodPatch` wrapper factory for ``Client.send``."""

    def make(send: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        @functools.wraps(send)
        def instrumented_send(self: Any, *args: Any, **kwargs: Any) -> Any:
            if active_collector() is None or not patch.active:
                return send(self, *args, **kwargs)
            request = args[0] if args else kwargs.get("request")
            detached = None if request is None else _open(context, request)
            if detached is None:
                return send(self, *args, **kwargs)
            token = bind_span(detached.span)
            try:
                response = send(self, *args, **kwargs)
            except BaseException as exc:
                _fail(detached, exc, request)
                raise
            finally:
                unbind_span(token)
            _respond(context, detached, response, kwargs, stream_type)
            return response

        return instrumented_send

    return make


def async_send_factory(
    context: SendContext, stream_type: type
) -> Callable[[Callable[..., Any], str, MethodPatch], Callable[..., Any]]:
    """The :class:`MethodPatch` wrapper factory for ``AsyncClient.send``."""

    def make(
        send: Callable[..., Awaitable[Any]], kind: str, patch: MethodPatch
    ) -> Callable[..., Any]:
        @functools.wraps(send)
        async def instrumented_send(self: Any, *args: Any, **kwargs: Any) -> Any:
            if active_collector() is None or not patch.active:
                return await send(self, *args, **kwargs)
            request = args[0] if args else kwargs.get("request")
            detached = None if request is None else _open(context, request)
            if detached is None:
                return await send(self, *args, **kwargs)
            token = bind_span(detached.span)
            try:
                response = await send(self, *args, **kwargs)
            except BaseException as exc:
                _fail(detached, exc, request)
                raise
            finally:
                unbind_span(token)
            _respond(context, detached, response, kwargs, stream_type)
            return response

        return instrumented_send

    return make
