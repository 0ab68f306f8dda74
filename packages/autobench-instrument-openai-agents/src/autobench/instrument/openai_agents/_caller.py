"""The SDK model whose call opened a span, and its OpenAI client (imports ``agents``).

The SDK's ``response`` span data carries no URL, and a ``generation`` span only the
``base_url`` string, so neither says on its own where the call went nor whether the
client was Azure's. Both are opened by the model itself: ``OpenAIResponsesModel`` and
``OpenAIChatCompletionsModel`` run ``with response_span(...)`` / ``generation_span(...)``
inside their ``get_response`` and ``stream_response`` (``agents/models/``), and the SDK
calls the processor synchronously from there (``Span.start`` -> ``on_span_start``). The
model is therefore the ``self`` of a frame a few levels up the calling stack, and its
``_client`` is the ``AsyncOpenAI`` it sends the request with (the ``openai_client`` it
was made with).

:func:`calling_model` walks at most :data:`MAX_DEPTH` frames up from its caller, looks
only at frames of those two method names, and returns the nearest
:class:`agents.models.interface.Model` found there; ``None`` when there is none (a span
opened by application code). Its ``_client``, when that is an OpenAI client
(``_facts.client_of``), and its ``model`` attribute, the name it asks for, go on the span. Without them the span keeps what the
span data says. Reading the frame changes nothing in it.
"""

from __future__ import annotations

import sys

from agents.models.interface import Model

MAX_DEPTH = 16
"""Frames searched above the caller: the SDK's span start sits 5 to 7 frames below the model
method (processor, multi-processor, ``SpanImpl.start``, ``__enter__``, ...)."""

MODEL_METHODS = frozenset({"get_response", "stream_response"})
"""The :class:`Model` methods that open the model call's span."""


def calling_model() -> Model | None:
    """The SDK model whose method is running below the caller (module docstring), or
    ``None``."""
    frame = sys._getframe(1)
    for _ in range(MAX_DEPTH):
        frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return None
        if frame.f_code.co_name not in MODEL_METHODS:
            continue
        model = frame.f_locals.get("self")
        if isinstance(model, Model):
            return model
    return None
