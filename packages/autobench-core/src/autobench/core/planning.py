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
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, overload

from autobench.core.spec import BenchmarkSpec, CaseList, DatasetSpec
from autobench.records import Case, Variant, run_record_path

__all__ = ["BenchmarkPlan", "MatrixRunSpec", "build_benchmark_plan", "expand_matrix"]
# PlannedRuns is importable from here (a plan's ``runs``) without being a public name.

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
    return tuple(PlannedRuns(cases, variants, repeat))


class PlannedRuns(Sequence[MatrixRunSpec]):
    """The runs of a plan (:func:`expand_matrix`'s order and ids), each built when asked
    for: a run is its position, from which its case, variant and repeat follow, so the
    plan of a million runs keeps no object per run. With ``positions`` (plan positions in
    increasing order) it is that part of the plan (a resumed session's missing runs).

    Reads as the tuple of its runs (``len``, indexing, slices as tuples, iteration, ``==``
    with any sequence of runs). ``case_id``, ``variant_id``, ``run_id`` and ``path`` of a
    position are there without building its case. Raises ``ValueError`` for ``repeat < 1``.
    """

    __slots__ = ("_cases", "_ids", "_positions", "_repeat", "_variants", "_width")

    def __init__(
        self,
        cases: Sequence[Case],
        variants: Sequence[Variant],
        repeat: int = 1,
        positions: Sequence[int] | None = None,
    ) -> None:
        if repeat < 1:
            raise ValueError(f"repeat must be at least 1, not {repeat}")
        self._cases = cases
        self._ids = cases if isinstance(cases, CaseList) else None
        self._variants = tuple(variants)
        self._repeat = repeat
        self._width = max(4, len(str(len(cases) * len(self._variants) * repeat)))
        self._positions = None if positions is None else array("Q", positions)

    @property
    def total(self) -> int:
        """How many runs the whole plan has (``len`` is this part's)."""
        return len(self._cases) * len(self._variants) * self._repeat

    def select(self, positions: Iterable[int]) -> PlannedRuns:
        """The runs at ``positions`` of the whole plan, in plan order."""
        return PlannedRuns(self._cases, self._variants, self._repeat, sorted(positions))

    def position(self, index: int) -> int:
        """The plan position of this sequence's ``index``-th run."""
        return index if self._positions is None else self._positions[index]

    def _parts(self, position: int) -> tuple[int, int, int]:
        """(case index, variant index, repeat) of a plan position."""
        per_case = len(self._variants) * self._repeat
        case, rest = divmod(position, per_case)
        variant, repeat = divmod(rest, self._repeat)
        return case, variant, repeat + 1

    @property
    def width(self) -> int:
        """The digits of a run id's position."""
        return self._width

    @property
    def whole(self) -> bool:
        """Whether this is the whole plan (no ``positions``)."""
        return self._positions is None

    def names(self, position: int) -> tuple[int, str, str, int]:
        """(case index, case id, variant id, repeat) of a plan position, no case built."""
        case, variant, repeat = self._parts(position)
        case_id = self._ids.id_at(case) if self._ids is not None else self._cases[case].id
        return case, case_id, self._variants[variant].id, repeat

    def run_id(self, position: int) -> str:
        """The run id at plan ``position``."""
        _, case_id, variant_id, repeat = self.names(position)
        return run_id_for(position, case_id, variant_id, self._width, repeat)

    def path(self, position: int) -> str:
        """The record path of the run at plan ``position``."""
        _, case_id, variant_id, repeat = self.names(position)
        return run_record_path(case_id, variant_id, repeat)

    def __len__(self) -> int:
        return self.total if self._positions is None else len(self._positions)

    @overload
    def __getitem__(self, index: int) -> MatrixRunSpec: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[MatrixRunSpec, ...]: ...

    def __getitem__(self, index: int | slice) -> MatrixRunSpec | tuple[MatrixRunSpec, ...]:
        if isinstance(index, slice):
            return tuple(self._built(self.position(i)) for i in range(len(self))[index])
        return self._built(self.position(range(len(self))[index]))  # IndexError as a tuple's

    def _built(self, position: int) -> MatrixRunSpec:
        case, variant, repeat = self._parts(position)
        built = self._cases[case]
        chosen = self._variants[variant]
        return MatrixRunSpec(
            index=position,
            run_id=run_id_for(position, built.id, chosen.id, self._width, repeat),
            case=built,
            variant=chosen,
            path=run_record_path(built.id, chosen.id, repeat),
            repeat=repeat,
        )

    def __iter__(self) -> Iterator[MatrixRunSpec]:
        # The executor's loop over the plan: no length or bounds check per run.
        positions = range(self.total) if self._positions is None else self._positions
        for position in positions:
            yield self._built(position)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Sequence[MatrixRunSpec]) -> tuple[MatrixRunSpec, ...]:
        return (*self, *other)

    def __repr__(self) -> str:
        return f"PlannedRuns({len(self)} of {self.total} runs)"

    def __reduce__(self) -> tuple[Any, ...]:
        positions = None if self._positions is None else list(self._positions)
        return (PlannedRuns, (self._cases, self._variants, self._repeat, positions))


@dataclass(frozen=True)
class BenchmarkPlan:
    """The validated, counted matrix of a spec. ``warnings`` are human-readable notes
    (for example "no task: the plan can be validated but not run")."""

    spec: BenchmarkSpec
    runs: Sequence[MatrixRunSpec]
    """The runs in plan order: a :class:`PlannedRuns` for a built plan."""
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
        runs=PlannedRuns(spec.dataset.cases, spec.variants, spec.repeat),
        warnings=tuple(warnings),
    )


def canonical_json(value: Any) -> str:
    """Canonical JSON text (sorted keys, no whitespace) used for content hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


def spec_hash(spec: BenchmarkSpec, *, each_case: Callable[[Case, str], None] | None = None) -> str:
    """sha256 hex digest of the canonical JSON of the spec (independent of file location).

    The cases of a :class:`~autobench.core.spec.CaseList` are dumped and hashed
    :data:`_HASH_PART` at a time (the digest of the same text): the dump of a large
    dataset's every case at once is several times the list itself. ``each_case(case,
    text)``, when given, is called with each case and its canonical JSON in case order
    (what :func:`dataset_hash` hashes), so that digest costs no second dump; for a spec
    hashed whole it is never called."""
    cases = spec.dataset.cases
    if not isinstance(cases, CaseList) or len(cases) <= _HASH_PART:
        return hashlib.sha256(canonical_json(spec.model_dump(mode="json")).encode()).hexdigest()
    dumped = spec.model_dump(mode="json", exclude={"dataset": {"cases"}})
    dumped["dataset"]["cases"] = _CASES_MARK
    head, tail = canonical_json(dumped).split(f'"cases":{canonical_json(_CASES_MARK)}')
    digest = hashlib.sha256(head.encode())
    digest.update(b'"cases":[')
    for start in range(0, len(cases), _HASH_PART):
        built = cases[start : start + _HASH_PART]
        part = DatasetSpec.model_construct(cases=built)
        texts = [
            canonical_json(case)
            for case in part.model_dump(mode="json", include={"cases"})["cases"]
        ]
        if start:
            digest.update(b",")
        digest.update(",".join(texts).encode())
        if each_case is not None:
            for case, text in zip(built, texts, strict=True):
                each_case(case, text)
    digest.update(b"]")
    digest.update(tail.encode())
    return digest.hexdigest()


_HASH_PART = 1024
_CASES_MARK = "\x00autobench: the cases\x00"


def dataset_hash(cases: Sequence[Case]) -> str:
    """sha256 hex digest of the canonical JSON of the cases (content only, not their file
    paths): the JSON list of the cases, hashed one case at a time (the same digest as of
    the whole text)."""
    digest = hashlib.sha256(b"[")
    for index, case in enumerate(cases):
        if index:
            digest.update(b",")
        digest.update(canonical_json(case.model_dump(mode="json")).encode())
    digest.update(b"]")
    return digest.hexdigest()


def new_experiment_id(benchmark_id: str, now: datetime | None = None) -> str:
    """A fresh experiment id: ``exp_<benchmark slug>_<UTC YYYYmmddTHHMMSS>Z_<4 random hex>``.

    The random suffix keeps two experiments started in the same second apart.
    """
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"exp_{_SLUG.sub('_', benchmark_id.lower()).strip('_')[:40] or 'benchmark'}_{stamp}_{os.urandom(2).hex()}"
