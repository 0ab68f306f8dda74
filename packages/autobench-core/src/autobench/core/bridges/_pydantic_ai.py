"""The Pydantic AI usage bridge: a run's model usage as canonical LLM observations.

Pydantic AI is never imported. :func:`record_pydantic_ai_usage` accepts a
:class:`PydanticAIUsage`, a mapping, or any object with the attributes of
Pydantic AI's ``RunUsage``/``RequestUsage`` (``requests``, ``input_tokens``,
``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``,
``total_tokens``; the older ``request_tokens``/``response_tokens`` are read
as input/output) and, for model identity, ``model_name`` and ``provider`` (or
``provider_name``, as on a ``ModelResponse``).

Observations written (``None`` values are skipped; token counts and requests
are metrics with role diagnostic, direction minimize):

=====================  ==========================  ========
field                  semantic type               unit
=====================  ==========================  ========
requests               ``llm.request.count``       requests
input_tokens           ``llm.tokens.input``        tokens
output_tokens          ``llm.tokens.output``       tokens
cache_read_tokens      ``llm.tokens.cache_read``   tokens
cache_write_tokens     ``llm.tokens.cache_write``  tokens
total_tokens           ``llm.tokens.total``        tokens
model_name             ``llm.model.name``          (factor)
provider               ``llm.provider``            (factor; in its GenAI convention
                                                   spelling, ``azure`` ->
                                                   ``azure.ai.openai``, as the native
                                                   layers record it)
=====================  ==========================  ========

Pydantic AI's ``input_tokens`` counts every input token, cached ones
included, which is what the ``token_cost`` deriver expects.

Usage of one model request is direct evidence; the usage of a whole agent run
(``result.usage()``) is the roll-up of its requests. Recorded on a span above
the requests' spans (the run's root span, for ``ctx``), it is recognised as an
aggregate and never added to them; ``accounting="aggregate"`` says so
explicitly wherever it is recorded, and ``operation_id`` names the logical
operation a request's usage belongs to (run totals count an operation once,
see ``autobench.records._run_accounting``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from autobench.abp._provider import convention_name
from autobench.core.runtime import RunContext, Span
from autobench.core.runtime._recorder import EvidenceRecorder
from autobench.records import Direction, Observation, ObservationRole, Semantic

_METRICS: tuple[tuple[str, str, str], ...] = (
    ("requests", Semantic.LLM_REQUEST_COUNT, "requests"),
    ("input_tokens", Semantic.LLM_TOKENS_INPUT, "tokens"),
    ("output_tokens", Semantic.LLM_TOKENS_OUTPUT, "tokens"),
    ("cache_read_tokens", Semantic.LLM_TOKENS_CACHE_READ, "tokens"),
    ("cache_write_tokens", Semantic.LLM_TOKENS_CACHE_WRITE, "tokens"),
    ("total_tokens", Semantic.LLM_TOKENS_TOTAL, "tokens"),
)
_FALLBACKS = {
    "input_tokens": "request_tokens",
    "output_tokens": "response_tokens",
    "provider": "provider_name",
}


class PydanticAIUsage(BaseModel):
    """Usage of one model request or one agent run, in Pydantic AI's terms.

    Counts are non-negative integers (``None``: not reported); ``model_name``
    and ``provider`` identify the model for pricing (``provider:model`` and
    ``provider/model`` forms are fine, see the pricing normalisation rule).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests: int | None = Field(default=None, ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cache_read_tokens: int | None = Field(default=None, ge=0)
    cache_write_tokens: int | None = Field(default=None, ge=0)
    total_tokens: int | None = Field(default=None, ge=0)
    model_name: str | None = None
    provider: str | None = None

    @classmethod
    def from_usage(
        cls, usage: Any, *, model_name: str | None = None, provider: str | None = None
    ) -> PydanticAIUsage:
        """Read ``usage`` (this model, a mapping or an object with the attributes named in the
        module docstring); ``model_name`` and ``provider`` override what it holds. Raises
        pydantic's ``ValidationError`` for negative or non-integer counts."""
        if isinstance(usage, PydanticAIUsage) and model_name is None and provider is None:
            return usage
        data = {name: _read(usage, name) for name in cls.model_fields}
        if model_name is not None:
            data["model_name"] = model_name
        if provider is not None:
            data["provider"] = provider
        return cls.model_validate(data)


def _read(usage: Any, name: str) -> Any:
    for key in (name, _FALLBACKS.get(name)):
        if key is None:
            continue
        value = usage.get(key) if isinstance(usage, Mapping) else getattr(usage, key, None)
        if callable(value):  # e.g. a method rather than a count
            continue
        if value is not None:
            return value
    return None


class _LinkedTo(EvidenceRecorder):
    """Records into a run's evidence, linked to a span given by id."""

    __slots__ = ("_evidence", "_span_id")

    def __init__(self, ctx: RunContext, span_id: str) -> None:
        self._evidence = ctx._evidence
        self._span_id = span_id

    def _link_span_id(self) -> str | None:
        return self._span_id


def record_pydantic_ai_usage(
    ctx: RunContext | Span,
    usage: Any,
    *,
    span: Span | str | None = None,
    span_id: str | None = None,
    model_name: str | None = None,
    provider: str | None = None,
    accounting: Literal["direct", "aggregate"] | None = None,
    operation_id: str | None = None,
) -> tuple[Observation, ...]:
    """Record ``usage`` as token, request, model and provider observations (table above).

    The observations link to ``span`` (a :class:`Span` or a span id; ``span_id``
    is the same by keyword), else to the span ``ctx`` links to (a ``Span``
    itself, or the innermost open span for a ``RunContext``). ``model_name`` and
    ``provider`` override the values in ``usage``. ``accounting`` and
    ``operation_id`` become the count and token observations' tags of those names
    (module docstring). Returns the observations in the order written. Raises
    ``ValueError`` for another ``accounting`` value.
    """
    if accounting not in (None, "direct", "aggregate"):
        raise ValueError(f"accounting must be 'direct' or 'aggregate', not {accounting!r}")
    tags: dict[str, str] = {"accounting": accounting} if accounting is not None else {}
    if operation_id is not None:
        tags["operation_id"] = str(operation_id)
    data = PydanticAIUsage.from_usage(usage, model_name=model_name, provider=provider)
    target = span if span is not None else span_id
    recorder: EvidenceRecorder
    if isinstance(target, Span):
        recorder = target
    elif isinstance(target, str) and isinstance(ctx, RunContext):
        recorder = _LinkedTo(ctx, target)
    elif isinstance(target, str) and isinstance(ctx, Span) and target != ctx.id:
        raise ValueError("pass the run context (ctx), not a span, to link to another span id")
    else:
        recorder = ctx
    written: list[Observation] = []
    for name, semantic, unit in _METRICS:
        value = getattr(data, name)
        if value is not None:
            written.append(
                recorder.metric(
                    name,
                    value,
                    semantic_type=semantic,
                    unit=unit,
                    direction=Direction.MINIMIZE,
                    role=ObservationRole.DIAGNOSTIC,
                    tags=tags or None,
                )
            )
    if data.model_name is not None:
        written.append(
            recorder.factor_observation(
                "model_name", data.model_name, semantic_type=Semantic.LLM_MODEL_NAME
            )
        )
    if data.provider is not None:
        written.append(
            recorder.factor_observation(
                "provider", convention_name(data.provider), semantic_type=Semantic.LLM_PROVIDER
            )
        )
    return tuple(written)
