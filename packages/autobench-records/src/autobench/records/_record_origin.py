"""Where a loaded run record was read from, kept beside the record rather than in it.

:func:`~autobench.records.load_run_record` remembers the experiment directory and the
``run.yaml`` of each record it returns, so that
``replay_extraction(load_run_record(path, root_dir=root), extractor)`` needs no second
``root``. The origin is not a field: two records with the same content compare equal
wherever they came from, and a copy (``model_copy``), being a new object, has none.
Entries go away with their record (a weak reference's callback).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from pathlib import Path

from autobench.records._records import RunRecord


@dataclass(frozen=True, slots=True)
class RecordOrigin:
    """``root``: the experiment directory; ``path``: the run file, inside ``root``."""

    root: Path
    path: Path


_origins: dict[int, tuple[weakref.ref[RunRecord], RecordOrigin]] = {}


def remember_origin(run: RunRecord, *, root: Path, path: Path) -> RunRecord:
    """Note that ``run`` was read from ``path`` in the experiment directory ``root``;
    returns ``run``."""
    key = id(run)

    def forget(ref: weakref.ref[RunRecord]) -> None:
        entry = _origins.get(key)
        if entry is not None and entry[0] is ref:
            del _origins[key]

    _origins[key] = (weakref.ref(run, forget), RecordOrigin(root, path))
    return run


def origin_of(run: RunRecord) -> RecordOrigin | None:
    """Where ``run`` was loaded from, or ``None`` for a record not read by
    ``load_run_record`` (built in memory, copied, or read without its directory)."""
    entry = _origins.get(id(run))
    if entry is None or entry[0]() is not run:
        return None
    return entry[1]
