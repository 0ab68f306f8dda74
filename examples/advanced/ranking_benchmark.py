"""The benchmark task: compute one ranking distance, check it, and time it repeatedly.

The answer is computed once (inside a span) and returned for the correctness
constraint; the same computation is then timed with ``measure_callable`` under the
case's measurement budget and recorded with ``ctx.record_measurement``: the median
is the ``time.latency`` objective, the other statistics and the samples artifact
explain it. Speedups against the ``pairwise`` baseline are derived after the runs
(``post_derive: paired_baseline``), from the records alone.
"""

from __future__ import annotations

from ranking.distance import ALGORITHMS, candidate_positions

from autobench import Case, MeasurementBudget, RunContext, SpanKind, measure_callable

NOISE_WARNING_PCT = 50.0
"""Range noise (percent of the median) above which the run notes a noisy measurement."""


def distance_case(ctx: RunContext, case: Case) -> dict[str, object]:
    algorithm = ALGORITHMS[ctx.factor("algorithm")]
    size, shape, seed = case.input["size"], case.input["shape"], case.input["seed"]
    positions = candidate_positions(size, shape, seed)
    ctx.metric("ranking_size", size, semantic_type="workload.size", unit="documents")

    with ctx.span("compute_distance", kind=SpanKind.TOOL, input={"size": size, "shape": shape}):
        distance = algorithm(positions)

    settings = case.input["measurement"]
    measurement = measure_callable(
        lambda: algorithm(positions),
        budget=MeasurementBudget(
            warmup=settings["warmup"],
            repetitions=settings["repetitions"],
            max_seconds=settings["max_seconds"],
            min_repetitions=settings["min_repetitions"],
        ),
    )
    ctx.record_measurement(
        "distance_runtime", measurement, unit="ms", include_samples_artifact=True
    )
    if measurement.is_noisy(NOISE_WARNING_PCT):
        ctx.event("noisy_measurement", round(measurement.range_noise_pct or 0.0, 1))

    return {
        "distance": distance,
        "median_ms": measurement.median_ms,
        "repetitions": measurement.repetition_count,
        "timed_out": measurement.timed_out,
    }
