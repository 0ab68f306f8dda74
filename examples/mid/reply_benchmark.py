"""The benchmark task: generate one support reply and record its usage, latency and quality.

The task records evidence only: the token usage through the Pydantic AI usage bridge
(the fake model's usage object has the attributes of Pydantic AI's ``RunUsage``) and the
simulated latency as a metric. The request cost is derived by Autobench from the usage
and ``pricing/models.yaml`` (``derive: token_cost``); the success and cost gates are
``policies`` in the spec.
"""

from __future__ import annotations

from reply_app.fake_model import FakeReplyModel

from autobench import (
    Case,
    ObservationRole,
    RunContext,
    Semantic,
    SpanKind,
    record_pydantic_ai_usage,
)


def reply_case(ctx: RunContext, case: Case) -> dict[str, object]:
    model = FakeReplyModel(ctx.factor("model"))
    with ctx.span(
        "generate_reply",
        kind=SpanKind.LLM,
        input=case.input,
        attributes={"model": model.profile.name},
    ) as span:
        reply = model.generate(case.input["message"], case.input["knowledge"])
        span.set_output(reply.text)
        span.set_attribute("provider", reply.provider)
        span.set_usage(
            input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens
        )
        record_pydantic_ai_usage(span, reply.usage, model_name=reply.model, provider=reply.provider)
        span.metric(
            "reply_latency",
            reply.latency_ms,
            semantic_type=Semantic.TIME_LATENCY,
            unit="ms",
            direction="minimize",
            role=ObservationRole.DIAGNOSTIC,
        )

    text = reply.text.lower()
    required = case.expected["required_phrases"]
    missing = [phrase for phrase in required if phrase not in text]
    return {
        "reply": reply.text,
        "complete": not missing,
        "fact_coverage": (len(required) - len(missing)) / len(required),
        "missing_phrases": missing,
    }
