"""The capability every instrumented agent run gets: one ABP span per step of the run.

Spans (scope ``pydantic_ai``, framework layer), by operation and kind:

``pydantic_ai.agent`` (``agent``)
    One agent run: ``agent.name``, ``pydantic_ai.run_id``. At its end the run's usage
    roll-up, marked ``aggregate``: validation evidence, never added to the requests'
    usage. A delegate run given its parent's usage (``usage=ctx.usage``) has
    ``pydantic_ai.usage.shared`` and records only what it added, or no roll-up when a
    concurrent delegate added to the same object; a run started inside another on a usage of
    its own has ``accounting.nested_run`` (``_shared_usage``). Tracked assets as
    ``asset`` references.
``pydantic_ai.model`` (``llm``)
    One model request: ``llm.model.requested`` (the model asked for),
    ``llm.model.response`` (the model that answered), ``llm.provider`` and
    ``server.address`` (as the OpenAI layer names them, see ``_facts``), ``llm.stream``,
    ``llm.finish_reason``, ``llm.response.id``; usage ``requests`` = 1,
    ``input_tokens`` (cached ones included), ``output_tokens`` (reasoning included),
    ``cache_read_tokens``, ``cache_write_tokens``, ``reasoning_tokens``. The messages
    and the response parts as input and output with ``capture_input`` /
    ``capture_output``.
``<tool name>`` (``tool``)
    One tool execution: ``tool.call_id``, ``tool.retry`` (the retry count the tool
    saw); input the validated arguments, output the result (the capture policy
    applies). A ``ModelRetry`` ends it with status ``error`` and
    ``tool.retry_requested``.
``pydantic_ai.output.validate`` / ``pydantic_ai.output.process`` (``parser``)
    A structured output checked against its schema; the output validators and
    processors (text outputs too). ``output.retry``; a failure ends with status
    ``error`` and ``output.retry_requested`` when the model is asked again. The partial
    checks of a streamed output are not spans.

Each span is the active ABP span while its step runs, so whatever the step calls
(the OpenAI client, HTTPX, a nested agent) records beneath it; a streamed request,
which Pydantic AI opens in the task consuming it, is opened under its span by the
model wrapper of ``_streams``. A step's exception ends its span with status
``error`` (``cancelled`` for cancellation) and is re-raised unchanged; a failure of
the instrumentation itself is logged and never reaches the agent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from autobench.abp import (
    NESTED_RUN,
    USAGE_UNMEASURED,
    InstrumentationRuntime,
    SpanKind,
    SpanStatus,
)
from autobench.abp._detached import DetachedSpan, bind_span, unbind_span
from autobench.abp._provider import PROVIDER
from autobench.instrument.pydantic_ai._assets import AssetRef
from autobench.instrument.pydantic_ai._facts import (
    identity_attributes,
    request_parts,
    response_attributes,
    response_parts,
    run_usage,
    unmeasured,
    usage_counts,
)
from autobench.instrument.pydantic_ai._shared_usage import RunShare
from autobench.instrument.pydantic_ai._streams import SpanBindingModel
from pydantic_ai.capabilities import AbstractCapability

logger = logging.getLogger("autobench.instrument.pydantic_ai")

AGENT_OPERATION = "pydantic_ai.agent"
MODEL_OPERATION = "pydantic_ai.model"
VALIDATE_OPERATION = "pydantic_ai.output.validate"
PROCESS_OPERATION = "pydantic_ai.output.process"
USAGE_SHARED = "pydantic_ai.usage.shared"
"""Set on the agent span of a run that added to an enclosing run's ``RunUsage``."""


class AutobenchCapability(AbstractCapability[Any]):
    """Records the agent run it is given to (see the module docstring for the spans).

    Built by the instrumentor for each ``Agent.iter`` call, so it already belongs to one
    run: Pydantic AI's default ``for_run`` (the capability itself) keeps it, and
    concurrent runs of one agent share nothing.
    """

    def __init__(
        self,
        runtime: InstrumentationRuntime,
        *,
        assets: Sequence[AssetRef] = (),
        capture_input: bool = False,
        capture_output: bool = False,
    ) -> None:
        self.runtime = runtime
        self.assets = tuple(assets)
        self.capture_input = capture_input
        self.capture_output = capture_output
        self._streamed: DetachedSpan | None = None  # the open span of a streamed request

    def __repr__(self) -> str:
        return f"AutobenchCapability(assets={len(self.assets)})"

    # -- the run -------------------------------------------------------------------------

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        span = self._open(AGENT_OPERATION, SpanKind.AGENT, _run_attributes(ctx))
        if span is None:
            return await handler()
        for asset in self.assets:
            _guard(asset.bind, span)
        share = RunShare.start(getattr(ctx, "usage", None), run_usage)
        token = bind_span(span.span)
        try:
            result = await handler()
        except BaseException as exc:
            _guard(_record_run_usage, span, share)
            _end_failed(span, exc)
            raise
        finally:
            unbind_span(token)
        _guard(_record_run_usage, span, share)
        span.end(SpanStatus.OK)
        return result

    # -- model requests ------------------------------------------------------------------

    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        messages = _guarded(request_parts, request_context) if self.capture_input else None
        attributes = _guarded(identity_attributes, request_context)
        span = self._open(MODEL_OPERATION, SpanKind.LLM, attributes, input=messages)
        if span is None:
            return await handler(request_context)
        if getattr(request_context, "streaming", False) is True:
            self._streamed = span
        token = bind_span(span.span)
        try:
            response = await handler(request_context)
        except BaseException as exc:
            _end_failed(span, exc)
            raise
        finally:
            unbind_span(token)
            self._streamed = None
        _guard(_record_response, span, response, self.capture_output)
        span.end(SpanStatus.OK)
        return response

    def get_wrapper_model(self, model: Any) -> Any:
        """For a streamed request, a model that opens the stream under the request's span.

        Pydantic AI opens a streamed response lazily in the task that consumes it, not in
        the task running :meth:`wrap_model_request`, so the span active there would be
        the agent's and the client and HTTP spans of the request would miss their parent.
        Non-streamed requests run where the span is active: their model is not wrapped.
        """
        span = self._streamed
        if span is None:
            return None
        return SpanBindingModel(model, span)

    # -- tools ---------------------------------------------------------------------------

    async def wrap_tool_execute(
        self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any
    ) -> Any:
        name = str(getattr(call, "tool_name", None) or "tool")
        attributes = {"tool.call_id": getattr(call, "tool_call_id", None)}
        retry = getattr(ctx, "retry", None)
        if isinstance(retry, int):
            attributes["tool.retry"] = retry
        span = self._open(name, SpanKind.TOOL, attributes, input=_arguments(args))
        if span is None:
            return await handler(args)
        for asset in self.assets:
            if asset.kind == "tool" and asset.names(name):
                _guard(asset.bind, span)
        token = bind_span(span.span)
        try:
            result = await handler(args)
        except BaseException as exc:
            if type(exc).__name__ in _RETRY_ERRORS:
                span.span.attributes["tool.retry_requested"] = True
            _end_failed(span, exc)
            raise
        finally:
            unbind_span(token)
        span.span.output = result
        span.end(SpanStatus.OK)
        return result

    # -- output validation ---------------------------------------------------------------

    async def wrap_output_validate(
        self, ctx: Any, *, output_context: Any, output: Any, handler: Any
    ) -> Any:
        return await self._output_step(VALIDATE_OPERATION, ctx, output, handler)

    async def wrap_output_process(
        self, ctx: Any, *, output_context: Any, output: Any, handler: Any
    ) -> Any:
        return await self._output_step(PROCESS_OPERATION, ctx, output, handler)

    async def _output_step(self, operation: str, ctx: Any, output: Any, handler: Any) -> Any:
        if getattr(ctx, "partial_output", False):
            return await handler(output)  # a streamed output being checked as it grows
        attributes: dict[str, Any] = {}
        retry = getattr(ctx, "retry", None)
        if isinstance(retry, int):
            attributes["output.retry"] = retry
        span = self._open(operation, SpanKind.PARSER, attributes)
        if span is None:
            return await handler(output)
        token = bind_span(span.span)
        try:
            result = await handler(output)
        except BaseException as exc:
            if type(exc).__name__ in _RETRY_ERRORS or type(exc).__name__ == "ValidationError":
                span.span.attributes["output.retry_requested"] = True
            _end_failed(span, exc)
            raise
        finally:
            unbind_span(token)
        span.end(SpanStatus.OK)
        return result

    # -- helpers -------------------------------------------------------------------------

    def _open(
        self, operation: str, kind: str, attributes: Mapping[str, Any] | None, input: Any = None
    ) -> DetachedSpan | None:
        try:
            span = self.runtime.open_span(operation, kind=kind, input=input)
            if span is not None and attributes:
                span.span.attributes.update(attributes)  # the policy applies on materialize
            return span
        except Exception:
            logger.exception("pydantic_ai instrumentation: opening the %s span failed", operation)
            return None


_RETRY_ERRORS = frozenset({"ModelRetry", "ToolRetryError"})
"""Exceptions by which a tool asks the model to try again (matched by name: the retry
error's module moved between releases)."""


def _run_attributes(ctx: Any) -> dict[str, Any]:
    agent = getattr(ctx, "agent", None)
    attributes: dict[str, Any] = {"agent.name": getattr(agent, "name", None) or "agent"}
    run_id = getattr(ctx, "run_id", None)
    if run_id:
        attributes["pydantic_ai.run_id"] = str(run_id)
    return attributes


def _record_run_usage(span: DetachedSpan, share: RunShare) -> None:
    counts = share.end(run_usage)
    if share.delegated:
        span.span.attributes[USAGE_SHARED] = True
    if share.nested:
        span.span.attributes[NESTED_RUN] = True
    if counts:
        span.span.usage.update(counts)
        span.span.usage["aggregate"] = True


def _record_response(span: DetachedSpan, response: Any, capture_output: bool) -> None:
    active = span.span
    attributes = response_attributes(response)
    provider = attributes.pop(PROVIDER, None)
    active.attributes.update(attributes)
    if provider is not None:
        active.attributes.setdefault(PROVIDER, provider)
    usage = getattr(response, "usage", None)
    active.usage.update(usage_counts(usage))
    active.usage["requests"] = 1
    if unmeasured(usage):
        active.add_diagnostic(
            USAGE_UNMEASURED,
            f"{active.operation}: the provider reported no usage; the request is counted, "
            "its tokens are unmeasured",
        )
    if capture_output:
        active.output = response_parts(response)


def _arguments(args: Any) -> Any:
    if isinstance(args, Mapping):
        return dict(args)
    dump = getattr(args, "model_dump", None)
    return dump() if callable(dump) else args


def _end_failed(span: DetachedSpan, error: BaseException) -> None:
    status = (
        SpanStatus.CANCELLED
        if isinstance(error, asyncio.CancelledError | GeneratorExit)
        else SpanStatus.ERROR
    )
    try:
        span.end(status, error)
    except Exception:
        logger.exception("pydantic_ai instrumentation: ending a failed span failed")


def _guard(function: Any, *args: Any) -> None:
    try:
        function(*args)
    except Exception:
        logger.exception("pydantic_ai instrumentation: %s failed", function.__name__)


def _guarded(function: Any, *args: Any) -> Any:
    try:
        return function(*args)
    except Exception:
        logger.exception("pydantic_ai instrumentation: %s failed", function.__name__)
        return None
