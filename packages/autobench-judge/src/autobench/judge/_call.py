"""One judge call: a Pydantic AI agent asked for a structured verdict, outside the run's trace.

Pydantic AI is imported here, and this module is imported only when a judge
scores (or its model object is resolved): loading or replaying a spec with a
judge never imports a provider SDK.

**Where the judge's calls are recorded.** Scoring starts after the run's trace
is closed, and the judge runs under a trace collector of its own, bound for the
duration of the call: every instrumentor installed (``pydantic_ai``, ``openai``,
``httpx``) records the judge's spans there, under a root span
``judge.<scorer name>`` (kind ``judge``, tag ``scope: judge``), never in the
application's trace. That trace is kept with the run as the artifact
``judge.<scorer name>.trace`` (JSON). The judge's usage, read from the model's
responses (Pydantic AI's own accounting of every attempt, failed ones
included), becomes the run's observations ``judge.tokens.input``,
``judge.tokens.output`` and ``judge.request.count`` (and ``judge.time.queue``, the
seconds its attempts waited for the judge's ``limits``, when it has some:
:mod:`._limits`), and, when the judge has a
``pricing`` table pricing every response's model, ``judge.cost`` (USD; a
diagnostic ``judge_cost_unknown_pricing`` says why when it cannot): types
of their own, so the application's ``llm.tokens.*`` and ``money.cost`` never
include a judge.

**Cassettes.** Under ``autobench run --cassette`` (or ``autobench rescore
--cassette``) the judge's HTTP requests go through a cassette of its own
(``ScoringCall.cassettes``), kept with the run as the artifact
``judge.<scorer name>.cassette``: recorded, or answered from the source record's
cassette of that name only (never from the application's). A replayed reply
carries the recorded usage, so the judge's tokens and cost are the recorded
call's; the observation ``judge.<scorer name>.cassette.replayed`` counts the
replayed requests. A request the cassette cannot answer is a
:class:`JudgeCallError` at once (no retry).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, create_model

from autobench.abp import AutobenchError, TraceCollector, bind_collector, start_span
from autobench.abp._cassette import RunCassette, bind_cassette
from autobench.core._targets import resolve_target
from autobench.core.scoring._base import (
    ScorerArtifact,
    ScorerObservation,
    ScorerResolutionError,
    ScoringCall,
)
from autobench.judge._fields import (
    IntegerScale,
    JudgeEndpoint,
    JudgeFields,
    JudgeModelTarget,
    JudgeScale,
    LabelScale,
)
from autobench.judge._limits import judge_slot
from autobench.records import Direction, ObservationKind, ScoreRecord, Semantic

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse

JUDGE_SPAN_KIND = "judge"
"""The kind of a judge's root span (its children are the instrumentors' spans)."""

JUDGE_SCOPE_TAG = {"scope": "judge"}
"""The tag of every judge span and observation."""

JUDGE_COST_UNPRICED = "judge_cost_unknown_pricing"
"""The diagnostic recorded when a judge has a pricing table that cannot price its calls."""

REPLY_SHOWN = 500
"""At most this many characters of a judge's reply are quoted in an error."""

_INSTALL = (
    "the judge scorer runs its model through Pydantic AI, which is not installed: "
    "pip install 'autobench[judge]' (autobench-judge brings 'pydantic-ai-slim[openai]' for OpenAI models "
    "and OpenAI-compatible endpoints)"
)


class JudgeUnavailableError(AutobenchError, ImportError):
    """Pydantic AI (or the provider package a judge's model needs) is not installed."""


class JudgeReplyError(AutobenchError, ValueError):
    """The judge's reply was malformed or off its scale after every attempt.

    The message starts with the scorer's YAML location and quotes the reply."""


class JudgeCallError(AutobenchError, RuntimeError):
    """Every attempt of a judge call raised or timed out (the last cause is chained)."""


def _pydantic_ai() -> Any:
    try:
        import pydantic_ai
    except ImportError as exc:
        raise JudgeUnavailableError(_INSTALL) from exc
    return pydantic_ai


def resolve_model_target(scorer: JudgeFields, base_dir: Path | None) -> Any:
    """The Pydantic AI model a ``{python: module:attribute}`` judge model names (a callable
    is called with no argument). Raises :class:`ScorerResolutionError`."""
    assert isinstance(scorer.model, JudgeModelTarget)
    what = f"judge scorer '{scorer.name}' model"
    value = resolve_target(
        scorer.model.python, base_dir, what=what, where=scorer.origin, error=ScorerResolutionError
    )
    models = _pydantic_ai().models
    if not isinstance(value, models.Model) and callable(value):
        value = value()
    if not isinstance(value, models.Model):
        where = f"{scorer.origin}: " if scorer.origin else ""
        raise ScorerResolutionError(
            f"{where}{what} {scorer.model.python!r} is a {type(value).__name__}, "
            "not a Pydantic AI model",
            module=scorer.model.python.partition(":")[0],
        )
    return value


def build_model(scorer: JudgeFields) -> Any:
    """The Pydantic AI model (or model string) the judge calls."""
    _pydantic_ai()
    if scorer._model_object is not None:
        return scorer._model_object
    model = scorer.model
    if isinstance(model, JudgeModelTarget):
        return resolve_model_target(scorer, None)
    if isinstance(model, JudgeEndpoint):
        try:
            from pydantic_ai.models.openai import OpenAIChatModel
            from pydantic_ai.providers.openai import OpenAIProvider
        except ImportError as exc:
            raise JudgeUnavailableError(_INSTALL) from exc
        key = "unused"
        if model.api_key_env is not None:
            found = os.environ.get(model.api_key_env)
            if not found:
                raise JudgeCallError(
                    f"judge '{scorer.name}': the environment variable {model.api_key_env} "
                    "(its api_key_env) is not set"
                )
            key = found
        return OpenAIChatModel(
            model.name, provider=OpenAIProvider(base_url=model.base_url, api_key=key)
        )
    return model


def output_type(scale: JudgeScale) -> type[BaseModel]:
    """The structured reply the judge must give: ``reason`` then the verdict, constrained
    to the scale (``verdict: pass|fail``, ``score: min..max`` or ``label: <one of>``)."""
    reason = (str, Field(description="Why the verdict follows from the rubric, briefly."))
    if scale == "pass_fail":
        verdict: Any = (Literal["pass", "fail"], Field(description="pass or fail"))
        return create_model("JudgeVerdict", reason=reason, verdict=verdict)
    if isinstance(scale, IntegerScale):
        score: Any = (int, Field(ge=scale.min, le=scale.max, description="the grade"))
        return create_model("JudgeGrade", reason=reason, score=score)
    assert isinstance(scale, LabelScale)
    label: Any = (Literal[scale.labels], Field(description="one of the labels"))
    return create_model("JudgeLabel", reason=reason, label=label)


def scale_text(scale: JudgeScale) -> str:
    """The scale in words, for the judge's instructions and errors."""
    if scale == "pass_fail":
        return "pass or fail"
    if isinstance(scale, IntegerScale):
        return f"a whole number from {scale.min} to {scale.max}"
    assert isinstance(scale, LabelScale)
    return "one of the labels " + ", ".join(scale.labels)


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return json.dumps(value, indent=2, ensure_ascii=False, default=str, sort_keys=True)


def _verdict_text(scale: JudgeScale, verdict: Any) -> str:
    if scale == "pass_fail" and isinstance(verdict, bool):
        return "pass" if verdict else "fail"
    return str(verdict)


def instructions(scorer: JudgeFields) -> str:
    """The judge's instructions: its role, the rubric, the scale and the examples."""
    parts = [
        "You are an evaluator. Grade the material you are given strictly by the rubric below.",
        f"<rubric>\n{scorer.rubric_text.strip()}\n</rubric>",
        f"Your verdict is {scale_text(scorer.scale)}. Give a short reason, then the verdict.",
    ]
    for number, example in enumerate(scorer.examples, 1):
        shown = [f"Example {number}:"]
        if example.input is not None:
            shown.append(f"<input>\n{_render(example.input)}\n</input>")
        if example.output is not None:
            shown.append(f"<output>\n{_render(example.output)}\n</output>")
        shown.append(f"Verdict: {_verdict_text(scorer.scale, example.verdict)}")
        if example.reason:
            shown.append(f"Reason: {example.reason}")
        parts.append("\n".join(shown))
    return "\n\n".join(parts)


def user_prompt(values: Mapping[str, Any]) -> str:
    """What the judge grades: each input in a tag of its name."""
    return "\n\n".join(f"<{name}>\n{_render(value)}\n</{name}>" for name, value in values.items())


def _verdict(scale: JudgeScale, reply: BaseModel) -> Any:
    data = reply.model_dump()
    if scale == "pass_fail":
        return data["verdict"] == "pass"
    if isinstance(scale, IntegerScale):
        return data["score"]
    return data["label"]


def _reply_text(messages: Sequence[ModelMessage]) -> str:
    """The last model response's content (tool-call arguments or text), shortened."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart

    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            shown: list[str] = []
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    shown.append(part.args_as_json_str())
                elif isinstance(part, TextPart):
                    shown.append(part.content)
            text = " ".join(shown) or "(empty reply)"
            return text if len(text) <= REPLY_SHOWN else text[:REPLY_SHOWN] + "..."
    return "(no reply)"


def _responses(messages: Sequence[ModelMessage]) -> list[ModelResponse]:
    from pydantic_ai.messages import ModelResponse

    return [message for message in messages if isinstance(message, ModelResponse)]


async def _attempt(
    agent: Any, prompt: str, judge: JudgeFields, cassette: RunCassette | None = None
) -> tuple[Any, list[Any], float]:
    """One agent run within the judge's rate limits (:mod:`._limits`) and its ``timeout``
    (which bounds the call, not the wait before it): ``(reply or the exception it raised,
    the messages exchanged, the seconds waited for the judge's budget)``."""
    pydantic_ai = _pydantic_ai()
    timeout = judge.timeout
    async with judge_slot(judge, cassette) as slot:
        with pydantic_ai.capture_run_messages() as messages:
            outcome: Any
            try:
                deadline = asyncio.timeout(timeout) if timeout else contextlib.nullcontext()
                async with deadline:
                    outcome = (await agent.run(prompt)).output
            except Exception as exc:
                outcome = exc
        slot.tokens = sum(
            r.usage.input_tokens + r.usage.output_tokens for r in _responses(messages)
        )
    return outcome, list(messages), slot.waited


@dataclass(slots=True)
class Attempts:
    """What a judge call's attempts gave: the first ``reply``, or else ``failed`` (the last
    attempt's exception) with that attempt's ``messages``; every model response of every
    attempt (Pydantic AI's accounting, failed attempts included) and the seconds ``queued``
    for the judge's limits."""

    reply: Any = None
    failed: Exception | None = None
    messages: list[Any] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    queued: float = 0.0


async def attempt_until_reply(
    agent: Any, prompt: str, judge: JudgeFields, cassette: RunCassette | None = None
) -> Attempts:
    """Ask ``agent`` up to ``judge.retries + 1`` times until one attempt replies; a cassette
    that could not answer ends the attempts at once (a replay that cannot answer will not
    answer the next time)."""
    attempts = Attempts()
    for _ in range(judge.retries + 1):
        outcome, messages, waited = await _attempt(agent, prompt, judge, cassette)
        attempts.queued += waited
        attempts.responses.extend(_responses(messages))
        if not isinstance(outcome, Exception):
            attempts.reply, attempts.failed = outcome, None
            break
        attempts.failed, attempts.messages = outcome, messages
        if cassette is not None and cassette.misses:
            break
    return attempts


async def judge_run(scorer: JudgeFields, call: ScoringCall) -> ScoreRecord:
    """Judge one run (see the module docstring); the scorer's :meth:`~autobench.judge.JudgeScorer.score`.

    Raises :class:`~autobench.core.scoring.MissingPathError` for an input path that does
    not resolve, :class:`JudgeReplyError` for a malformed or off-scale reply,
    :class:`JudgeCallError` when every attempt raised, :class:`JudgeUnavailableError`
    when Pydantic AI is missing: each a scorer error of this run only."""
    values = {name: call.resolve(path) for name, path in scorer.inputs.items()}
    pydantic_ai = _pydantic_ai()
    agent = pydantic_ai.Agent(
        build_model(scorer),
        output_type=output_type(scorer.scale),
        instructions=instructions(scorer),
        retries=0,
        name=f"judge.{scorer.name}",
    )
    prompt = user_prompt(values)
    tags = {**JUDGE_SCOPE_TAG, "scorer": scorer.name}
    collector = TraceCollector()
    failure: Exception | None = None
    cassette = None if call.cassettes is None else call.cassettes.open(cassette_name(scorer))
    attempts = Attempts()
    with bind_collector(collector), bind_cassette(cassette):
        try:
            with start_span(
                f"judge.{scorer.name}", kind=JUDGE_SPAN_KIND, input=values, tags=tags
            ) as root:
                attempts = await attempt_until_reply(agent, prompt, scorer, cassette)
                root.set_usage(_usage(attempts.responses))
                if attempts.failed is not None:
                    failure = _failure(scorer, attempts.failed, attempts.messages, cassette)
                    raise failure
                root.set_output(attempts.reply.model_dump(mode="json"))
        except (JudgeReplyError, JudgeCallError):
            pass  # recorded on the span; raised once the judge's evidence is kept
    _keep_evidence(scorer, call, collector, attempts.responses, tags, attempts.queued)
    if cassette is not None:
        _keep_cassette(scorer, call, cassette, tags)
    if failure is not None:
        raise failure
    value = _verdict(scorer.scale, attempts.reply)
    return scorer.score_record(value, reason=attempts.reply.model_dump()["reason"])


def cassette_name(scorer: JudgeFields) -> str:
    """The artifact name of the judge's cassette: ``judge.<scorer name>.cassette``."""
    return f"judge.{scorer.name}.cassette"


def _keep_cassette(
    scorer: JudgeFields, call: ScoringCall, cassette: RunCassette, tags: Mapping[str, str]
) -> None:
    from autobench.core.runtime._cassette import keep_scorer_cassette

    artifacts, observations = keep_scorer_cassette(cassette, cassette_name(scorer), tags)
    call.evidence.artifacts.extend(artifacts)
    call.evidence.observations.extend(observations)


def _failure(
    scorer: JudgeFields,
    exc: Exception,
    messages: Sequence[Any],
    cassette: RunCassette | None = None,
) -> Exception:
    where = f"{scorer.origin}: " if scorer.origin else ""
    pydantic_ai = _pydantic_ai()
    if cassette is not None and cassette.misses:
        error: Exception = JudgeCallError(
            f"{where}judge '{scorer.name}': its cassette has no reply to this call: "
            f"{cassette.misses[-1]}"
        )
    elif isinstance(exc, pydantic_ai.UnexpectedModelBehavior) and _responses(messages):
        error = JudgeReplyError(
            f"{where}judge '{scorer.name}' gave a reply that is not {scale_text(scorer.scale)} "
            f"with a reason ({exc.message}); reply: {_reply_text(messages)}"
        )
    elif isinstance(exc, JudgeUnavailableError):
        return exc
    else:
        what = "timed out" if isinstance(exc, TimeoutError) else f"raised {type(exc).__name__}"
        error = JudgeCallError(f"{where}judge '{scorer.name}' call {what}: {exc}")
    error.__cause__ = exc
    return error


def _usage(responses: Sequence[ModelResponse]) -> dict[str, int]:
    return {
        "requests": len(responses),
        "input_tokens": sum(r.usage.input_tokens for r in responses),
        "output_tokens": sum(r.usage.output_tokens for r in responses),
        "cache_read_tokens": sum(r.usage.cache_read_tokens for r in responses),
        "cache_write_tokens": sum(r.usage.cache_write_tokens for r in responses),
    }


def judge_cost(scorer: JudgeFields, responses: Sequence[ModelResponse]) -> Decimal | str | None:
    """The exact USD cost of ``responses`` by the judge's pricing table: ``None`` when it has
    no table (or there was no response), else the cost, or why a response could not be
    priced (never a partial sum)."""
    table = scorer._pricing_table
    if table is None or not responses:
        return None
    from autobench.core.pricing import TokenUsage, call_cost

    total = Decimal(0)
    for response in responses:
        names = [name for name in (response.model_name, _configured_name(scorer)) if name]
        priced = None
        for name in names:
            try:
                priced = table.resolve(name, response.provider_name)
            except LookupError as exc:
                return f"model {name!r}: {exc}"
            if priced is not None:
                break
        if priced is None:
            return f"no price for the model {' or '.join(map(repr, names)) or '(unnamed)'}"
        usage = response.usage
        try:
            total += call_cost(
                priced.price,
                TokenUsage(
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cache_read_tokens,
                    usage.cache_write_tokens,
                ),
            )
        except (LookupError, ValueError) as exc:
            return f"model {priced.model_id!r}: {exc}"
    return total


def _configured_name(scorer: JudgeFields) -> str | None:
    model = scorer.model
    if isinstance(model, JudgeEndpoint):
        return model.name
    return model if isinstance(model, str) else None


def _keep_evidence(
    scorer: JudgeFields,
    call: ScoringCall,
    collector: TraceCollector,
    responses: Sequence[ModelResponse],
    tags: Mapping[str, str],
    queued: float = 0.0,
) -> None:
    """The judge's trace, usage, cost, rubric version and (when it has ``limits``) the
    seconds ``queued`` for its budget, into ``call.evidence``."""
    evidence = call.evidence
    trace = collector.materialize(release=True)
    evidence.artifacts.append(
        ScorerArtifact(f"judge.{scorer.name}.trace", trace.model_dump(mode="json"), tags=dict(tags))
    )
    usage = _usage(responses)
    for key, semantic, unit in (
        ("input_tokens", Semantic.JUDGE_TOKENS_INPUT, "tokens"),
        ("output_tokens", Semantic.JUDGE_TOKENS_OUTPUT, "tokens"),
        ("requests", Semantic.JUDGE_REQUEST_COUNT, "requests"),
    ):
        evidence.observations.append(
            ScorerObservation(
                f"{scorer.name}.{semantic}",
                usage[key],
                semantic,
                unit=unit,
                direction=Direction.MINIMIZE,
                tags=dict(tags),
            )
        )
    if scorer.limits is not None:
        evidence.observations.append(
            ScorerObservation(
                f"{scorer.name}.{Semantic.JUDGE_TIME_QUEUE}",
                queued,
                Semantic.JUDGE_TIME_QUEUE,
                unit="s",
                direction=Direction.MINIMIZE,
                tags=dict(tags),
            )
        )
    cost = judge_cost(scorer, responses)
    if isinstance(cost, Decimal):
        evidence.observations.append(
            ScorerObservation(
                f"{scorer.name}.{Semantic.JUDGE_COST}",
                float(cost),
                Semantic.JUDGE_COST,
                unit="usd",
                direction=Direction.MINIMIZE,
                tags={**tags, "exact": str(cost)},
            )
        )
    elif cost is not None:
        evidence.observations.append(
            ScorerObservation(
                JUDGE_COST_UNPRICED,
                None,
                None,
                kind=ObservationKind.DIAGNOSTIC,
                reason=f"judge '{scorer.name}' cost not recorded: {cost}",
                tags={**tags, "metric": Semantic.JUDGE_COST},
            )
        )
    if scorer._rubric_version is not None:
        evidence.assets[f"rubric.{scorer.name}"] = (scorer._rubric_version, "rubric")
