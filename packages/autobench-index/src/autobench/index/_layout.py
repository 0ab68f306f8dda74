"""Where the index lives and how it is replaced.

The index of the experiment recorded in ``DIR`` is ``DIR/index/``::

    DIR/index/manifest.json                       what the index was built from
    DIR/index/files.parquet                       every input file: path, stamp, sha256
    DIR/index/experiment.json                     the experiment record, without its plan
    DIR/index/plan.parquet                        the plan: one row per planned run
    DIR/index/benchmark=<b>/experiment=<e>/<table>.parquet

The partition directories are hive-style, so one glob over many record directories
(``*/index/benchmark=*/experiment=*/runs.parquet``) reads many experiments at once with
their ``benchmark`` and ``experiment`` as columns. A new index is written into a
temporary sibling directory and renamed into place; a reader sees the old index whole,
no index, or the new one whole. The index is derived data: deleting it loses nothing.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import uuid
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote

INDEX_DIR = "index"
MANIFEST = "manifest.json"
FILES = "files.parquet"
FORMAT = 2
"""The index format; an index of another format is rebuilt (format 1 kept the plan inside
``experiment.json``)."""
EXPERIMENT_JSON = "experiment.json"
"""The experiment record (the replayed ``experiment.yaml``) as JSON, in the index root, its
``plan`` empty: the plan is :data:`PLAN`."""
PLAN = "plan.parquet"
"""The experiment's plan, in the index root: one row per planned run, in plan order, with
the planned run's fields as string columns (``id``, ``case``, ``variant``, ``path``,
``input``), so a reader of a million planned runs reads columns instead of building a
model per run."""


@functools.cache
def records_version() -> str:
    """The installed autobench-records version: an index built by another is rebuilt (the
    replay rules it applied may differ). Looked up once per process (the code running is
    the version it was when imported; a lookup scans the installed distributions)."""
    return metadata.version("autobench-records")


def index_root(record_dir: Path) -> Path:
    """``record_dir/index``."""
    return Path(record_dir) / INDEX_DIR


def partition(benchmark: str, experiment: str) -> Path:
    """The partition directory of an experiment, relative to the index root (ids are
    percent-encoded where a path could not hold them)."""
    return (
        Path(f"benchmark={quote(benchmark, safe='')}") / f"experiment={quote(experiment, safe='')}"
    )


def read_manifest(record_dir: Path) -> dict[str, Any] | None:
    """The manifest of the index of ``record_dir``; ``None`` when there is none or it is
    not readable JSON (an index without a readable manifest is never trusted)."""
    try:
        data = json.loads((index_root(record_dir) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def staging_dir(record_dir: Path) -> Path:
    """A new, empty directory beside the index to write the next one into."""
    path = Path(record_dir) / f".{INDEX_DIR}.new-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    return path


def replace_index(record_dir: Path, staged: Path) -> None:
    """Put ``staged`` in place of the index of ``record_dir`` (two renames; the old index
    is removed after the new one is in place)."""
    target = index_root(record_dir)
    old = None
    if target.exists():
        old = Path(record_dir) / f".{INDEX_DIR}.old-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        target.rename(old)
    staged.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def remove_leftovers(record_dir: Path) -> list[Path]:
    """Remove the staging directories (``.index.new-<pid>-*``, ``.index.live-<pid>``) that
    processes no longer running left beside the index of ``record_dir`` (killed while
    writing it); return them. Those of a running process are left alone."""
    removed = []
    for path in Path(record_dir).glob(f".{INDEX_DIR}.*-*"):
        kind, _, rest = path.name.removeprefix(f".{INDEX_DIR}.").partition("-")
        pid = rest.split("-", 1)[0]
        if kind not in ("new", "live", "old") or not pid.isdigit() or _running(int(pid)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists (another user's)
        return True
    return True
