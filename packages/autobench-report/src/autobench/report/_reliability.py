"""Reliability over repeats: pass@k, pass^k and the flaky cases of each variant.

With ``repeat: K`` every case of a variant runs ``K`` times. A run *passes* when its status
is ``passed`` (a failed, errored or skipped run does not). For a case with ``n`` recorded
runs of which ``c`` passed, and ``k`` (default ``K``, at most ``n``):

* **pass@k**, the chance that at least one of ``k`` repeats passes, by the unbiased
  estimator of Chen et al. (2021), "Evaluating Large Language Models Trained on Code"
  (arXiv:2107.03374), eq. 1: ``1 - C(n - c, k) / C(n, k)``; with ``n == k`` it is 1 when
  any repeat passed, else 0;
* **pass^k**, the chance that all ``k`` repeats pass, by the estimator of Yao et al.
  (2024), "tau-bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"
  (arXiv:2406.12045), section 5: ``C(c, k) / C(n, k)``; with ``n == k`` it is 1 when every
  repeat passed, else 0.

A case with fewer than ``k`` recorded runs has neither (it is listed as *short* and left
out of the variant's means). A case is *flaky* when it passed in some recorded runs and not
in others. Each case also carries the Wilson score interval of its per-run pass rate
``c / n``.

A variant's pass@k and pass^k are the means of its cases' estimates, each with the Wilson
score interval over its ``m`` cases (Wilson 1927, "Probable inference, the law of
succession, and statistical inference", JASA 22:209-212; Brown, Cai & DasGupta 2001
recommend it over the normal approximation for small ``m``) at the report's level, the
share taken as successes out of ``m``: exact for ``n == k`` (every per-case value is 0 or
1), a close approximation otherwise. Cases, not runs, are the sampling unit: repeats of one
case are not independent evidence about the variant.

Pure arithmetic (no scipy), so building it costs nothing beside the report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from autobench.records import ExperimentResult, RunStatus
from autobench.report._aggregates import case_groups
from autobench.report._metrics import MetricTable
from autobench.report._model import (
    DEFAULT_LEVEL,
    CaseReliability,
    Reliability,
    VariantReliability,
)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of ``c`` passes in ``n`` runs (Chen et al. 2021): the chance that a
    draw of ``k`` of the ``n`` runs holds a pass. Raises ``ValueError`` unless
    ``0 <= c <= n`` and ``1 <= k <= n``."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k of ``c`` passes in ``n`` runs (Yao et al. 2024): the chance that a
    draw of ``k`` of the ``n`` runs holds only passes. Raises ``ValueError`` unless
    ``0 <= c <= n`` and ``1 <= k <= n``."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def wilson_interval(
    successes: float, trials: int, level: float = DEFAULT_LEVEL
) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of a proportion ``successes / trials`` at
    confidence ``level`` (Wilson 1927); ``successes`` may be fractional (a sum of per-case
    shares). Raises ``ValueError`` when ``trials < 1`` or ``successes`` is outside
    ``[0, trials]``."""
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need trials >= 1 and 0 <= successes <= trials, got {successes}/{trials}")
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    share = successes / trials
    z2 = z * z / trials
    centre = (share + z2 / 2) / (1 + z2)
    half = z / (1 + z2) * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def repeats_planned(result: ExperimentResult) -> int:
    """``K``: the most runs one case x variant has in the plan (else among the records)."""
    counts: dict[tuple[str, str], int] = {}
    for planned in result.experiment.plan:
        key = (planned.case, planned.variant)
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        for run in result.runs:
            key = (run.case_id, run.variant_id)
            counts[key] = counts.get(key, 0) + 1
    return max(counts.values(), default=1)


def _case(case: str, statuses: Sequence[RunStatus], k: int, level: float) -> CaseReliability:
    n = len(statuses)
    c = sum(1 for status in statuses if status is RunStatus.PASSED)
    low, high = wilson_interval(c, n, level)
    return CaseReliability(
        case=case,
        runs=n,
        passed=c,
        pass_at_k=pass_at_k(n, c, k) if n >= k else None,
        pass_hat_k=pass_hat_k(n, c, k) if n >= k else None,
        pass_rate_low=low,
        pass_rate_high=high,
        flaky=0 < c < n,
    )


def _variant(variant: str, by_case: Sequence[CaseReliability], level: float) -> VariantReliability:
    counted = [item for item in by_case if item.pass_hat_k is not None]
    m = len(counted)
    fields: dict[str, float | None] = {}
    for name in ("pass_at_k", "pass_hat_k"):
        if m:
            total = math.fsum(getattr(item, name) for item in counted)
            low, high = wilson_interval(min(total, m), m, level)
            fields |= {name: total / m, f"{name}_low": low, f"{name}_high": high}
    return VariantReliability(
        variant=variant,
        cases=m,
        flaky=tuple(item.case for item in by_case if item.flaky),
        short=tuple(item.case for item in by_case if item.pass_hat_k is None),
        by_case=tuple(by_case),
        **fields,
    )


def reliability(
    table: MetricTable, *, k: int | None = None, level: float = DEFAULT_LEVEL
) -> Reliability:
    """pass@k, pass^k and the flaky cases of every variant of ``table`` (see the module
    docstring); ``k`` defaults to the planned repeats ``K``. Raises ``ValueError`` when
    ``k < 1``."""
    k = repeats_planned(table.result) if k is None else k
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    variants = []
    for variant in table.variants:
        groups = case_groups(table, table.by_variant[variant])
        by_case = [
            _case(case, [table.statuses[index] for index in runs], k, level)
            for case, runs in groups.items()
        ]
        variants.append(_variant(variant, by_case, level))
    return Reliability(k=k, level=level, variants=tuple(variants))
