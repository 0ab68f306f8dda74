"""The freshness check's stamp reader: which sources differ from what the ``files`` table
stores of them, by the child process (which compares the stamps itself) and in this
process, against the rule written out plainly, over generated tables and files."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.index import _sources
from autobench.index._sources import SCHEMA, Stamp, StampReader, stamp_of

NAMES = ["f0", "f1", "sub/f2", "sub/f3", "d", "gone", "sub/gone"]
"""Regular files, a directory ("d") and two paths where nothing is."""

# How a row stores its source: as absent, with the file's own stamp, with one of its four
# numbers off by one, with one of them null, or with ``present`` null.
ways = st.sampled_from(["absent", "own", "size", "mtime", "ctime", "inode", "null", "unknown"])
rows = st.lists(st.tuples(st.sampled_from([*NAMES, None]), ways), max_size=12)


def _row(root: Path, path: str | None, way: str) -> dict[str, Any]:
    stamp: Stamp = (stamp_of(root / path) if path is not None else None) or (
        1,
        2,
        3,
        4,
    )  # a file that is none: any stamp
    size, mtime, ctime, inode = stamp
    row: dict[str, Any] = {"path": path, "present": way != "absent", "sha256": None}
    row.update(size=size, mtime_ns=mtime, ctime_ns=ctime, inode=inode)
    if way in ("size", "mtime", "ctime", "inode"):
        key = way if way in ("size", "inode") else f"{way}_ns"
        row[key] += 1
    elif way == "null":
        row["mtime_ns"] = None
    elif way == "unknown":
        row["present"] = None
    if way == "absent":
        row.update(size=None, mtime_ns=None, ctime_ns=None, inode=None)
    return row


def _differs(root: Path, row: dict[str, Any]) -> bool:
    """The rule, plainly: a source differs when it is a regular file now and was not stored
    present with a whole stamp equal to its own, or is none now and was stored present."""
    now = stamp_of(root / row["path"]) if row["path"] else None
    if not row["present"]:
        return now is not None
    stored = (row["size"], row["mtime_ns"], row["ctime_ns"], row["inode"])
    return now is None or None in stored or now != stored


@pytest.mark.parametrize("child", [False, True], ids=["in-process", "stamp-child"])
@settings(max_examples=40, deadline=None)
@given(rows)
def test_the_sources_that_differ_are_the_rules(child: bool, table_rows: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as scratch, pytest.MonkeyPatch.context() as patch:
        patch.setattr(_sources, "CHILD_FROM", 0 if child else 10**9)
        root = Path(scratch)
        (root / "sub").mkdir()
        (root / "d").mkdir()
        for name in ("f0", "f1", "sub/f2", "sub/f3"):
            (root / name).write_bytes(name.encode() * 3)
        stored = [_row(root, path, way) for path, way in table_rows]
        files = root / "files.parquet"
        pq.write_table(pa.Table.from_pylist(stored, schema=SCHEMA), files)
        reader = StampReader(root, pq.ParquetFile(files), ["sub/f3", "f1", "elsewhere"])
        try:
            found = reader._suspects()
            assert reader.stored_side == {"sub/f3", "f1"} & {r["path"] for r in stored}
        finally:
            reader.close()
        assert found == [k for k, row in enumerate(stored) if _differs(root, row)]


def test_a_differing_source_is_named_from_the_table_the_reader_was_made_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reader holds no path or stamp while the child works: the path of a source that
    # differs is read again from the table it was made of (kept open), not from one renamed
    # over it meanwhile.
    monkeypatch.setattr(_sources, "CHILD_FROM", 0)
    (tmp_path / "a").write_text("a")
    (tmp_path / "b").write_text("b")
    files = tmp_path / "files.parquet"
    pq.write_table(pa.Table.from_pylist([_row(tmp_path, "a", "size")], schema=SCHEMA), files)
    reader = StampReader(tmp_path, pq.ParquetFile(files))
    other = tmp_path / "other.parquet"
    pq.write_table(pa.Table.from_pylist([_row(tmp_path, "b", "size")], schema=SCHEMA), other)
    os.replace(other, files)
    try:
        assert reader.first_change(dict) == ("a changed", set())
    finally:
        reader.close()
