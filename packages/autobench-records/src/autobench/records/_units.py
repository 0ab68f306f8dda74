"""Units: converting observation values to the canonical unit of their semantic type.

Observations keep the unit they were recorded in. Aggregation and comparison
first bring the values of one semantic type to one unit:

* the semantic type's canonical unit (:meth:`SemanticRegistry.unit_of`) when it
  declares one; a value without a unit is taken to be in that unit already;
* otherwise the unit of the first value (in run order); values in another unit
  cannot be mixed with it and are refused.

Known units and how they convert:

* time (dimension ``time``): ``ns``, ``us`` (also ``µs`` with the micro sign or
  the Greek mu), ``ms``, ``s``, ``min``, ``h``; case-sensitive (``Ms`` is not ``ms``);
* money (dimension ``money``): ISO 4217 currency codes, case-insensitive
  (``USD`` is ``usd``); a currency only converts to itself, there are no
  exchange rates;
* counts (dimension = the unit itself): ``tokens``, ``requests``, ``ratio``,
  ``boolean``, ``operations``, ``events``, ``messages``, ``references``, ``bytes``;
  case-insensitive; each only converts to itself.

Any other unit is unknown: it converts only to a unit spelled the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from autobench.abp import AutobenchError

TIME_FACTORS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "min": 60_000_000_000,
    "h": 3_600_000_000_000,
}
"""Nanoseconds per unit of every time unit (exact integers; the micro-sign spellings map
to ``us``)."""

_MICRO = {"µs": "us", "μs": "us"}  # U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU

CURRENCIES: frozenset[str] = frozenset(
    {
        "usd", "eur", "gbp", "jpy", "cny", "chf", "cad", "aud", "nzd", "inr", "krw", "sek",
        "nok", "dkk", "pln", "czk", "huf", "try", "brl", "mxn", "zar", "sgd", "hkd", "rub",
    }
)  # fmt: skip
"""Currency codes (lowercase) recognised as money; each converts only to itself."""

COUNT_UNITS: frozenset[str] = frozenset(
    {
        "tokens",
        "requests",
        "ratio",
        "boolean",
        "operations",
        "events",
        "messages",
        "references",
        "bytes",
    }
)
"""Dimensionless count-like units (lowercase); each converts only to itself."""


class UnitConversionError(AutobenchError, ValueError):
    """A value cannot be converted between two units (another dimension, another
    currency, or an unknown unit)."""


def _time_key(unit: str) -> str | None:
    unit = unit.strip()
    unit = _MICRO.get(unit, unit)
    return unit if unit in TIME_FACTORS else None


def unit_dimension(unit: str | None) -> str | None:
    """The dimension of ``unit``: ``"time"``, ``"money"``, the count unit itself
    (``"tokens"``), or ``None`` for ``None`` and unknown units."""
    if unit is None:
        return None
    if _time_key(unit) is not None:
        return "time"
    folded = unit.strip().casefold()
    if folded in CURRENCIES:
        return "money"
    if folded in COUNT_UNITS:
        return folded
    return None


def same_unit(first: str, second: str) -> bool:
    """Whether two spellings name the same unit (``USD``/``usd``, ``µs``/``us``)."""
    first_time, second_time = _time_key(first), _time_key(second)
    if first_time is not None or second_time is not None:
        return first_time == second_time
    return first.strip().casefold() == second.strip().casefold()


def _scale(from_unit: str, to_unit: str) -> tuple[int, int]:
    """``(numerator, denominator)`` with ``to = from * numerator / denominator``."""
    if same_unit(from_unit, to_unit):
        return 1, 1
    source, target = _time_key(from_unit), _time_key(to_unit)
    if source is not None and target is not None:
        return TIME_FACTORS[source], TIME_FACTORS[target]
    from_dimension, to_dimension = unit_dimension(from_unit), unit_dimension(to_unit)
    if from_dimension == "money" and to_dimension == "money":
        raise UnitConversionError(
            f"cannot convert {from_unit!r} to {to_unit!r}: different currencies "
            "(Autobench has no exchange rates)"
        )
    if from_dimension is None or to_dimension is None:
        unknown = from_unit if from_dimension is None else to_unit
        raise UnitConversionError(
            f"cannot convert {from_unit!r} to {to_unit!r}: unknown unit {unknown!r}"
        )
    raise UnitConversionError(
        f"cannot convert {from_unit!r} ({from_dimension}) to {to_unit!r} ({to_dimension}): "
        "different dimensions"
    )


def conversion_factor(from_unit: str, to_unit: str) -> float:
    """The factor ``f`` with ``value_in_to_unit = value_in_from_unit * f`` (``1000.0`` for
    ``s`` to ``ms``).

    Raises :class:`UnitConversionError` when the units are of different
    dimensions, different currencies, or unknown and spelled differently.
    """
    numerator, denominator = _scale(from_unit, to_unit)
    return numerator / denominator


def convert_unit(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` (a number in ``from_unit``) expressed in ``to_unit``, as a float.

    ``convert_unit(1500, "ms", "s") == 1.5``. The value is multiplied by the
    exact nanosecond count of ``from_unit`` and then divided by that of
    ``to_unit``, so whole-unit conversions are exact. NaN and infinities pass
    through. Raises :class:`UnitConversionError` (a ``ValueError``) when the
    units do not convert (see :func:`conversion_factor`).
    """
    numerator, denominator = _scale(from_unit, to_unit)
    if numerator == denominator:
        return float(value)
    return float(value) * numerator / denominator


@dataclass(frozen=True, slots=True)
class UnitValue:
    """One value to bring to a common unit: its ``label`` (a run id, for diagnostics),
    the raw ``value`` and the ``unit`` it was recorded in (``None``: no unit given)."""

    label: str
    value: Any
    unit: str | None


@dataclass(frozen=True, slots=True)
class ConvertedValues:
    """The result of :func:`to_common_unit`: ``values[label]`` in ``unit`` for every input
    that converted, and one diagnostic per input that did not (it is absent from
    ``values``)."""

    unit: str | None
    values: dict[str, Any] = field(default_factory=dict)
    diagnostics: tuple[str, ...] = ()


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def to_common_unit(
    items: Iterable[UnitValue], *, semantic_type: str, canonical_unit: str | None
) -> ConvertedValues:
    """Bring the values of one semantic type to one unit.

    The target is ``canonical_unit`` or, when it is ``None``, the unit of the
    first item that has one; without a canonical unit, values in any other unit
    are refused even when they would convert (units are not mixed). Numbers (not booleans) are converted; booleans,
    strings and other values keep their value when their unit is the target
    (or absent). An item with no unit is taken to be in the target unit. An
    item whose unit does not convert is left out, with a diagnostic naming
    the run, the semantic type and both units.
    """
    target = canonical_unit
    values: dict[str, Any] = {}
    diagnostics: list[str] = []
    for item in items:
        if item.unit is None or (target is not None and item.unit == target):
            values[item.label] = item.value
            continue
        if target is None:
            target = item.unit
            values[item.label] = item.value
            continue
        try:
            if canonical_unit is None and not same_unit(item.unit, target):
                raise UnitConversionError(
                    f"{semantic_type} has no canonical unit; the first value's unit "
                    f"{target!r} is used and other units are not mixed in"
                )
            if _is_number(item.value):
                converted = convert_unit(item.value, item.unit, target)
            else:
                conversion_factor(item.unit, target)  # raises when the units do not convert
                converted = item.value
        except UnitConversionError as exc:
            diagnostics.append(
                f"run {item.label}: {semantic_type} in {item.unit!r} cannot be converted to "
                f"{target!r} ({exc}); value left out"
            )
            continue
        values[item.label] = converted
    return ConvertedValues(unit=target, values=values, diagnostics=tuple(diagnostics))
