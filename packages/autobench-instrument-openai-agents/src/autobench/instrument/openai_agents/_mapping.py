"""How each SDK span type becomes an ABP span: operation, kind, attributes, usage, payloads.

Every span carries ``openai_agents.span_type`` (the SDK's ``span_data.type``) and
``openai_agents.span_id``. The SDK fills most span data while the span runs, so
facts are read when it ends (:func:`record_end`); only what names the span is
read at its start (:func:`start_of`).

=================  ==============================  =========  ================================
SDK span type      operation                       kind       what is recorded
=================  ==============================  =========  ================================
(the trace)        ``openai_agents.workflow``      workflow   ``workflow.name``,
                                                              ``openai_agents.trace_id``,
                                                              ``openai_agents.group_id``
``agent``          ``openai_agents.agent``         agent      ``agent.name``, ``agent.tools``,
                                                              ``agent.handoffs``,
                                                              ``agent.output_type``
``generation``     ``openai_agents.generation``    llm        ``llm.model.requested``,
                                                              ``llm.provider`` and
                                                              ``server.address`` (from the
                                                              model's client, else its
                                                              ``base_url``),
                                                              ``llm.model.response``; usage
``response``       ``openai_agents.response``      llm        ``llm.model.requested`` (the
                                                              model's name), ``llm.provider``
                                                              and ``server.address`` (from
                                                              the model's client),
                                                              ``llm.model.response``,
                                                              ``llm.response.id`` (when the
                                                              SDK keeps the response); usage
``function``       the tool's name                 tool       ``tool.name``; the arguments
                                                              (``tool.arguments``) with
                                                              ``capture_input``, the result
                                                              (output) with ``capture_output``
``handoff``        ``openai_agents.handoff``       handoff    ``handoff.from_agent``,
                                                              ``handoff.to_agent``
``guardrail``      the guardrail's name            guardrail  ``guardrail.name``,
                                                              ``guardrail.triggered``
``custom``         the span's name                 custom     ``openai_agents.data`` (the
                                                              span's data, capture policy
                                                              applies)
``task``, ``turn``  ``openai_agents.task`` / ``.turn``  custom  the SDK's usage roll-up,
                                                              marked aggregate; ``agent.name``
                                                              and ``openai_agents.turn``
                                                              (turn)
``mcp_tools``      ``openai_agents.mcp_tools``     custom     ``mcp.server``, ``mcp.tools``
other types        ``openai_agents.<type>``        custom     ``openai_agents.model`` when the
                                                              data names one
=================  ==============================  =========  ================================

Model calls (``generation``, ``response``) record usage ``requests`` = 1 and the token
counts of ``_facts``, or no token counts and an ``instrumentation.usage_unmeasured``
warning when the provider sent no usage (``_facts.filled_zeros``); with ``capture_input`` / ``capture_output`` their input
(``openai_agents.input`` attribute: the SDK has it only after the span started) and their
output. The SDK keeps inputs and outputs only when ``trace_include_sensitive_data`` is on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autobench.abp import USAGE_UNMEASURED, ActiveSpan
from autobench.instrument.openai_agents._facts import (
    MODEL_REQUESTED,
    MODEL_RESPONSE,
    RESPONSE_ID,
    call_usage,
    client_of,
    field,
    filled_zeros,
    names,
    plain,
    provider_of,
    rollup_usage,
    sent_usage,
    text,
)

SPAN_TYPE = "openai_agents.span_type"
SPAN_ID = "openai_agents.span_id"
WORKFLOW_OPERATION = "openai_agents.workflow"

KINDS: dict[str, str] = {
    "agent": "agent",
    "generation": "llm",
    "response": "llm",
    "function": "tool",
    "handoff": "handoff",
    "guardrail": "guardrail",
}
"""SDK span type -> ABP kind; every other type is ``custom``."""

NAMED = frozenset({"function", "guardrail", "custom"})
"""Types whose operation is the span's own name (a tool, a guardrail, a custom span)."""


@dataclass(frozen=True, slots=True)
class Start:
    """What opens a span: its operation, kind, suppression family and attributes."""

    operation: str
    kind: str
    family: str
    attributes: dict[str, Any]


def workflow_start(trace: Any) -> Start:
    """The ABP span of an SDK trace (one agent workflow)."""
    attributes: dict[str, Any] = {SPAN_TYPE: "trace"}
    for key, value in (
        ("workflow.name", field(trace, "name")),
        ("openai_agents.trace_id", field(trace, "trace_id")),
        ("openai_agents.group_id", field(trace, "group_id")),
    ):
        if text(value):
            attributes[key] = value
    return Start(WORKFLOW_OPERATION, "workflow", WORKFLOW_OPERATION, attributes)


def start_of(span_type: str, data: Any, span_id: Any, model: Any = None) -> Start:
    """The ABP span of an SDK span of ``span_type`` whose data is ``data``; ``model`` is the
    SDK model that opened it, when known (:mod:`._caller`): its OpenAI client names the
    provider and host, its ``model`` the model asked for when the data does not."""
    family = f"openai_agents.{span_type}"
    attributes: dict[str, Any] = {SPAN_TYPE: span_type}
    if text(span_id):
        attributes[SPAN_ID] = span_id
    name = text(field(data, "name"))
    operation = name if span_type in NAMED and name else family
    if span_type == "function" and name:
        attributes["tool.name"] = name
    elif span_type == "guardrail" and name:
        attributes["guardrail.name"] = name
    elif span_type == "agent" and name:
        attributes["agent.name"] = name
    elif span_type in ("generation", "response"):
        requested = text(field(data, "model")) or text(field(model, "model"))
        if requested:
            attributes[MODEL_REQUESTED] = requested
        base_url = field(field(data, "model_config"), "base_url")
        attributes.update(provider_of(base_url, client_of(model)))
    return Start(operation, KINDS.get(span_type, "custom"), family, attributes)


def record_end(
    span: ActiveSpan, span_type: str, data: Any, *, capture_input: bool, capture_output: bool
) -> None:
    """Put what the SDK span's data holds at its end on the ABP ``span`` (table above)."""
    reader = _END.get(span_type, _other)
    reader(span, data, capture_input, capture_output)


def _agent(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    name = text(field(data, "name"))
    if name:
        span.set_attribute("agent.name", name)
    for key, value in (
        ("agent.tools", names(field(data, "tools"))),
        ("agent.handoffs", names(field(data, "handoffs"))),
    ):
        if value is not None:
            span.set_attribute(key, value)
    output_type = text(field(data, "output_type"))
    if output_type:
        span.set_attribute("agent.output_type", output_type)


def _model_call(span: ActiveSpan, usage: Any, sent: Any) -> None:
    if filled_zeros(usage, sent):
        span.set_usage(requests=1)
        span.add_diagnostic(
            USAGE_UNMEASURED,
            f"{span.operation}: the provider sent no usage (the SDK's zero usage is not "
            "recorded); the request is counted, its tokens are unmeasured",
        )
        return
    span.set_usage(call_usage(usage), requests=1)


def _generation(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    output = field(data, "output")
    first = output[0] if isinstance(output, list | tuple) and len(output) == 1 else None
    _model_call(span, field(data, "usage"), sent_usage(first))
    if isinstance(output, list | tuple) and output and not _stand_in(output[0]):
        model = text(field(output[0], "model"))
        if model:
            span.set_attribute(MODEL_RESPONSE, model)
    if capture_input and field(data, "input") is not None:
        span.set_attribute("openai_agents.input", plain(field(data, "input")))
    if capture_output and output is not None:
        span.set_output(plain(output))


STAND_IN_ID = "__fake_id__"
"""The id of the ``Response`` the SDK builds from a streamed chat completion (its
``FAKE_RESPONSES_ID``): its ``model`` is the model asked for, not the one that answered."""


def _stand_in(item: Any) -> bool:
    return text(field(item, "id")) == STAND_IN_ID


def _response(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    response = field(data, "response")
    _model_call(span, field(data, "usage"), sent_usage(response))
    model = text(field(response, "model"))
    if model:
        span.set_attribute(MODEL_RESPONSE, model)
    response_id = text(field(response, "id"))
    if response_id:
        span.set_attribute(RESPONSE_ID, response_id)
    if capture_input and field(data, "input") is not None:
        span.set_attribute("openai_agents.input", plain(field(data, "input")))
    if capture_output and response is not None:
        span.set_output(plain(field(response, "output")))


def _function(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    arguments = field(data, "input")
    if capture_input and arguments is not None:
        span.set_attribute("tool.arguments", plain(arguments))
    result = field(data, "output")
    if capture_output and result is not None:
        span.set_output(plain(result))
    mcp = field(data, "mcp_data")
    if mcp is not None:
        span.set_attribute("openai_agents.mcp_data", plain(mcp))


def _handoff(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    for key, name in (
        ("handoff.from_agent", "from_agent"),
        ("handoff.to_agent", "to_agent"),
    ):
        value = text(field(data, name))
        if value:
            span.set_attribute(key, value)


def _guardrail(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    span.set_attribute("guardrail.triggered", field(data, "triggered") is True)


def _custom(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    values = field(data, "data")
    if values:
        span.set_attribute("openai_agents.data", plain(values))


def _rollup(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    counts = rollup_usage(field(data, "usage"))
    if counts:
        # A roll-up of the model calls of the run (or turn): validation evidence only.
        span.set_usage(counts, aggregate=True)
    agent = text(field(data, "agent_name"))
    if agent:
        span.set_attribute("agent.name", agent)
    turn = field(data, "turn")
    if isinstance(turn, int) and not isinstance(turn, bool):
        span.set_attribute("openai_agents.turn", turn)
    name = text(field(data, "name"))
    if name:
        span.set_attribute("workflow.name", name)


def _mcp_tools(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    server = text(field(data, "server"))
    if server:
        span.set_attribute("mcp.server", server)
    tools = names(field(data, "result"))
    if tools is not None:
        span.set_attribute("mcp.tools", tools)


def _other(span: ActiveSpan, data: Any, capture_input: bool, capture_output: bool) -> None:
    model = text(field(data, "model"))
    if model:
        span.set_attribute("openai_agents.model", model)


_END = {
    "agent": _agent,
    "generation": _generation,
    "response": _response,
    "function": _function,
    "handoff": _handoff,
    "guardrail": _guardrail,
    "custom": _custom,
    "task": _rollup,
    "turn": _rollup,
    "mcp_tools": _mcp_tools,
}
