"""Parsing many run files on several processes.

Parsing YAML is CPU-bound Python work (the C parser calls back into Python for
every node), so a large replay parses its run files in worker processes and
validates the plain results in the calling process.

Workers are forked: a fork starts in milliseconds with this package already
imported and, unlike ``spawn`` or ``forkserver``, never re-imports the
caller's ``__main__`` (a script without a ``__main__`` guard would run again).
Forking a process that runs other threads is unsafe, so the parallel path is
only taken when the calling process has a single thread, on a platform with
``fork``; otherwise, and whenever the pool fails, files are parsed in this
process. The result is the same either way.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from autobench.records._codec import run_body_from_yaml
from autobench.records._errors import RecordFormatError

PARALLEL_THRESHOLD = 2000
"""Run files from which a replay parses on several processes."""

MAX_WORKERS = 4


def worker_count(files: int) -> int:
    """How many processes to parse ``files`` run files on (1: parse in this process)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    forkable = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if files < PARALLEL_THRESHOLD or cpus < 2 or not forkable:
        return 1
    return min(cpus, MAX_WORKERS)


def parse_run_bodies(
    paths: Sequence[Path],
    skip: frozenset[str],
    workers: int,
    meanwhile: Callable[[], object] | None = None,
) -> list[dict[str, Any] | None]:
    """The parsed body of each run file, in order; ``None`` where parsing failed (the caller
    parses that file again in-process to raise its :class:`RecordFormatError`).

    ``meanwhile`` is called once in this process while the workers parse (first, when the
    files are parsed here)."""
    chunk = max(1, len(paths) // (workers * 4))
    chunks = [
        [str(path) for path in paths[start : start + chunk]]
        for start in range(0, len(paths), chunk)
    ]
    if workers > 1 and threading.active_count() == 1:
        try:
            with ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")
            ) as pool:
                parts = pool.map(_parse_chunk, chunks, [skip] * len(chunks))
                call, meanwhile = meanwhile, None  # once, even if the pool fails after it
                if call is not None:
                    call()
                results = list(parts)
            return [body for part in results for body in part]
        except (BrokenProcessPool, OSError):
            pass  # no usable worker processes here: parse in this process
    if meanwhile is not None:
        meanwhile()
    return [body for part in chunks for body in _parse_chunk(part, skip)]


def _parse_chunk(paths: list[str], skip: frozenset[str]) -> list[dict[str, Any] | None]:
    bodies: list[dict[str, Any] | None] = []
    for path in paths:
        try:
            text = Path(path).read_bytes().decode("utf-8")
            bodies.append(run_body_from_yaml(text, source=path, skip=skip))
        except (OSError, UnicodeDecodeError, RecordFormatError):
            bodies.append(None)
    return bodies
