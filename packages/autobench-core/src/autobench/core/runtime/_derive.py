"""The per-run derivation stage: after scoring, before policies and the status.

:func:`prepare_derivers` runs once per experiment, before any run starts (a
deriver reads its files there: a pricing file is read once, not per run).
:func:`derive_run` runs on every run, including runs whose task raised (their
recorded usage was still spent): each prepared deriver receives the run's
observations (task observations with the run totals of additive evidence, then
one per score), its spans and their scopes, case, variant and the spec's
registry, and what it returns is recorded as
observations with source ``derived``, linked to the span the value names.
A deriver that raises leaves an :class:`ErrorRecord` with stage ``derive``
and ``source`` its kind; the run's other evidence and its status are kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.abp import Trace
from autobench.core.derive import DerivationCall, PreparedDeriver
from autobench.core.runtime._evidence import EvidenceBuffer, error_record
from autobench.core.spec import BenchmarkSpec
from autobench.records import (
    Case,
    Observation,
    ObservationSource,
    ScoreRecord,
    SemanticRegistry,
    Variant,
    score_observation,
)


def prepare_derivers(spec: BenchmarkSpec) -> tuple[PreparedDeriver, ...]:
    """Prepare every ``derive`` entry of ``spec`` for one experiment, in order.

    Raises what a deriver's ``prepare`` raises (``PricingError``, a
    ``ValueError``, for a missing or invalid pricing file).
    """
    registry = spec.registry
    return tuple(
        deriver.prepare(base_dir=spec.base_dir, registry=registry) for deriver in spec.derive
    )


def derive_run(
    derivers: Sequence[PreparedDeriver],
    evidence: EvidenceBuffer,
    *,
    case: Case,
    variant: Variant,
    observations: Sequence[Observation],
    scores: Sequence[ScoreRecord],
    trace: Trace,
    registry: SemanticRegistry,
) -> tuple[Observation, ...]:
    """Run ``derivers`` on one run and return the observations they added to ``evidence``."""
    if not derivers:
        return ()
    call = DerivationCall(
        case=case,
        variant=variant,
        observations=(
            *observations,
            *(
                score_observation(s, case_id=case.id, variant_id=variant.id)
                for s in scores
                if s.error is None
            ),
        ),
        spans=trace.spans,
        registry=registry,
        scopes=trace.scopes,
    )
    added: list[Observation] = []
    for deriver in derivers:
        try:
            values = deriver.derive(call)
        except Exception as exc:
            kind = getattr(getattr(deriver, "spec", None), "kind", type(deriver).__name__)
            evidence.add_error(error_record(exc, stage="derive", source=str(kind)))
            continue
        for value in values:
            added.append(
                evidence.add_observation(
                    value.name,
                    value.value,
                    kind=value.kind,
                    span_id=value.span_id,
                    semantic_type=value.semantic_type,
                    unit=value.unit,
                    direction=value.direction,
                    role=value.role,
                    reason=value.reason,
                    tags=dict(value.tags),
                    source=ObservationSource.DERIVED,
                )
            )
    return tuple(added)
