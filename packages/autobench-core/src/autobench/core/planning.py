"""Planning: expand a spec's cases x variants into an ordered list of runs with stable ids.

Order is case-major: every variant of the first case, then every variant of the
second, following the order cases and variants are declared in; with ``repeat: K``
each case x variant appears K times in a row (repeats 1..K). A run id is
``run_<index>_<case>_<variant>`` where index is the zero-padded plan position
and case/variant are lowercase slugs (at most 24 characters each), so an id is
readable, path-safe, unique within the plan, and stable for a given plan
position, case and variant; repeat ``r >= 2`` adds the suffix ``_r<r>`` (the first
repeat keeps the id a plan without repeats gives).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from autobench.core.spec import BenchmarkSpec
from autobench.records import Case, Variant, run_record_path

__all__ = ["BenchmarkPlan", "MatrixRunSpec", "build_benchmark_plan", "expand_matrix"]

_SLUG = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=4096)  # a plan repeats each case and variant id many times
def _slug(text: str) -> str:
    return _SLUG.sub("_", text.lower()).strip("_")[:24].rstrip("_") or "x"


@dataclass(frozen=True, slots=True)
class MatrixRunSpec:
    """One planned run: its plan position, stable id, case, variant, record path and which
    repeat of its case x variant it is (1-based)."""

    index: int
    run_id: str
    case: Case
    variant: Variant
    path: str
    repeat: int = 1

    @property
    def case_id(self) -> str:
        return self.case.id

    @property
    def variant_id(self) -> str:
        return self.variant.id


def run_id_for(index: int, case_id: str, variant_id: str, width: int = 4, repeat: int = 1) -> str:
    """The stable run id for a plan position, case, variant and repeat (``_r<repeat>``
    from the second repeat on)."""
    suffix = "" if repeat == 1 else f"_r{repeat}"
    return f"run_{index:0{width}d}_{_slug(case_id)}_{_slug(variant_id)}{suffix}"


def expand_matrix(
    cases: Sequence[Case], variants: Sequence[Variant], repeat: int = 1
) -> tuple[MatrixRunSpec, ...]:
    """Every (case, variant) pair in case-major declaration order, each ``repeat`` times in
    a row, as :class:`MatrixRunSpec`. Raises ``ValueError`` for ``repeat < 1``."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    width = max(4, len(str(len(cases) * len(variants) * repeat)))
    runs: list[MatrixRunSpec] = []
    for case in cases:
        for variant in variants:
            for number in range(1, repeat + 1):
                index = len(runs)
                runs.append(
                    MatrixRunSpec(
                        index=index,
                        run_id=run_id_for(index, case.id, variant.id, width, number),
                        case=case,
                        variant=variant,
                        path=run_record_path(case.id, variant.id, number),
                        repeat=number,
                    )
                )
    return tuple(runs)


@dataclass(frozen=True)
class BenchmarkPlan:
    """The validated, counted matrix of a spec. ``warnings`` are human-readable notes
    (for example "no task: the plan can be validated but not run")."""

    spec: BenchmarkSpec
    runs: tuple[MatrixRunSpec, ...]
    warnings: tuple[str, ...] = ()

    @property
    def case_count(self) -> int:
        return len(self.spec.dataset.cases)

    @property
    def variant_count(self) -> int:
        return len(self.spec.variants)

    @property
    def run_count(self) -> int:
        return len(self.runs)


def build_benchmark_plan(spec: BenchmarkSpec) -> BenchmarkPlan:
    """Expand ``spec`` into its plan and collect warnings about what would not run."""
    warnings: list[str] = []
    if not spec.dataset.cases:
        warnings.append("the dataset has no cases: nothing would run")
    if not spec.variants:
        warnings.append("the benchmark has no variants: nothing would run")
    if spec.task is None and spec.dataset.cases and spec.variants:
        warnings.append(
            "no task is set (run.python or task.target): the plan can be validated but not run"
        )
    return BenchmarkPlan(
        spec=spec,
        runs=expand_matrix(spec.dataset.cases, spec.variants, spec.repeat),
        warnings=tuple(warnings),
    )


def canonical_json(value: Any) -> str:
    """Canonical JSON text (sorted keys, no whitespace) used for content hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


def spec_hash(spec: BenchmarkSpec) -> str:
    """sha256 hex digest of the canonical JSON of the spec (independent of file location)."""
    return hashlib.sha256(canonical_json(spec.model_dump(mode="json")).encode()).hexdigest()


def dataset_hash(cases: Sequence[Case]) -> str:
    """sha256 hex digest of the canonical JSON of the cases (content only, not their file paths)."""
    return hashlib.sha256(
        canonical_json([case.model_dump(mode="json") for case in cases]).encode()
    ).hexdigest()


def new_experiment_id(benchmark_id: str, now: datetime | None = None) -> str:
    """A fresh experiment id: ``exp_<benchmark slug>_<UTC YYYYmmddTHHMMSS>Z_<4 random hex>``.

    The random suffix keeps two experiments started in the same second apart.
    """
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"exp_{_SLUG.sub('_', benchmark_id.lower()).strip('_')[:40] or 'benchmark'}_{stamp}_{os.urandom(2).hex()}"
