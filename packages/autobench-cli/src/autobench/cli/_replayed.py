"""Replaying a record directory for one command, whose process then only reads the runs.

A command process (``autobench report``, ``compare``, ``export``, ...) reads a record once
and keeps every run until it exits. In the ``autobench`` console script,
:func:`replayed` pauses automatic garbage collection while the record loads and then
*freezes* the loaded objects (``gc.freeze``): the cyclic collector no longer traverses
them. Without that, the first collection after loading 10,000 runs, and the one at
interpreter exit, walk every object the replay built (over a second each here, for
nothing: records hold no reference cycles, and reference counting frees them anyway).

Freezing is a process-wide choice (frozen objects are invisible to ``gc.get_referrers``
and never collected as cycles), so it is only made when the console script owns the
process (:data:`autobench.cli._app.OWNS_PROCESS`); a program that runs the commands
itself gets a plain replay.

A command that reads evidence only first asks its plugins for the experiment from a derived
store (the ``autobench_indexed_result`` hook: autobench-index's columnar index, when installed
and fresh), which gives what the replay would; the YAML records are replayed otherwise.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import click

from autobench.cli import _app
from autobench.cli._plugins import command_plugins
from autobench.records import ExperimentResult, replay_experiment


def replayed(
    record_dir: Path,
    *,
    evidence_only: bool = False,
    meanwhile: Callable[[], object] | None = None,
) -> ExperimentResult:
    """:func:`~autobench.records.replay_experiment` of ``record_dir`` (``meanwhile`` as
    there: called while worker processes read the run files); in the console script, its
    objects are then frozen out of the collector's sight (see the module docstring).
    With ``evidence_only``, the plugins' ``autobench_indexed_result`` answers first (see the
    module docstring). Raises what the replay raises."""
    if not _app.OWNS_PROCESS:
        return _read(record_dir, evidence_only, meanwhile)
    enabled = gc.isenabled()
    gc.disable()
    try:
        result = _read(record_dir, evidence_only, meanwhile)
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    return result


DERIVED_STORE = "index"
"""Where a record directory keeps derived stores; only a directory that has one is offered to
the ``autobench_indexed_result`` hook, so a plain replay never loads the plugins."""


def _read(
    record_dir: Path, evidence_only: bool, meanwhile: Callable[[], object] | None
) -> ExperimentResult:
    if evidence_only and (record_dir / DERIVED_STORE).is_dir():
        if _app.OWNS_PROCESS:
            arrow_pool()
        indexed = command_plugins().manager.hook.autobench_indexed_result(record_dir=record_dir)
        if indexed is not None:
            if meanwhile is not None:
                meanwhile()
            return cast(ExperimentResult, indexed)
    result = replay_experiment(record_dir, evidence_only=evidence_only, meanwhile=meanwhile)
    unindexed = evidence_only and not (record_dir / DERIVED_STORE).exists()
    if unindexed and len(result.runs) >= HINT_RUNS and _index_installed():
        click.echo(
            f"hint: {record_dir} has no columnar index; `autobench index {record_dir}` "
            "builds one, and reports then read it instead of every run file.",
            err=True,
        )
    return result


def arrow_pool() -> None:
    """Have Arrow allocate with jemalloc: a command reading a large index (tables read,
    sorted and dropped while the runs load) peaks lower than with Arrow's default
    allocator, mimalloc: at a million runs 713 MB against 803 MB for `autobench report`
    here, and 720 MB against 803 MB for reading the index alone (the system allocator:
    810 MB; docs/performance.md, "The closing report of a million runs"). Before pyarrow
    is imported this sets ``ARROW_DEFAULT_MEMORY_POOL`` (read when pyarrow first
    allocates); after, as in ``autobench run``'s closing report (pyarrow imported while
    the index worker completes), it sets the default pool, unless that variable names a
    pool already. Linux only, where pyarrow's wheels have jemalloc; only for the console
    script, which owns the process, once no child that uses Arrow is still to start (the
    stamp child of the index's freshness check does not use it)."""
    if not sys.platform.startswith("linux"):
        return
    if "pyarrow" not in sys.modules:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
        return
    if "ARROW_DEFAULT_MEMORY_POOL" in os.environ:
        return
    pyarrow: Any = sys.modules["pyarrow"]  # imported by autobench-index, never from here
    try:
        pyarrow.set_memory_pool(pyarrow.jemalloc_memory_pool())
    except NotImplementedError:  # a build without jemalloc: Arrow's default stays
        return


HINT_RUNS = 1000
"""Runs from which a record read without an index gets a hint naming ``autobench index``
(below, reading the YAML takes well under a second)."""


def _index_installed() -> bool:
    return importlib.util.find_spec("autobench.index") is not None
