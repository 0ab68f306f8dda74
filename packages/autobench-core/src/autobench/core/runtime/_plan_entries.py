"""The experiment record's plan of a built plan, kept as columns (issue 38, point 1).

``experiment.yaml`` lists every planned run (id, case, variant, record path, the sha256 of
its case's input). A :class:`PlanEntries` gives those entries from the plan's
:class:`~autobench.core.planning.PlannedRuns` (ids and paths follow from a run's position)
and one 32-byte input digest per case, so the record of a million-run experiment keeps no
``PlannedRun`` per run. :func:`dataset_digests` reads the cases once for the dataset hash
and those digests together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from autobench.core.planning import PlannedRuns, canonical_json, run_id_for, spec_hash
from autobench.core.spec import BenchmarkSpec
from autobench.records import Case, PlanSequence, case_input_hash, run_record_path

__all__ = ["PlanEntries", "dataset_digests", "spec_digests"]


def spec_digests(spec: BenchmarkSpec) -> tuple[str, str, bytes]:
    """``(spec hash, dataset hash, input digests)``: :func:`~autobench.core.planning.spec_hash`
    of ``spec`` and :func:`dataset_digests` of its cases, each case built and dumped once for
    both (the spec's hash walks the same cases' canonical JSON)."""
    digest = hashlib.sha256(b"[")
    inputs = bytearray()

    def each_case(case: Case, text: str) -> None:
        nonlocal inputs
        if inputs:
            digest.update(b",")
        digest.update(text.encode())
        inputs += bytes.fromhex(case_input_hash(case.input))

    whole = spec_hash(spec, each_case=each_case)
    if len(inputs) != 32 * len(spec.dataset.cases):  # hashed whole: no case was walked
        return (whole, *dataset_digests(spec.dataset.cases))
    digest.update(b"]")
    return whole, digest.hexdigest(), bytes(inputs)


def dataset_digests(cases: Sequence[Case]) -> tuple[str, bytes]:
    """``(dataset hash, input digests)``: :func:`~autobench.core.planning.dataset_hash` of
    ``cases`` and the concatenated 32-byte sha256 of each case's input as a record stores
    it (``case_input_hash``), each case built once."""
    digest = hashlib.sha256(b"[")
    inputs = bytearray()
    for index, case in enumerate(cases):
        if index:
            digest.update(b",")
        digest.update(canonical_json(case.model_dump(mode="json")).encode())
        inputs += bytes.fromhex(case_input_hash(case.input))
    digest.update(b"]")
    return digest.hexdigest(), bytes(inputs)


class PlanEntries(PlanSequence):
    """The planned runs of ``runs`` (a whole plan), each case's input hash taken from
    ``inputs`` (32 bytes a case, in case order). Entries are built when asked for."""

    __slots__ = ("_inputs", "_runs")

    def __init__(self, runs: PlannedRuns, inputs: bytes) -> None:
        self._runs = runs
        self._inputs = inputs

    def __len__(self) -> int:
        return len(self._runs)

    def entries(self, start: int, stop: int) -> list[dict[str, Any]]:
        runs, inputs = self._runs, self._inputs
        width = runs.width
        listed: list[dict[str, Any]] = []
        for position in range(start, stop):
            case_index, case_id, variant_id, repeat = runs.names(position)
            listed.append(
                {
                    "id": run_id_for(position, case_id, variant_id, width, repeat),
                    "case": case_id,
                    "variant": variant_id,
                    "path": run_record_path(case_id, variant_id, repeat),
                    "input": inputs[32 * case_index : 32 * case_index + 32].hex(),
                }
            )
        return listed

    def path_of(self, run_id: str) -> str | None:
        position = self.position_of(run_id)
        return None if position is None else self._runs.path(position)

    def place_of(self, run_id: str) -> tuple[int, str] | None:
        position = self.position_of(run_id)
        return None if position is None else (position, self._runs.path(position))

    def position_of(self, run_id: str) -> int | None:
        """The position a run id names (``run_<position>_...``), when the plan's run there
        has that id."""
        number = run_id[4:].split("_", 1)[0]
        if not run_id.startswith("run_") or not number.isdigit():
            return None
        position = int(number)
        if position >= len(self._runs) or self._runs.run_id(position) != run_id:
            return None
        return position

    def __reduce__(self) -> tuple[Any, ...]:
        return (PlanEntries, (self._runs, self._inputs))
