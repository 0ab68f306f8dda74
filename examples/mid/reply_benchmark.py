"""The benchmark task: generate one support reply and record its usage, latency and quality.

The task records evidence only; the request cost is derived by Autobench from the
token usage and ``pricing/models.yaml`` (``derive: token_cost``), and the success and
cost gates are ``policies`` in the spec.
"""

from __future__ import annotations

from reply_app.fake_model import FakeReplyModel

from autobench import Case, ObservationRole, RunContext, Semantic, SpanKind


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
        span.metric(
            "input_tokens",
            reply.usage.input_tokens,
            semantic_type=Semantic.LLM_TOKENS_INPUT,
            unit="tokens",
        )
        span.metric(
            "output_tokens",
            reply.usage.output_tokens,
            semantic_type=Semantic.LLM_TOKENS_OUTPUT,
            unit="tokens",
        )
        span.factor_observation("provider", reply.provider, semantic_type=Semantic.LLM_PROVIDER)
        span.factor_observation("model", reply.model, semantic_type=Semantic.LLM_MODEL_NAME)
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
