"""Calibration: how wide the intervals are for a given number of labels, and what the
bootstrap costs.

Run::

    .venv/bin/python tools/bench_calibration.py

1. **Interval widths** (the table of docs/judges.md, "How many labels are enough"): a judge
   that agrees with people on 80 % of balanced pass/fail items (kappa 0.6), labelled
   20 to 400 times; the 95 % interval of accuracy and Cohen's kappa from
   :func:`autobench.report._agreement.bootstrap_intervals` (2,000 resamples, the default
   seed).
2. **Time**: the whole bootstrap of every statistic of a pass/fail and a five-point scale
   over 100 to 10,000 labelled items (random ratings, 80 % agreement), best of three.
   Budget: 10,000 labels in under a second (a person labels far fewer).

Prints the figures and exits 1 when the time budget is missed.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from autobench.report._agreement import accuracy, bootstrap_intervals, cohen_kappa
from autobench.report._calibration import CALIBRATION_RESAMPLES, CALIBRATION_SEED, _statistics
from autobench.report._model import Scale

BUDGET_SECONDS = 1.0


def widths() -> None:
    print("labels  accuracy 0.80 (95% interval)  kappa 0.60 (95% interval)")
    for n in (20, 50, 100, 200, 400):
        half = n // 2
        missed = (n - round(0.8 * n)) // 2
        people = [0] * half + [1] * half
        judge = [0] * (half - missed) + [1] * missed + [1] * (half - missed) + [0] * missed
        found = bootstrap_intervals(
            people,
            judge,
            2,
            {"accuracy": accuracy, "kappa": cohen_kappa},
            level=0.95,
            resamples=CALIBRATION_RESAMPLES,
            seed=CALIBRATION_SEED,
        )
        a, k = found["accuracy"], found["kappa"]
        print(
            f"{n:6d}  {a.estimate:.2f} [{a.low:.2f}, {a.high:.2f}]"
            f"{'':14}{k.estimate:.2f} [{k.low:.2f}, {k.high:.2f}]"
        )


def timing() -> bool:
    rng = np.random.default_rng(1)
    within = True
    scales: tuple[tuple[int, Scale], ...] = ((2, "pass/fail"), (5, "integer"))
    for categories, scale in scales:
        for n in (100, 1000, 10_000):
            people = rng.integers(0, categories, n)
            judge = np.where(rng.random(n) < 0.8, people, rng.integers(0, categories, n))
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                bootstrap_intervals(
                    people.tolist(),
                    judge.tolist(),
                    categories,
                    _statistics(scale),
                    level=0.95,
                    resamples=CALIBRATION_RESAMPLES,
                    seed=CALIBRATION_SEED,
                )
                best = min(best, time.perf_counter() - start)
            print(f"{scale:9} {n:6d} labels: {best * 1000:7.1f} ms")
            if n == 10_000 and best > BUDGET_SECONDS:
                within = False
    return within


def main() -> int:
    widths()
    print()
    ok = timing()
    print("within budget" if ok else f"over budget ({BUDGET_SECONDS} s for 10,000 labels)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
