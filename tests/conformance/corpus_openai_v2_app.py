"""An application that traces its OpenAI calls with the community
``opentelemetry-instrumentation-openai-v2`` package: ``OpenAIInstrumentor().instrument()``
when it starts, ``uninstrument()`` when it is done. It asks one question plainly and one as a
stream with ``stream_options={"include_usage": True}``, read to the end, on the real
``openai.OpenAI`` client over the :class:`~corpus_provider.LedgerProvider`."""

from __future__ import annotations

from typing import Any

from corpus_provider import LedgerProvider, Text, Turn
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor


def _answer(body: dict[str, Any]) -> Turn:
    return Text("Paris." if body.get("stream") else "Four.")


def run(ctx: Any, case: Any) -> dict[str, Any]:
    provider = LedgerProvider(_answer)
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument()
    try:
        client = provider.sync_client()
        plain = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "2 + 2?"}]
        )
        stream = client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "The capital of France?"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        parts = [chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices]
    finally:
        instrumentor.uninstrument()
    answers = [plain.choices[0].message.content, "".join(parts)]
    return {"output": answers, "ledger": provider.ledger}
