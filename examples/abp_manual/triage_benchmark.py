"""The benchmark task: triage one ticket, with ``TicketRouter.route`` instrumented.

``router_instrumentation()`` patches ``TicketRouter.route`` for as long as it is open: every
call inside a run gets a ``ticket_router.route`` span, a token metric read from the result
and the answering model as a factor, both linked to that span. The router code is untouched.
Installs go through one module-level ``InstrumentationManager``, which reference-counts
them: concurrent runs share a single patch, and the last run to leave puts the original
method back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from triage_app.router import Ticket, TicketRouter

from autobench import (
    Case,
    Compatibility,
    InstrumentationHandle,
    InstrumentationManager,
    InstrumentationRuntime,
    InstrumentCall,
    InstrumentFactorSpec,
    InstrumentMetricSpec,
    InstrumentorInfo,
    RunContext,
    Semantic,
    SpanKind,
    instrument_method,
)


def _answering_model(call: InstrumentCall) -> str:
    return str(call.result.usage.model)


class TicketRouterInstrumentor:
    """Spans, token usage and the model for every ``TicketRouter.route`` call."""

    info = InstrumentorInfo(id="triage.ticket_router", version="1", span_kinds=(SpanKind.TOOL,))

    def check(self) -> Compatibility:
        return Compatibility.compatible()

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        return instrument_method(
            TicketRouter,
            "route",
            span="ticket_router.route",
            kind=SpanKind.TOOL,
            instrumentor_id=self.info.id,
            metrics=[
                InstrumentMetricSpec(
                    "router_input_tokens",
                    Semantic.LLM_TOKENS_INPUT,
                    unit="tokens",
                    value_path="result.usage.input_tokens",
                    direction="minimize",
                )
            ],
            factors=[
                InstrumentFactorSpec(
                    "router_model", Semantic.LLM_MODEL_NAME, value_factory=_answering_model
                )
            ],
        )


_MANAGER = InstrumentationManager()


@contextmanager
def router_instrumentation() -> Iterator[None]:
    """Keep ``TicketRouter.route`` instrumented while the block runs."""
    with _MANAGER.install(TicketRouterInstrumentor()):
        yield


def triage_case(ctx: RunContext, case: Case) -> dict[str, object]:
    router = TicketRouter(model=ctx.factor("model"))
    ticket = Ticket(**case.input)
    with (
        router_instrumentation(),
        ctx.span("triage_ticket", kind=SpanKind.WORKFLOW, input=case.input) as workflow,
    ):
        result = router.route(ticket)
        workflow.set_output({"queue": result.queue, "priority": result.priority})
    return {
        "queue": result.queue,
        "priority": result.priority,
        "matched": list(result.matched),
        "input_tokens": result.usage.input_tokens,
    }
