"""How the terminal shows a set of numbers that belong together (a column, or one metric
across variants): one display unit and one fixed-point notation for all of them.

Times are shown in milliseconds when every value is below one second, else in
seconds; currencies in capitals (``USD``); ratios as percentages when asked.
The number of decimals is chosen so that the smallest non-zero magnitude keeps
three significant digits (whole numbers get none), so ``0.0000319`` and
``0.0025720`` sit in one column instead of ``3.185e-05`` beside ``0.002572``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from autobench.records import conversion_factor, unit_dimension

_SIGNIFICANT = 3
_MAX_DECIMALS = 10


@dataclass(frozen=True, slots=True)
class NumberFormat:
    """Shows a value (in the unit it was computed in) as ``value * factor`` with
    ``decimals`` decimals; ``unit`` is the unit to state in the header."""

    unit: str | None
    factor: float = 1.0
    decimals: int = 0

    def text(self, value: float | int, *, signed: bool = False) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        sign = "+" if signed else ""
        return f"{value * self.factor:{sign}.{self.decimals}f}"


def _numbers(values: Iterable[Any]) -> list[float]:
    return [
        float(value)
        for value in values
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    ]


def _display_unit(unit: str | None, numbers: list[float], scale: bool) -> tuple[str | None, float]:
    if unit is None:
        return None, 1.0
    dimension = unit_dimension(unit)
    if dimension == "money":
        return unit.upper(), 1.0
    if dimension == "time" and scale and numbers:
        seconds = max(abs(number) for number in numbers) * conversion_factor(unit, "s")
        target = "ms" if seconds < 1 else "s"
        return target, conversion_factor(unit, target)
    return unit, 1.0


def decimals_for(numbers: Iterable[float]) -> int:
    """Decimals that keep :data:`_SIGNIFICANT` significant digits of the smallest non-zero
    magnitude; 0 when every number is whole."""
    # 12 significant digits absorb binary noise: 0.025 s is 25.000000000000004 ms
    magnitudes = [abs(float(f"{number:.12g}")) for number in numbers]
    if all(magnitude.is_integer() for magnitude in magnitudes):
        return 0
    smallest = min(magnitude for magnitude in magnitudes if magnitude)
    wanted = _SIGNIFICANT - 1 - math.floor(math.log10(smallest))
    return max(0, min(_MAX_DECIMALS, wanted))


def number_format(
    values: Iterable[Any], unit: str | None, *, scale: bool = True, percent: bool = False
) -> NumberFormat:
    """The format for ``values`` (in ``unit``; non-numbers are ignored). ``scale`` allows a
    time unit to change (``s`` to ``ms``); ``percent`` shows ratios as percentages."""
    numbers = _numbers(values)
    if percent:
        return NumberFormat("%", 100.0, 1)
    shown_unit, factor = _display_unit(unit, numbers, scale)
    return NumberFormat(shown_unit, factor, decimals_for(number * factor for number in numbers))


def percent_text(ratio: float | None) -> str:
    """A relative change as a signed percentage with one decimal (``+12.5%``); ``n/a``
    when there is none."""
    return "n/a" if ratio is None else f"{ratio * 100:+.1f}%"
