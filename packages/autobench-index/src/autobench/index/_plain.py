"""Each run's plain metric values (:data:`~autobench.records.PlainRun`) from the
``observations`` and ``scores`` tables, computed column-wise by the rules of
:func:`~autobench.records.plain_run` (which gives the same from a run record).

A row is a metric value of its run when it has a semantic type (and, for an observation, is a
metric; for a score, has no error). Rows with the same fields (semantic type, name, value
columns, unit, role, direction, source) share one :class:`~autobench.records.PlainItem`,
built once per distinct row of a batch (the rows are numbered by Arrow's dictionary
encoding); a row is then a number in an Arrow array, and the items are put in run order in
numpy at the end: no Python per row, only per distinct row. A run has no plain items
(``None``: a projection reads its whole record) when one of its observation rows is a
diagnostic, a cassette count or tagged ``accounting`` or ``cassette`` (any tags text naming
either word: a cautious test), is of another kind with a semantic type, or when one of its
value rows does not give back its value exactly.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.index._arrow import (
    FALSE,
    TRUE,
    MatchSubstringOptions,
    SetLookupOptions,
    as_int64,
    call,
    int64_array,
    int64_scalar,
    string_array,
    string_scalar,
)
from autobench.records import (
    Direction,
    ObservationRole,
    ObservationSource,
    PlainFields,
    PlainItem,
    PlainRuns,
    plain_items,
)

_VALUES = ["value_num", "value_bool", "value_text", "value_json"]
_KEYS = {
    "observations": ["semantic_type", "name", *_VALUES, "unit", "role", "direction", "source"],
    "scores": ["semantic_type", "name", *_VALUES, "unit", "role", "direction"],
}
_FIELDS = {  # a row's fields but its value (PlainFields; a score's source is "score")
    table: [key for key in keys if key not in _VALUES] for table, keys in _KEYS.items()
}
_OTHER = {"observations": ["kind", "tags_json"], "scores": ["error"]}
_CASSETTES = string_array(["cassette.replayed", "cassette.sent"])
_CAUTIOUS_TAGS = "accounting|cassette"
_BATCH_ROWS = 65536
_SCORE = ObservationSource.SCORE.value


@dataclass(frozen=True, slots=True)
class StoredRuns:
    """The runs the rows of the other tables are matched to: ``ids`` the run ids in plan
    order (one Arrow string array), ``groups`` the number of runs of each row group of the
    runs table, ``rank`` each run's position in plan order by its row in the runs table (an
    int64 numpy array, as long as ``ids``)."""

    ids: pa.Array
    groups: Sequence[int]
    rank: Any


def plain_runs(partition: Path, runs: StoredRuns) -> PlainRuns:
    """The plain items of each run of ``runs`` (in plan order), from the tables of the
    index partition directory ``partition``. Raises ``KeyError`` for a row of a run not in
    ``runs``, ``OSError`` or pyarrow's errors for a damaged table.

    Each row is a number (its distinct item's) in an Arrow array beside its run position;
    the items are put in run order and kept flat at the end (:class:`PlainRuns`: each run's
    items a span of them, the ends found in numpy): no list or tuple per run, no Python
    per row."""
    rows = _Rows()
    for table in ("observations", "scores"):
        path = partition / f"{table}.parquet"
        with pq.ParquetFile(path, read_dictionary=["run_id"]) as file:
            sizes = [file.metadata.row_group(k).num_rows for k in range(file.num_row_groups)]
            positions = _run_positions(file.read(columns=["run_id"]).column(0), sizes, runs)
            if positions.null_count:
                raise KeyError(f"a row of the {table} table is of no run of the runs table")
            names = [*_OTHER[table], *_KEYS[table]]
            start = 0
            for batch in file.iter_batches(batch_size=_BATCH_ROWS, columns=names):
                at = positions.slice(start, batch.num_rows)
                start += batch.num_rows
                _gather(table, batch, at, rows)
    return rows.by_run(len(runs.ids))


def _run_positions(where: pa.ChunkedArray, sizes: list[int], runs: StoredRuns) -> pa.Array:
    """Each row's run position in plan order (int64; null for a run id not in ``runs``),
    from the ``run_id`` column read dictionary-encoded (``sizes``: its row groups' rows):
    each distinct id of a chunk is looked up once, not once per row, and no row holds its
    id's text (at a million runs the 3,000,000 rows' ids as strings were most of Arrow's
    448 MB while the rows were read).

    The index worker writes the rows of a group of runs in the same row group of every
    table: a chunk's ids are then looked up among the ids of the runs table's row group of
    the same number, a hash of 2,048 ids, not of every run (one lookup among a million ids
    was 0.8 s per table at a million runs). Any other layout (an id not found there, other
    row groups: ``autobench index`` writes whole tables) is matched against every run."""
    import numpy as np  # not at import: the index worker keeps numpy out

    chunks = where.chunks
    if not chunks:
        return int64_array([])
    if not pa.types.is_dictionary(where.type):  # a reader that did not encode it
        chunks = [call("dictionary_encode", chunk) for chunk in chunks]
    found = _in_groups(np, chunks, sizes, runs) if len(runs.groups) == len(chunks) else None
    if found is not None:
        return found
    # every chunk's ids, concatenated, looked up at once
    known = as_int64(
        call(
            "index_in",
            pa.concat_arrays([chunk.dictionary for chunk in chunks]),
            options=SetLookupOptions(runs.ids),
        )
    )
    parts, start = [], 0
    for chunk in chunks:
        parts.append(call("take", known.slice(start, len(chunk.dictionary)), chunk.indices))
        start += len(chunk.dictionary)
    return parts[0] if len(parts) == 1 else pa.concat_arrays(parts)


def _in_groups(
    np: Any, chunks: list[pa.Array], sizes: list[int], runs: StoredRuns
) -> pa.Array | None:
    """Each row's run position (int64) when every chunk of ``chunks`` is a row group of
    its table (``sizes``) whose ids are all among those of the runs table's row group of
    the same number; else ``None``."""
    if [len(chunk) for chunk in chunks] != sizes:
        return None
    parts, start = [], 0
    for chunk, runs_in_group in zip(chunks, runs.groups, strict=True):
        group = runs.rank[start : start + runs_in_group]  # the group's runs, by position
        start += runs_in_group
        ids = call("take", runs.ids, _int64_array(group))
        found = call("index_in", chunk.dictionary, options=SetLookupOptions(ids))
        rows = call("take", found, chunk.indices)
        if rows.null_count:
            return None
        parts.append(group[_numbers(np, as_int64(rows))])
    return _int64_array(np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))


def _int64_array(values: Any) -> pa.Array:
    """A numpy int64 array as an Arrow one (over the same buffer)."""
    values = values if values.flags.c_contiguous else values.copy()
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


class _Rows:
    """The rows read so far, as numbers: the k-th row (the batches' arrays concatenated)
    belongs to the run at ``positions[k]`` and has the item ``items[codes[k]]``; ``items``:
    one per distinct row of each batch, batch after batch (``None`` for a row whose value
    the columns do not give back: no row keeps such a code); ``whole``: the runs read
    whole; ``texts``: one string per distinct semantic type, name and unit."""

    def __init__(self) -> None:
        self.positions: list[pa.Array] = []
        self.codes: list[pa.Array] = []
        self.items: list[PlainItem | None] = []
        self.whole: set[int] = set()
        self.texts: dict[str, str] = {}

    def by_run(self, count: int) -> PlainRuns:
        """Each of ``count`` runs' items: its observations' in stored order, then its
        scores' (``None`` for a run read whole), held flat (:class:`PlainRuns`)."""
        import numpy as np  # not at import: the index worker keeps numpy out

        ends = array("q", bytes(8 * count))
        flat: list[PlainItem] = []
        rows = sum(len(at) for at in self.positions)
        if rows:
            positions = _numbers(np, pa.concat_arrays(self.positions))
            codes = _numbers(np, pa.concat_arrays(self.codes))
            self.positions, self.codes = [], []
            if len(positions) > 1 and not bool((positions[1:] >= positions[:-1]).all()):
                order = np.argsort(positions, kind="stable")  # each run's rows in order
                positions, codes = positions[order], codes[order]
                del order
            # The items in run order: numpy's take over the distinct ones (a reference a
            # row, no Python int per row).
            distinct = np.empty(len(self.items), dtype=object)
            distinct[:] = self.items
            self.items = []
            flat = distinct[codes].tolist()
            del distinct, codes
            # Run i's items end after every row of a run up to i: no Python per run.
            found = np.searchsorted(positions, np.arange(count), side="right")
            ends = array("q", found.astype(np.int64).tobytes())
            del positions, found
        return PlainRuns(flat, ends, frozenset(self.whole))


def _numbers(np: Any, values: pa.Array) -> Any:
    """The int64 array ``values`` (no nulls) as a numpy array over its buffer (not
    ``Array.to_numpy``, which imports pandas when it is installed)."""
    return np.frombuffer(
        values.buffers()[1], dtype=np.int64, count=len(values), offset=8 * values.offset
    )


def _gather(table: str, rows: pa.RecordBatch, positions: pa.Array, found: _Rows) -> None:
    """Add the items of ``rows`` (a batch of ``table``; ``positions``: each row's run) to
    ``found``, and to its ``whole`` the positions of the runs that need their whole
    record."""
    whole = found.whole
    valued = call("is_valid", rows.column("semantic_type"))
    if table == "observations":
        kind = rows.column("kind")
        checks = [
            call("equal", kind, string_scalar("diagnostic")),
            call("is_in", rows.column("name"), options=SetLookupOptions(_CASSETTES)),
            call(
                "match_substring_regex",
                rows.column("tags_json"),
                options=MatchSubstringOptions(_CAUTIOUS_TAGS),
            ),
            call("and", valued, call("not_equal", kind, string_scalar("metric"))),
        ]
        not_plain = checks[0]
        for check in checks[1:]:
            not_plain = call(
                "or", call("coalesce", not_plain, TRUE), call("coalesce", check, FALSE)
            )
        not_plain = call("coalesce", not_plain, TRUE)
        whole.update(call("filter", positions, not_plain).to_pylist())
        keep = call("and", valued, call("invert", not_plain))
    else:
        keep = call("and", valued, call("is_null", rows.column("error")))
    keys = _KEYS[table]
    kept = call("filter", rows.select(keys), keep)
    if kept.num_rows == 0:
        return
    at = call("filter", positions, keep)
    codes = _group_codes(kept, keys)
    items = _items(table, call("take", kept, _first_rows(codes)), found.texts)
    unknown = [code for code, item in enumerate(items) if item is None]
    if unknown:  # rows whose value the columns do not give back: their runs are read whole
        odd = call("is_in", codes, options=SetLookupOptions(int64_array(unknown)))
        whole.update(call("filter", at, odd).to_pylist())
        usual = call("invert", odd)
        at, codes = call("filter", at, usual), call("filter", codes, usual)
    found.positions.append(at)
    found.codes.append(call("add", codes, int64_scalar(len(found.items))))
    found.items.extend(items)


def _items(table: str, rows: pa.RecordBatch, texts: dict[str, str]) -> list[PlainItem | None]:
    """The item of each of ``rows`` (distinct rows of ``table``), ``None`` for a row whose
    value the columns do not give back. The fields but the value are few distinct ones
    (numbered like the rows, :func:`_group_codes`), each made once; the values are made
    per row, and the items through :func:`~autobench.records.plain_items`."""
    described = _FIELDS[table]
    kinds = _group_codes(rows, described)
    first = call("take", rows.select(described), _first_rows(kinds))
    fields = [
        _fields(table, values, texts)
        for values in zip(*(first.column(key).to_pylist() for key in described), strict=True)
    ]
    values = list(map(_value, *(rows.column(key).to_pylist() for key in _VALUES)))
    items = cast(list[PlainItem | None], plain_items(fields, kinds.to_pylist(), values))
    for row, value in enumerate(values):
        if value is _UNKNOWN:
            items[row] = None
    return items


def _fields(table: str, values: tuple[Any, ...], texts: dict[str, str]) -> PlainFields:
    """The :data:`~autobench.records.PlainFields` of a row's ``(semantic_type, name, unit,
    role, direction[, source])`` texts (one string per distinct text in ``texts``). Raises
    ``KeyError`` for a role, direction or source that is none of the enums' values (a
    damaged table), as the enum's ``ValueError`` would."""
    semantic, name, unit, role, direction, *source = values
    return (
        texts.setdefault(semantic, semantic),
        texts.setdefault(name, name),
        unit if unit is None else texts.setdefault(unit, unit),
        None if role is None else _ROLES[role],
        None if direction is None else _DIRECTIONS[direction],
        _SOURCES[source[0] if table == "observations" else _SCORE],
    )


def _group_codes(rows: pa.RecordBatch, keys: list[str]) -> pa.Array:
    """For each row, the number of its group (rows equal in every column of ``keys``, a null
    equal only to a null), numbered in order of first appearance, as an int64 array. Each
    column is dictionary-encoded and folded into the key of the columns before it, which is
    encoded again before it could overflow (no Acero, whose import costs a sixth of a
    second); a column of nulls only splits no group and is left out."""
    key = pa.repeat(_ZERO, rows.num_rows)
    span = 1  # the key's values are below it
    for name in keys:
        column = rows.column(name)
        if column.null_count == len(column):
            continue
        encoded = call("dictionary_encode", column)
        index = call("add", call("coalesce", as_int64(encoded.indices), _MINUS_ONE), _ONE)
        width = len(encoded.dictionary) + 1
        if span * width >= _FOLD_LIMIT:
            key = as_int64(call("dictionary_encode", key).indices)
            span = len(key) + 1
        key = call("add", call("multiply", key, int64_scalar(width)), index)
        span *= width
    return as_int64(call("dictionary_encode", key).indices)


_FOLD_LIMIT = 1 << 62
"""A key that could reach it is renumbered before the next column is folded in."""


def _first_rows(codes: pa.Array) -> pa.Array:
    """The first row of each group of ``codes`` (numbered in order of first appearance),
    in group order: a stable sort by code, then the first row of each run of equal codes."""
    order = call("sort_indices", codes)
    ordered = call("take", codes, order)
    if len(ordered) < 2:
        return order
    starts = call("not_equal", ordered.slice(1), ordered.slice(0, len(ordered) - 1))
    return call("filter", order, pa.concat_arrays([_TRUE_ONLY, starts]))


_TRUE_ONLY = pa.Array.from_buffers(pa.bool_(), 1, [None, pa.py_buffer(bytes([1]))])


_ZERO, _ONE, _MINUS_ONE = int64_scalar(0), int64_scalar(1), int64_scalar(-1)


# The enums by value: a lookup, not an enum call, per distinct fields (KeyError for an unknown
# value, as the enum's ValueError, marks a damaged table).
_ROLES = {member.value: member for member in ObservationRole}
_DIRECTIONS = {member.value: member for member in Direction}
_SOURCES = {member.value: member for member in ObservationSource}


_UNKNOWN: Any = object()
"""A value the typed columns do not give back exactly."""


def _value(num: float | None, flag: bool | None, text: str | None, js: str | None) -> Any:
    """The value the typed columns give back exactly: a boolean, a text, a number (an
    integer or a float, as its JSON text says: a float's always has a ``.`` or an exponent;
    NaN and infinities, written as text, from the float column), ``None``; :data:`_UNKNOWN`
    for anything else (a list, a mapping, a value stored by its ``repr``)."""
    if flag is not None:
        return flag
    if text is not None:
        return text
    if num is not None:
        if js is None:
            return _UNKNOWN
        if not math.isfinite(num):
            return num
        try:
            return float(js) if "." in js or "e" in js else int(js)
        except ValueError:
            return _UNKNOWN
    return None if js == "null" else _UNKNOWN
