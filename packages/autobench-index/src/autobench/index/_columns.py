"""The runs of an index as a :class:`~autobench.records.RunTable`: columns read from the
``runs``, ``observations`` and ``scores`` tables, each whole run record validated from its
``record_json`` only when a reader asks for it.

A run's metric values (:class:`~autobench.records.PlainItem`) are read from the
``observations`` and ``scores`` rows when the rows give them back exactly; a run whose rows
hold anything else a report's projection reads (a diagnostic, accounting or cassette tags, an
observation of another kind with a semantic type, a value stored only as JSON text) has no
plain items, and the projection reads its whole record.
"""

from __future__ import annotations

import bisect
import json
import math
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from pydantic import ValidationError

from autobench.abp import AutobenchError, gc_paused, gc_paused_for, settle_long_lived
from autobench.records import (
    Direction,
    ExperimentRecord,
    ObservationRole,
    ObservationSource,
    PlainItem,
    RunRecord,
    RunStatus,
    RunTable,
)

_RUN_COLUMNS = [
    "run_id",
    "case_id",
    "variant_id",
    "status",
    "task_status",
    "evaluation_status",
    "duration_s",
]
_VALUE_COLUMNS = ["value_num", "value_bool", "value_text", "value_json"]
_OBSERVATION_COLUMNS = [
    "run_id",
    "name",
    "kind",
    "semantic_type",
    *_VALUE_COLUMNS,
    "unit",
    "role",
    "direction",
    "source",
    "tags_json",
]
_SCORE_COLUMNS = [
    "run_id",
    "name",
    "semantic_type",
    *_VALUE_COLUMNS,
    "unit",
    "role",
    "direction",
    "error",
]
_SCORE = ObservationSource.SCORE.value
_CASSETTE_COUNTS = frozenset({"cassette.replayed", "cassette.sent"})
_NOT_PLAIN_TAGS = ("accounting", "cassette")
_UNKNOWN = object()
"""A value the typed columns do not give back exactly."""


def run_table(partition: Path, experiment: ExperimentRecord) -> RunTable:
    """The runs of the index partition directory ``partition`` in plan order (a run the plan
    does not name last, in stored order), as a :class:`RunTable`. Raises ``OSError``,
    ``KeyError`` or ``ValueError`` (pyarrow's ``ArrowInvalid`` included) for a damaged
    table; building a run whose stored JSON is not a valid run record raises
    :class:`DamagedIndexError`."""
    runs_path = partition / "runs.parquet"
    # The columns are long-lived: read with the collector paused, then settled in its
    # oldest generation (see autobench.abp.settle_long_lived).
    with gc_paused():
        table = _run_table(runs_path, partition, experiment)
        settle_long_lived()
    return table


def _run_table(runs_path: Path, partition: Path, experiment: ExperimentRecord) -> RunTable:
    with pq.ParquetFile(runs_path) as file:
        table = file.read(columns=_RUN_COLUMNS)
        group_rows = [file.metadata.row_group(i).num_rows for i in range(file.num_row_groups)]
    ids, cases, variants, statuses, tasks, evaluations, durations = (
        table.column(name).to_pylist() for name in _RUN_COLUMNS
    )
    position = {planned.id: index for index, planned in enumerate(experiment.plan)}
    keys = [position.get(run_id, len(position)) for run_id in ids]
    del position
    order = sorted(range(len(ids)), key=keys.__getitem__)
    del keys
    status_of = {status.value: status for status in RunStatus}
    slot = {ids[row]: at for at, row in enumerate(order)}
    plain = _plain(partition, slot, len(order))
    del slot
    # One string object per distinct id and status, the plan's own where it has them.
    canon: dict[str, str] = {}
    for planned in experiment.plan:
        for text in (planned.id, planned.case, planned.variant):
            canon.setdefault(text, text)
    same = canon.setdefault
    return RunTable(
        run_ids=tuple([same(ids[row], ids[row]) for row in order]),
        case_ids=tuple([same(cases[row], cases[row]) for row in order]),
        variant_ids=tuple([same(variants[row], variants[row]) for row in order]),
        statuses=tuple([status_of[statuses[row]] for row in order]),
        task_statuses=tuple([same(tasks[row], tasks[row]) for row in order]),
        evaluation_statuses=tuple([same(evaluations[row], evaluations[row]) for row in order]),
        durations=tuple([durations[row] for row in order]),
        plain=tuple(plain),
        load=_Loader(runs_path, array("q", order), group_rows),
    )


class DamagedIndexError(AutobenchError, ValueError):
    """A run stored in a fresh index does not validate as a run record (the index was
    edited or damaged after it was built); the message names the command that rebuilds
    it."""


class _Loader:
    """Builds the run records at plan positions from their ``record_json`` (the row groups
    that hold them, read as needed; the last one kept for the next call)."""

    def __init__(self, path: Path, order: Sequence[int], group_rows: Sequence[int]) -> None:
        self.path = path
        self.order = order
        self.starts = list(_starts(group_rows))
        self.group: tuple[int, list[str]] | None = None
        self.validate = RunRecord.__pydantic_validator__.validate_json

    def __call__(self, positions: Sequence[int]) -> list[RunRecord]:
        rows = [self.order[position] for position in positions]
        by_group: dict[int, list[int]] = {}
        for row in rows:
            by_group.setdefault(bisect.bisect_right(self.starts, row) - 1, []).append(row)
        texts: dict[int, str] = {}
        for group in sorted(by_group):
            start, column = self._read(group)
            for row in by_group[group]:
                texts[row] = column[row - start]
        try:
            with gc_paused_for(len(rows)):
                return [self.validate(texts[row]) for row in rows]
        except ValidationError as error:
            raise DamagedIndexError(
                f"{self.path}: a stored run is not a valid run record; "
                f"`autobench index {self.path.parents[3]}` rebuilds the index from the YAML "
                f"records ({error.error_count()} validation error(s))"
            ) from error

    def _read(self, group: int) -> tuple[int, list[str]]:
        if self.group is None or self.group[0] != group:
            with pq.ParquetFile(self.path) as file:
                column = file.read_row_group(group, columns=["record_json"]).column(0)
            self.group = (group, column.to_pylist())
        return self.starts[group], self.group[1]


def _starts(group_rows: Sequence[int]) -> Iterator[int]:
    start = 0
    for rows in group_rows:
        yield start
        start += rows


def _plain(partition: Path, slot: dict[str, int], count: int) -> list[tuple[PlainItem, ...] | None]:
    """Each run's plain items (``None``: the run needs its whole record), by plan position."""
    items: list[list[PlainItem] | None] = [[] for _ in range(count)]
    shared: dict[tuple[Any, ...], PlainItem] = {}

    def item(
        semantic: str, name: str, value: Any, unit: Any, role: Any, direction: Any, source: str
    ) -> PlainItem:
        key = (semantic, name, value.__class__, value, unit, role, direction, source)
        found = shared.get(key)
        if found is None:
            found = shared[key] = PlainItem(
                semantic,
                name,
                value,
                unit,
                None if role is None else ObservationRole(role),
                None if direction is None else Direction(direction),
                ObservationSource(source),
            )
        return found

    for observations in _batches(partition / "observations.parquet", _OBSERVATION_COLUMNS):
        for (
            run_id,
            name,
            kind,
            semantic,
            num,
            flag,
            text,
            js,
            unit,
            role,
            direction,
            source,
            tags,
        ) in zip(*observations, strict=True):
            at = slot[run_id]
            found = items[at]
            if found is None:
                continue
            if kind == "diagnostic" or name in _CASSETTE_COUNTS or _tagged(tags):
                items[at] = None
                continue
            if semantic is None:
                continue
            value = _value(num, flag, text, js)
            if kind != "metric" or value is _UNKNOWN:
                items[at] = None
                continue
            found.append(item(semantic, name, value, unit, role, direction, source))
    for scores in _batches(partition / "scores.parquet", _SCORE_COLUMNS):
        for run_id, name, semantic, num, flag, text, js, unit, role, direction, error in zip(
            *scores, strict=True
        ):
            at = slot[run_id]
            found = items[at]
            if found is None or semantic is None or error is not None:
                continue
            value = _value(num, flag, text, js)
            if value is _UNKNOWN:
                items[at] = None
                continue
            found.append(item(semantic, name, value, unit, role, direction, _SCORE))
    return [None if found is None else tuple(found) for found in items]


def _batches(path: Path, names: list[str]) -> Iterator[list[list[Any]]]:
    """The columns ``names`` of the table at ``path`` as Python lists, a batch of rows at a
    time (so only one batch's Python objects are alive at once)."""
    with pq.ParquetFile(path) as file:
        for batch in file.iter_batches(batch_size=_BATCH_ROWS, columns=names):
            yield [batch.column(name).to_pylist() for name in names]


_BATCH_ROWS = 65536


def _tagged(tags: str | None) -> bool:
    """Whether an observation's tags (JSON text) hold accounting or cassette evidence."""
    if tags is None or tags == "{}":
        return False
    if not any(key in tags for key in _NOT_PLAIN_TAGS):
        return False
    parsed = json.loads(tags)
    return not isinstance(parsed, dict) or any(key in parsed for key in _NOT_PLAIN_TAGS)


def _value(num: float | None, flag: bool | None, text: str | None, js: str | None) -> Any:
    """The value the typed columns hold exactly: a boolean, a text, a number (an integer or a
    float, as its JSON text says: a float's always has a ``.`` or an exponent), ``None``;
    :data:`_UNKNOWN` for anything else (a list, a mapping, a value stored by its ``repr``)."""
    if flag is not None:
        return flag
    if text is not None:
        return text
    if num is not None:
        if js is None:
            return _UNKNOWN
        if not math.isfinite(num) or "." in js or "e" in js:
            return num  # a float64 column holds a float exactly
        try:
            return int(js)
        except ValueError:
            return _UNKNOWN
    return None if js == "null" else _UNKNOWN
