"""Pairing keys: which baseline run a candidate run is compared with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from autobench.records import ObservationKind, RunRecord


class RunMatchKey(BaseModel):
    """One part of the key pairing a candidate run with a baseline run.

    ``{kind: case_id}`` matches on the case id; ``{kind: factor, name}`` on the
    value of factor ``name``: the variant's factor, else the first factor
    observation of the run (``ctx.factor_observation``) named ``name`` or of
    semantic type ``name``. Raises ``ValueError`` when a factor key has no
    name or a case key has one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["case_id", "factor"]
    name: str | None = None

    @model_validator(mode="after")
    def _name_for_factors(self) -> RunMatchKey:
        if self.kind == "factor" and not self.name:
            raise ValueError("a factor match key needs a 'name'")
        if self.kind == "case_id" and self.name is not None:
            raise ValueError("a case_id match key takes no 'name'")
        return self

    def describe(self) -> str:
        return "case id" if self.kind == "case_id" else f"factor {self.name!r}"


_ABSENT = object()


def _factor(run: RunRecord, name: str) -> Any:
    for factor in run.variant.factors:
        if factor.name == name:
            return factor.value
    for observation in run.observations:
        if observation.kind == ObservationKind.FACTOR and name in (
            observation.name,
            observation.semantic_type,
        ):
            return observation.value
    return _ABSENT


def match_key(run: RunRecord, keys: Sequence[RunMatchKey]) -> tuple[str, ...] | None:
    """The pairing key of ``run`` (each part as ``repr`` text, so any YAML value works),
    or ``None`` when the run lacks one of the factors."""
    parts: list[str] = []
    for key in keys:
        if key.kind == "case_id":
            parts.append(repr(run.case_id))
            continue
        assert key.name is not None
        value = _factor(run, key.name)
        if value is _ABSENT:
            return None
        parts.append(repr(value))
    return tuple(parts)


def describe_key(run: RunRecord, keys: Sequence[RunMatchKey]) -> str:
    """``case id 'easy', factor 'workload.size' = 'small'`` for diagnostics."""
    parts: list[str] = []
    for key in keys:
        if key.kind == "case_id":
            parts.append(f"case id {run.case_id!r}")
        else:
            assert key.name is not None
            value = _factor(run, key.name)
            shown = "(absent)" if value is _ABSENT else repr(value)
            parts.append(f"factor {key.name!r} = {shown}")
    return ", ".join(parts)
