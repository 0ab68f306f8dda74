"""Pairwise judging: per case, a judge says which of two variants' recorded outputs is
better, asked in both orders, written as a derived record (``autobench judge pairwise``).

The judge is a ``judge:`` scorer of the spec, reused as it is declared: its model, rubric,
inputs, pricing, timeout and retries (its scale is not used: a pairwise judge answers
``first``, ``second`` or ``tie``). Of its ``inputs``, the paths that start with ``case``
are shown once (the two runs share the case); every other path (``output.answer``) is
resolved on each run and shown twice, as ``<first_NAME>`` and ``<second_NAME>``.

The task never runs: outputs are read from the runs' records, as ``rescore`` reads them.
Each case is asked twice, the baseline's output first and then the candidate's first, so
position bias can be measured (:mod:`autobench.records._pairwise_record` says how the two
answers make one outcome). The judge's calls run under a trace collector of their own,
as the scorer's do (:mod:`autobench.judge._call`): their tokens, requests and cost are
the case's ``judge.*`` observations in the derived record, never the application's.
A call that fails after its retries is kept as that order's ``error``: the case has no
outcome and the command goes on. With ``cassettes``
(:mod:`autobench.judge._pairwise_cassette`) the judge's calls are recorded beside the
derived record, or answered from a source record's, offline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field

from autobench.abp import AutobenchError, TraceCollector, bind_collector, start_span
from autobench.abp._cassette import RunCassette, bind_cassette
from autobench.core._keys import did_you_mean
from autobench.core.plugins import AutobenchPlugins
from autobench.core.rescore import definition_of, recorded_call, rescore_scorers
from autobench.core.scoring import ScoringCall
from autobench.judge._call import (
    JUDGE_SCOPE_TAG,
    JUDGE_SPAN_KIND,
    _keep_evidence,
    _pydantic_ai,
    _render,
    _reply_text,
    _responses,
    _usage,
    attempt_until_reply,
    build_model,
    cassette_name,
)
from autobench.judge._fields import JudgeFields
from autobench.judge._pairwise_cassette import PairwiseCassettes
from autobench.records import (
    ExperimentRecord,
    Observation,
    ObservationSource,
    PairwiseCase,
    PairwiseLineage,
    PairwiseOrder,
    PairwiseRecord,
    RunRecord,
    combined_outcome,
    load_experiment_record,
    load_run_record,
    pairwise_path,
    pairwise_records,
    run_sha256,
    store_pairwise_record,
)

SHARED_ROOT = "case"
"""Inputs whose path starts here are shown once; the others once per side."""


class PairwiseJudgeError(AutobenchError, ValueError):
    """A pairwise judging that cannot start: the judge is not a ``judge:`` scorer, a
    variant is not in the experiment, or the two variants share no recorded case."""


class PairwiseReply(BaseModel):
    """The structured reply of a pairwise judge."""

    reason: str = Field(description="Why the preference follows from the rubric, briefly.")
    winner: Literal["first", "second", "tie"] = Field(
        description="first, second, or tie when neither is better by the rubric"
    )


@dataclass(frozen=True)
class PairwiseOutcome:
    """What :func:`judge_pairwise` did: ``record`` is the stored record (new, or the one
    already stored for this judge definition and pair when ``kept``)."""

    record: PairwiseRecord
    kept: bool


def pairwise_instructions(judge: JudgeFields) -> str:
    """The judge's instructions: compare two responses by the rubric, answer first, second
    or tie."""
    return "\n\n".join(
        (
            "You are an evaluator. You are shown two responses to the same case, the first "
            "and the second. Decide which one better satisfies the rubric below; the order "
            "they are shown in says nothing about their quality.",
            f"<rubric>\n{judge.rubric_text.strip()}\n</rubric>",
            "Answer `first`, `second`, or `tie` when neither is better by the rubric. Give a "
            "short reason, then the answer.",
        )
    )


def pairwise_prompt(
    shared: Mapping[str, Any], first: Mapping[str, Any], second: Mapping[str, Any]
) -> str:
    """What the judge compares: the shared inputs, then each side's in tags
    ``first_NAME`` and ``second_NAME``."""
    parts = [f"<{name}>\n{_render(value)}\n</{name}>" for name, value in shared.items()]
    for side, values in (("first", first), ("second", second)):
        parts.extend(
            f"<{side}_{name}>\n{_render(value)}\n</{side}_{name}>" for name, value in values.items()
        )
    return "\n\n".join(parts)


def _split_inputs(judge: JudgeFields) -> tuple[dict[str, str], dict[str, str]]:
    shared: dict[str, str] = {}
    sided: dict[str, str] = {}
    for name, path in judge.inputs.items():
        target = shared if path.split(".", 1)[0] == SHARED_ROOT else sided
        target[name] = path
    return shared, sided


def _pairs(
    root: Path, experiment: ExperimentRecord, baseline: str, candidate: str
) -> list[tuple[str, str, str]]:
    """``(case, baseline run path, candidate run path)`` for every case both variants
    recorded, in plan order (the first run of a case when it has repeats)."""
    variants = list(dict.fromkeys(item.variant for item in experiment.plan))
    for variant in (baseline, candidate):
        if variant not in variants:
            raise PairwiseJudgeError(
                f"{root}: no variant {variant!r} in the experiment"
                f"{did_you_mean(variant, variants)} (variants: {', '.join(variants)})"
            )
    if baseline == candidate:
        raise PairwiseJudgeError("pairwise judging compares two different variants")
    recorded: dict[tuple[str, str], str] = {}
    for item in experiment.plan:
        if root.joinpath(*PurePosixPath(item.path).parts).is_file():
            recorded.setdefault((item.case, item.variant), item.path)
    cases = list(dict.fromkeys(item.case for item in experiment.plan))
    pairs = [
        (case, recorded[case, baseline], recorded[case, candidate])
        for case in cases
        if (case, baseline) in recorded and (case, candidate) in recorded
    ]
    if not pairs:
        raise PairwiseJudgeError(
            f"{root}: {baseline} and {candidate} have no recorded case in common"
        )
    return pairs


async def judge_pairwise(
    root: Path | str,
    judge: str,
    baseline: str,
    candidate: str,
    *,
    spec: Path | str | None = None,
    plugins: AutobenchPlugins | None = None,
    concurrency: int = 1,
    cassettes: PairwiseCassettes | None = None,
) -> PairwiseOutcome:
    """Judge ``candidate`` against ``baseline`` on every case both recorded in the
    experiment at ``root``, with the ``judge:`` scorer named ``judge`` (of the recorded
    spec, or of the spec file ``spec``), and store the derived record (module docstring).

    When this judge definition already compared this pair, the stored record is returned
    (``kept``) and no call is made. ``cassettes`` records the judge's calls beside the
    record, or replays them (:func:`~autobench.judge._pairwise_cassette.pairwise_cassettes`). At most ``concurrency`` cases are judged at once.
    Raises :class:`PairwiseJudgeError` (not a judge, unknown variant, no common case),
    ``ValueError`` for ``concurrency < 1``, what
    :func:`~autobench.core.rescore.rescore_scorers` raises for an unknown scorer or a bad
    spec, and :class:`~autobench.records.RecordingError` when the record cannot be written.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    root = Path(root)
    experiment = load_experiment_record(root)
    chosen = rescore_scorers(root, experiment, [judge], spec=spec, plugins=plugins)
    scorer = chosen.scorers[0]
    if not isinstance(scorer, JudgeFields):
        raise PairwiseJudgeError(
            f"scorer {judge!r} is of kind {scorer.kind!r}; pairwise judging needs a judge: scorer"
        )
    definition = definition_of(scorer)
    relative = pairwise_path(definition.name, definition.hash, baseline, candidate)
    if root.joinpath(*PurePosixPath(relative).parts).is_file():
        stored = [r for r in pairwise_records(root) if r.path == relative]
        if stored:
            return PairwiseOutcome(stored[0], kept=True)
    pairs = _pairs(root, experiment, baseline, candidate)
    gate = asyncio.Semaphore(concurrency)

    async def one(case: str, baseline_path: str, candidate_path: str) -> PairwiseCase:
        async with gate:
            return await _judge_case(root, scorer, case, baseline_path, candidate_path, cassettes)

    cases = await asyncio.gather(*(one(*pair) for pair in pairs))
    record = PairwiseRecord(
        lineage=PairwiseLineage(
            experiment=experiment.experiment_id,
            baseline=baseline,
            candidate=candidate,
            judge=definition,
            spec=chosen.spec,
            spec_sha256=chosen.spec_sha256,
            judged_at=datetime.now(UTC),
        ),
        cases=tuple(cases),
    )
    if cassettes is not None:
        cassettes.store(root, relative)
    return PairwiseOutcome(store_pairwise_record(root, record), kept=False)


async def _judge_case(
    root: Path,
    judge: JudgeFields,
    case: str,
    baseline_path: str,
    candidate_path: str,
    cassettes: PairwiseCassettes | None = None,
) -> PairwiseCase:
    runs = [
        load_run_record(root.joinpath(*PurePosixPath(path).parts), root=root)
        for path in (baseline_path, candidate_path)
    ]
    base, cand = runs
    shared_paths, sided_paths = _split_inputs(judge)
    calls = [recorded_call(run) for run in runs]
    orders: list[PairwiseOrder] = []
    observations: list[Observation] = []
    evidence_call = ScoringCall(case=base.case, variant=cand.variant, output=None)
    name = cassette_name(judge).replace(".cassette", ".pairwise.cassette")
    cassette = None if cassettes is None else cassettes.open(name)
    for first, second in ((0, 1), (1, 0)):
        try:
            shared = {name: calls[0].resolve(path) for name, path in shared_paths.items()}
            sides = [
                {name: calls[index].resolve(path) for name, path in sided_paths.items()}
                for index in (first, second)
            ]
        except Exception as exc:  # a path the record cannot give: this order's error
            orders.append(_order(runs, first, second, error=f"{type(exc).__name__}: {exc}"))
            continue
        reply, error = await _ask(judge, pairwise_prompt(shared, *sides), evidence_call, cassette)
        if reply is None:
            orders.append(_order(runs, first, second, error=error))
        else:
            orders.append(_order(runs, first, second, winner=reply.winner, reason=reply.reason))
    if cassette is not None:
        from autobench.core.runtime._cassette import keep_scorer_cassette

        tags = {**JUDGE_SCOPE_TAG, "scorer": judge.name, "pairwise": "true"}
        evidence_call.evidence.observations.extend(keep_scorer_cassette(cassette, name, tags)[1])
    for number, item in enumerate(evidence_call.evidence.observations):
        observations.append(
            Observation.model_validate(
                {
                    "id": f"pairwise_{case}_{number}",
                    "name": item.name,
                    "kind": item.kind,
                    "value": item.value,
                    "unit": item.unit,
                    "semantic": item.semantic_type,
                    "direction": item.direction,
                    "role": item.role,
                    "source": ObservationSource.DERIVED,
                    "reason": item.reason,
                    "tags": dict(item.tags),
                    "case": case,
                }
            )
        )
    return PairwiseCase(
        case=case,
        baseline_run=base.run_id,
        candidate_run=cand.run_id,
        runs_sha256={
            base.run_id: run_sha256(root, baseline_path),
            cand.run_id: run_sha256(root, candidate_path),
        },
        orders=tuple(orders),
        outcome=combined_outcome(tuple(orders), cand.variant_id),
        observations=tuple(observations),
    )


def _order(
    runs: Sequence[RunRecord],
    first: int,
    second: int,
    *,
    winner: Literal["first", "second", "tie"] | None = None,
    reason: str | None = None,
    error: str | None = None,
) -> PairwiseOrder:
    return PairwiseOrder(
        first=runs[first].variant_id,
        second=runs[second].variant_id,
        winner=winner,
        reason=reason,
        error=error,
    )


async def _ask(
    judge: JudgeFields, prompt: str, call: ScoringCall, cassette: RunCassette | None = None
) -> tuple[PairwiseReply | None, str | None]:
    """One question (with the judge's retries): the reply, or why there is none. The
    judge's trace, usage and cost go into ``call.evidence``."""
    pydantic_ai = _pydantic_ai()
    agent = pydantic_ai.Agent(
        build_model(judge),
        output_type=PairwiseReply,
        instructions=pairwise_instructions(judge),
        retries=0,
        name=f"judge.{judge.name}.pairwise",
    )
    tags = {**JUDGE_SCOPE_TAG, "scorer": judge.name, "pairwise": "true"}
    collector = TraceCollector()
    with bind_collector(collector), bind_cassette(cassette):
        with start_span(
            f"judge.{judge.name}.pairwise", kind=JUDGE_SPAN_KIND, input=prompt, tags=tags
        ) as root:
            attempts = await attempt_until_reply(agent, prompt, judge, cassette)
            root.set_usage(_usage(attempts.responses))
            if attempts.failed is None:
                root.set_output(attempts.reply.model_dump(mode="json"))
    _keep_evidence(judge, call, collector, attempts.responses, tags, attempts.queued)
    if attempts.failed is None:
        return attempts.reply, None
    return None, _why_no_reply(judge, attempts.failed, attempts.messages, cassette)


def _why_no_reply(
    judge: JudgeFields, failed: Exception, messages: list[Any], cassette: RunCassette | None
) -> str:
    """Why the last attempt of a pairwise question gave no reply, in words."""
    if cassette is not None and cassette.misses:
        return (
            f"judge '{judge.name}': its cassette has no reply to this call: {cassette.misses[-1]}"
        )
    if isinstance(failed, _pydantic_ai().UnexpectedModelBehavior) and _responses(messages):
        return (
            f"judge '{judge.name}' gave a reply that is not first, second or tie "
            f"with a reason; reply: {_reply_text(messages)}"
        )
    what = "timed out" if isinstance(failed, TimeoutError) else "raised"
    return f"judge '{judge.name}' call {what}: {type(failed).__name__}: {failed}"
