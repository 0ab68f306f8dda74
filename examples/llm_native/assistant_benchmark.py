"""The benchmark task: ask the assistant one question.

There is no ``ctx.span()`` or ``ctx.metric()`` here: the spec's ``instrumentation``
section installs the OpenAI and HTTPX instrumentors, which record the client and HTTP
spans, the requested and response models, token usage and latency; ``token_cost``
prices the usage from ``pricing.yaml``.
"""

from __future__ import annotations

import httpx2
import openai
from assistant_app.assistant import answer
from assistant_app.offline_api import transport


def ask(ctx, case):
    client = openai.OpenAI(
        api_key="offline-demo-key",
        http_client=httpx2.Client(transport=transport()),
    )
    reply = answer(client, case.input["question"], model=ctx.factor("model"))
    return {"answer": reply, "names_policy": case.expected["policy"] in reply.lower()}
