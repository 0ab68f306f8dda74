"""Repeated measurement of a callable: warmup, timed repetitions, a time budget, statistics.

:func:`measure_callable` runs ``fn`` a few times without keeping the result
(warmup), then times it ``repetitions`` times and returns a
:class:`Measurement` holding the samples (seconds) and their statistics. It
knows nothing about GPUs, browsers, databases or models: domain-specific
setup and teardown stay in the task, and a custom ``timer`` measures what the
default wall clock cannot (accelerator events, a server-reported duration).

The statistics are those of report aggregates
(:func:`autobench.records.aggregate`), so a measurement and a report over the
same numbers agree:

* ``median``: :func:`statistics.median` (mean of the two middle samples for an even count);
* ``mean``: :func:`statistics.fmean`;
* ``p95``: linear interpolation between order statistics (Hyndman & Fan type 7,
  numpy's default); with one sample, that sample;
* ``standard deviation``: sample standard deviation (divisor ``n - 1``); ``None``
  with fewer than two samples;
* ``range noise``: ``(max - min) / median * 100`` percent; ``0.0`` when every sample
  is equal, ``None`` when the median is ``0`` and the samples differ.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from autobench.records import aggregate

__all__ = ["Measurement", "MeasurementBudget", "measure_callable"]

Timer = Callable[[Callable[[], object]], float]
"""``timer(fn) -> seconds``: call ``fn`` once and return how long it took, in seconds."""


def perf_counter_timer(fn: Callable[[], object]) -> float:
    """The default timer: ``fn()`` timed with :func:`time.perf_counter_ns`, in seconds."""
    started = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - started) / 1_000_000_000


@dataclass(frozen=True, slots=True)
class MeasurementBudget:
    """How many calls :func:`measure_callable` makes and how much time they may take.

    * ``warmup``: calls made first and not kept as samples (``>= 0``);
    * ``repetitions``: timed calls wanted (``>= 1``);
    * ``max_seconds``: time budget in seconds (``> 0``) or ``None`` for no budget.
      It bounds the sum of the durations the timer reports, warmup calls
      included (so a custom timer's notion of time governs it). It is checked
      before each call: once the sum reaches ``max_seconds`` no new call starts
      (a call already running is never interrupted, so the sum may exceed the
      budget by one call), the remaining warmup is skipped and sampling stops;
    * ``min_repetitions``: timed calls made even when the budget is spent, so a
      measurement always has samples (``1 <= min_repetitions <= repetitions``).

    Raises ``ValueError`` for values outside those ranges.
    """

    warmup: int = 0
    repetitions: int = 10
    max_seconds: float | None = None
    min_repetitions: int = 1

    def __post_init__(self) -> None:
        if self.warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {self.warmup}")
        if self.repetitions < 1:
            raise ValueError(f"repetitions must be >= 1, got {self.repetitions}")
        if not 1 <= self.min_repetitions <= self.repetitions:
            raise ValueError(
                f"min_repetitions must be between 1 and repetitions ({self.repetitions}), "
                f"got {self.min_repetitions}"
            )
        if self.max_seconds is not None and not (
            math.isfinite(self.max_seconds) and self.max_seconds > 0
        ):
            raise ValueError(f"max_seconds must be a finite number > 0, got {self.max_seconds}")


def _stat(fn: str, samples: tuple[float, ...]) -> float | None:
    return aggregate(fn, samples).value


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


@dataclass(frozen=True, slots=True)
class Measurement:
    """The timed samples of a callable and their statistics.

    ``samples_seconds`` holds one duration per timed call, in call order
    (warmup calls excluded; at least one sample). ``warmup_count`` is the
    number of warmup calls actually made, ``elapsed_seconds`` the sum of every
    duration the timer reported (warmup included), ``timed_out`` whether the
    budget's ``max_seconds`` ran out before every planned call was made, and
    ``budget`` the budget the measurement ran under. Statistics are in seconds
    (``*_seconds``) or milliseconds (``*_ms``); see the module docstring for
    their definitions.
    """

    samples_seconds: tuple[float, ...]
    warmup_count: int = 0
    elapsed_seconds: float = 0.0
    timed_out: bool = False
    budget: MeasurementBudget = field(default_factory=MeasurementBudget)

    def __post_init__(self) -> None:
        if not self.samples_seconds:
            raise ValueError("a measurement needs at least one sample")

    @property
    def samples_ms(self) -> tuple[float, ...]:
        """The samples in milliseconds, in call order."""
        return tuple(sample * 1000.0 for sample in self.samples_seconds)

    @property
    def repetition_count(self) -> int:
        """Number of timed calls (samples)."""
        return len(self.samples_seconds)

    @property
    def median_seconds(self) -> float:
        return _stat("median", self.samples_seconds) or 0.0

    @property
    def mean_seconds(self) -> float:
        return _stat("mean", self.samples_seconds) or 0.0

    @property
    def min_seconds(self) -> float:
        return min(self.samples_seconds)

    @property
    def max_seconds(self) -> float:
        return max(self.samples_seconds)

    @property
    def p95_seconds(self) -> float:
        """95th percentile (type 7 linear interpolation) in seconds."""
        return _stat("p95", self.samples_seconds) or 0.0

    @property
    def standard_deviation_seconds(self) -> float | None:
        """Sample standard deviation (divisor ``n - 1``) in seconds; ``None`` below two samples."""
        return _stat("stddev", self.samples_seconds)

    @property
    def median_ms(self) -> float:
        return self.median_seconds * 1000.0

    @property
    def mean_ms(self) -> float:
        return self.mean_seconds * 1000.0

    @property
    def min_ms(self) -> float:
        return self.min_seconds * 1000.0

    @property
    def max_ms(self) -> float:
        return self.max_seconds * 1000.0

    @property
    def p95_ms(self) -> float:
        return self.p95_seconds * 1000.0

    @property
    def standard_deviation_ms(self) -> float | None:
        return _ms(self.standard_deviation_seconds)

    @property
    def range_noise_pct(self) -> float | None:
        """``(max - min) / median * 100``: the spread of the samples relative to their median.

        ``0.0`` when every sample is equal (zeros included); ``None`` when the
        median is ``0`` while the samples differ (the ratio is undefined).
        """
        spread = self.max_seconds - self.min_seconds
        if spread == 0:
            return 0.0
        median = self.median_seconds
        if median == 0:
            return None
        return spread / median * 100.0

    def is_noisy(self, threshold_pct: float) -> bool:
        """Whether :attr:`range_noise_pct` exceeds ``threshold_pct`` (an undefined noise,
        a zero median with differing samples, counts as noisy)."""
        noise = self.range_noise_pct
        return noise is None or noise > threshold_pct


def _resolve_budget(
    budget: MeasurementBudget | None, warmup: int, repetitions: int, max_seconds: float | None
) -> MeasurementBudget:
    if budget is None:
        return MeasurementBudget(warmup=warmup, repetitions=repetitions, max_seconds=max_seconds)
    if (warmup, repetitions, max_seconds) != (0, 10, None):
        raise ValueError(
            "pass either budget= or warmup=/repetitions=/max_seconds=, not both "
            f"(budget={budget!r})"
        )
    return budget


def _timed(timer: Timer, fn: Callable[[], object]) -> float:
    seconds = timer(fn)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise TypeError(f"a timer must return seconds as a number, got {seconds!r}")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"a timer must return finite, non-negative seconds, got {seconds!r}")
    return float(seconds)


def measure_callable(
    fn: Callable[[], object],
    *,
    warmup: int = 0,
    repetitions: int = 10,
    max_seconds: float | None = None,
    budget: MeasurementBudget | None = None,
    timer: Timer | None = None,
) -> Measurement:
    """Call ``fn()`` ``warmup`` times, then time it ``repetitions`` times; return the samples.

    ``warmup``, ``repetitions`` and ``max_seconds`` are shorthands for
    ``budget=MeasurementBudget(...)`` (see it for the time budget and
    ``min_repetitions``); passing ``budget`` together with any of them raises
    ``ValueError``. ``timer(fn) -> seconds`` times one call (default:
    :func:`perf_counter_timer`); a timer returning a negative, non-finite or
    non-numeric value raises. ``fn``'s return value is ignored and its
    exceptions propagate (no measurement is returned).
    """
    plan = _resolve_budget(budget, warmup, repetitions, max_seconds)
    clock = perf_counter_timer if timer is None else timer
    limit = math.inf if plan.max_seconds is None else plan.max_seconds
    spent = 0.0
    warmups = 0
    timed_out = False
    for _ in range(plan.warmup):
        if spent >= limit:
            timed_out = True
            break
        spent += _timed(clock, fn)
        warmups += 1
    samples: list[float] = []
    while len(samples) < plan.repetitions:
        if spent >= limit and len(samples) >= plan.min_repetitions:
            timed_out = True
            break
        sample = _timed(clock, fn)
        spent += sample
        samples.append(sample)
    return Measurement(
        samples_seconds=tuple(samples),
        warmup_count=warmups,
        elapsed_seconds=spent,
        timed_out=timed_out,
        budget=plan,
    )
