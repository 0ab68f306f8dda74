"""measure_callable and Measurement: warmup, repetitions, time budget, statistics.

Every timing comes from a scripted timer (a real timer that calls ``fn`` and
returns the next duration of a fixed sequence), never from the clock.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable

import pytest

import autobench
from autobench.core.measurement import (
    Measurement,
    MeasurementBudget,
    measure_callable,
    perf_counter_timer,
)
from autobench.records import aggregate


class ScriptedTimer:
    """Calls ``fn`` and reports the next scripted duration (seconds)."""

    def __init__(self, durations: Iterable[float]) -> None:
        self._durations = iter(durations)
        self.calls = 0

    def __call__(self, fn: Callable[[], object]) -> float:
        fn()
        self.calls += 1
        return next(self._durations)


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> int:
        self.count += 1
        return self.count


# warmup durations first (1.0 s each, never kept), then samples: 0.25, 0.5, 0.125, 1.0, 0.375 s
SAMPLES = (0.25, 0.5, 0.125, 1.0, 0.375)


def test_every_statistic_from_a_scripted_timer() -> None:
    fn = Counter()
    timer = ScriptedTimer([1.0, 1.0, *SAMPLES])
    m = measure_callable(fn, warmup=2, repetitions=5, timer=timer)

    assert fn.count == 7 and timer.calls == 7
    assert m.warmup_count == 2
    assert m.samples_seconds == SAMPLES  # warmup excluded, call order kept
    assert m.samples_ms == (250.0, 500.0, 125.0, 1000.0, 375.0)
    assert m.repetition_count == 5
    assert m.median_seconds == 0.375 and m.median_ms == 375.0
    assert m.mean_ms == 450.0
    assert m.min_ms == 125.0 and m.max_ms == 1000.0
    # type 7: h = (5 - 1) * 0.95 = 3.8 -> x[3] + 0.8 * (x[4] - x[3]) over sorted ms samples
    assert m.p95_ms == pytest.approx(500.0 + 0.8 * (1000.0 - 500.0))
    assert m.standard_deviation_ms == pytest.approx(statistics.stdev(m.samples_ms))
    assert m.range_noise_pct == pytest.approx((1000.0 - 125.0) / 375.0 * 100.0)
    assert m.is_noisy(200.0) and not m.is_noisy(250.0)
    assert m.elapsed_seconds == 2.0 + sum(SAMPLES)
    assert m.timed_out is False
    assert m.budget == MeasurementBudget(warmup=2, repetitions=5)


def test_statistics_agree_with_report_aggregates() -> None:
    samples = (0.0123, 0.0119, 0.0131, 0.0402, 0.0125, 0.0127, 0.0118)
    m = Measurement(samples_seconds=samples)
    for fn, value in (
        ("median", m.median_seconds),
        ("mean", m.mean_seconds),
        ("min", m.min_seconds),
        ("max", m.max_seconds),
        ("p95", m.p95_seconds),
        ("stddev", m.standard_deviation_seconds),
    ):
        assert value == aggregate(fn, samples).value, fn


def test_one_sample_and_equal_samples() -> None:
    single = Measurement(samples_seconds=(0.5,))
    assert single.p95_ms == single.median_ms == 500.0
    assert single.standard_deviation_ms is None
    assert single.range_noise_pct == 0.0 and not single.is_noisy(0.0)
    zeros = Measurement(samples_seconds=(0.0, 0.0))
    assert zeros.range_noise_pct == 0.0
    undefined = Measurement(samples_seconds=(0.0, 0.0, 0.5))
    assert undefined.range_noise_pct is None and undefined.is_noisy(1000.0)
    with pytest.raises(ValueError, match="at least one sample"):
        Measurement(samples_seconds=())


def test_time_budget_stops_sampling_and_marks_timed_out() -> None:
    fn = Counter()
    timer = ScriptedTimer([0.4] * 10)
    m = measure_callable(fn, repetitions=10, max_seconds=1.0, timer=timer)
    # 0.4, 0.8, 1.2: the third call starts below the budget, then no call starts
    assert m.repetition_count == 3 and fn.count == 3
    assert m.timed_out is True
    assert m.elapsed_seconds == pytest.approx(1.2)


def test_budget_reached_exactly_on_the_last_planned_call_is_not_a_timeout() -> None:
    m = measure_callable(Counter(), repetitions=2, max_seconds=1.0, timer=ScriptedTimer([0.5, 0.5]))
    assert m.repetition_count == 2 and m.timed_out is False


def test_budget_spent_in_warmup_skips_warmup_and_keeps_min_repetitions() -> None:
    fn = Counter()
    budget = MeasurementBudget(warmup=5, repetitions=10, max_seconds=1.0, min_repetitions=2)
    m = measure_callable(fn, budget=budget, timer=ScriptedTimer([0.75, 0.75, 0.1, 0.2, 9.0]))
    assert m.warmup_count == 2  # the third warmup call never starts
    assert m.samples_seconds == (0.1, 0.2)  # min_repetitions run even past the budget
    assert m.timed_out is True and fn.count == 4
    assert m.budget is budget


def test_budget_object_and_shorthands_are_exclusive() -> None:
    with pytest.raises(ValueError, match="either budget"):
        measure_callable(Counter(), budget=MeasurementBudget(), repetitions=3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"warmup": -1}, "warmup"),
        ({"repetitions": 0}, "repetitions"),
        ({"repetitions": 3, "min_repetitions": 4}, "min_repetitions"),
        ({"min_repetitions": 0}, "min_repetitions"),
        ({"max_seconds": 0.0}, "max_seconds"),
        ({"max_seconds": math.inf}, "max_seconds"),
    ],
)
def test_budget_validation(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MeasurementBudget(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-0.1, math.nan, "1"])
def test_bad_timer_values_are_refused(bad: object) -> None:
    with pytest.raises((ValueError, TypeError), match="timer must return"):
        measure_callable(Counter(), repetitions=1, timer=lambda fn: bad)  # type: ignore[arg-type,return-value]


def test_exceptions_of_the_callable_propagate() -> None:
    def boom() -> None:
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError, match="broken"):
        measure_callable(boom, repetitions=2, timer=ScriptedTimer([0.1, 0.1]))


def test_default_timer_calls_the_function_and_returns_seconds() -> None:
    fn = Counter()
    seconds = perf_counter_timer(fn)
    assert fn.count == 1 and seconds >= 0.0
    m = measure_callable(fn, warmup=1, repetitions=3)
    assert fn.count == 5 and m.repetition_count == 3 and m.warmup_count == 1


def test_facade_exports() -> None:
    assert autobench.measure_callable is measure_callable
    assert autobench.Measurement is Measurement
    assert autobench.MeasurementBudget is MeasurementBudget
