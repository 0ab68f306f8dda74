"""Policy models: one semantic metric and exactly one requirement it must meet.

A policy reads the run's projected value of ``metric`` (see
:mod:`autobench.core.policies._evaluate`) and checks one requirement:

=====================  ==================================  ============================
field                  holds when the value ...            value of the field
=====================  ==================================  ============================
``must_equal``         equals the field                    any YAML value
``must_not_equal``     differs from the field              any YAML value
``must_greater``       is a number ``>`` the field         a number
``must_greater_equal`` is a number ``>=`` the field        a number
``must_less``          is a number ``<`` the field         a number
``must_less_equal``    is a number ``<=`` the field        a number
``must_in``            is one of the listed values         a list
``must_not_in``        is none of the listed values        a list
``must_between``       is a number within the bounds       ``{min, max, inclusive}`` or
                                                           ``[min, max]`` (inclusive)
=====================  ==================================  ============================

Equality never confuses booleans with numbers (``true`` is not ``1``).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import (
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    model_validator,
)

from autobench.records import SemanticType

Number = StrictInt | Annotated[StrictFloat, AllowInfNan(False)]
"""A bound: an integer or a finite float; booleans, strings and NaN are refused."""

REQUIREMENTS: tuple[str, ...] = (
    "must_equal",
    "must_not_equal",
    "must_greater",
    "must_greater_equal",
    "must_less",
    "must_less_equal",
    "must_in",
    "must_not_in",
    "must_between",
)
"""The requirement fields of :class:`PolicySpec`; a policy sets exactly one."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BetweenBounds(_Frozen):
    """The bounds of ``must_between``: ``min <= value <= max`` when ``inclusive`` (the
    default), ``min < value < max`` otherwise. Also accepts ``[min, max]``. Raises
    ``ValueError`` when ``min > max``."""

    min: Number
    max: Number
    inclusive: bool = True

    @model_validator(mode="before")
    @classmethod
    def _pair(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            if len(value) != 2:
                raise ValueError(f"must_between as a list needs [min, max], got {len(value)} items")
            return {"min": value[0], "max": value[1]}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> BetweenBounds:
        if self.min > self.max:
            raise ValueError(f"must_between min {self.min} is greater than max {self.max}")
        return self

    def holds(self, value: float) -> bool:
        if self.inclusive:
            return self.min <= value <= self.max
        return self.min < value < self.max

    def describe(self) -> str:
        closed = "inclusive" if self.inclusive else "exclusive"
        return f"between {self.min} and {self.max} ({closed})"


class PolicySpec(_Frozen):
    """A release gate: ``metric`` (a semantic type) must meet one requirement.

    ``unit`` is the unit the requirement's numbers are written in; the
    metric's value is converted to it from the unit it was recorded in (or
    from the semantic type's canonical unit when it has none). Without
    ``unit`` the value is compared as recorded. Requirement fields are
    described in :mod:`autobench.core.policies._models`; exactly one is set
    (``None`` counts as not set), else ``ValueError``.

    >>> PolicySpec(name="quality", metric="quality.score", must_greater_equal=0.8)
    """

    name: str = Field(min_length=1)
    metric: SemanticType = Field(min_length=1)
    unit: str | None = None
    description: str | None = None
    must_equal: Any = None
    must_not_equal: Any = None
    must_greater: Number | None = None
    must_greater_equal: Number | None = None
    must_less: Number | None = None
    must_less_equal: Number | None = None
    must_in: tuple[Any, ...] | None = None
    must_not_in: tuple[Any, ...] | None = None
    must_between: BetweenBounds | None = None

    @model_validator(mode="after")
    def _exactly_one_requirement(self) -> PolicySpec:
        declared = [name for name in REQUIREMENTS if getattr(self, name) is not None]
        if len(declared) != 1:
            found = ", ".join(declared) if declared else "none"
            raise ValueError(
                f"policy {self.name!r} must declare exactly one requirement "
                f"(one of: {', '.join(REQUIREMENTS)}); found {found}"
            )
        return self

    @property
    def requirement(self) -> tuple[str, Any]:
        """``(field name, expected value)`` of the one declared requirement."""
        for name in REQUIREMENTS:
            value = getattr(self, name)
            if value is not None:
                return name, value
        raise AssertionError("validated policies declare a requirement")  # pragma: no cover

    def expectation(self) -> str:
        """The requirement as text: ``>= 0.9``, ``one of ['a', 'b']``, ``between 0 and 1 (inclusive)``."""
        kind, expected = self.requirement
        unit = f" {self.unit}" if self.unit and kind in _ORDERINGS else ""
        if kind == "must_between":
            text: str = expected.describe()
            return text + (f" {self.unit}" if self.unit else "")
        if kind in ("must_in", "must_not_in"):
            prefix = "one of" if kind == "must_in" else "none of"
            return f"{prefix} {list(expected)!r}"
        return f"{_SYMBOLS[kind]} {expected!r}{unit}"

    def holds(self, value: Any) -> bool | None:
        """Whether ``value`` meets the requirement; ``None`` when an ordering or
        ``must_between`` requirement gets a value that is not a finite-or-infinite
        number (booleans, strings, NaN)."""
        kind, expected = self.requirement
        if kind == "must_equal":
            return _same(value, expected)
        if kind == "must_not_equal":
            return not _same(value, expected)
        if kind == "must_in":
            return any(_same(value, item) for item in expected)
        if kind == "must_not_in":
            return not any(_same(value, item) for item in expected)
        if not is_number(value) or (isinstance(value, float) and math.isnan(value)):
            return None
        if kind == "must_between":
            held: bool = expected.holds(value)
            return held
        return bool(_ORDERINGS[kind](value, expected))


def is_number(value: Any) -> bool:
    """A real number that is not a boolean."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(value: Any, expected: Any) -> bool:
    if isinstance(value, bool) != isinstance(expected, bool):
        return False
    return bool(value == expected)


_ORDERINGS = {
    "must_greater": lambda value, bound: value > bound,
    "must_greater_equal": lambda value, bound: value >= bound,
    "must_less": lambda value, bound: value < bound,
    "must_less_equal": lambda value, bound: value <= bound,
}
_SYMBOLS = {
    "must_equal": "==",
    "must_not_equal": "!=",
    "must_greater": ">",
    "must_greater_equal": ">=",
    "must_less": "<",
    "must_less_equal": "<=",
}
