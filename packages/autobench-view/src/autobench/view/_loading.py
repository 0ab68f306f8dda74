"""Loading experiments in the background, so no page waits for a replay.

Each experiment directory has one :class:`Loads`: the last good load (:class:`Loaded`), a
``generation`` that grows each time a new load replaces it, and at most one thread that
looks at the record's files and, when they changed, replays it again. A reload parses only
the run files that are new or changed (:class:`~autobench.records.ParsedRuns`) and builds
the report again; until it is done, and when it fails, the previous load is served (a
failure is kept as ``problem`` and shown). A first load reads a fresh columnar index of the
record instead of its run files when one is there (:func:`indexed`), and serves the runs
table (:class:`RunsTable`) as soon as its rows exist, before the report (headline and
leaderboard) is built. Pages read a :class:`Snapshot`, which never waits for anything.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from autobench.abp import AutobenchError, gc_paused, gc_paused_for, settle_long_lived
from autobench.records import (
    ExperimentRecord,
    ExperimentResult,
    ParsedRuns,
    load_experiment_record,
    replay_experiment,
)
from autobench.report import Report, RunMetricRow, build_report, build_run_metric_rows
from autobench.view._runs import RunRow, choices, run_rows

RECHECK_SECONDS = 1.0
"""How long a loaded experiment is served without looking at its files again."""

INLINE_RUNS = 1000
"""A first load with at most this many run files to parse is waited for by the page that
asked (well under a second): a small experiment shows whole at once, a larger one shows
its progress at once and fills in when it is loaded."""

INDEX_PATIENCE = 2.0
"""How long (s) the page that asked waits for the runs table of a first load that reads a
columnar index (about a quarter of a second for 10,000 runs) before it answers with the
load's progress instead."""

LATE_CHANGE_NS = 50_000_000
"""A first load looks at the record's files after it is served (for the live reloads that
follow); a YAML file modified less than this long (ns) before the load began, or after, may
have been missed by it, so the next look reloads. Covers the coarse clock of file times."""


DERIVED_STORE = "index"
"""Where a record directory keeps a derived store (``autobench index``)."""


def indexed(path: Path) -> ExperimentResult | None:
    """The experiment at ``path`` as a fresh derived store gives it (the plugins'
    ``autobench_indexed_result`` hook: autobench-index's columnar index, when installed),
    or ``None``: no store, no plugin answering, or a stale store (never trusted). Only a
    record holding an ``index/`` directory is offered, so a plain record loads no plugins.
    Reads only: a stale index is not rebuilt here (the viewer writes nothing)."""
    if not (path / DERIVED_STORE).is_dir():
        return None
    from autobench.core.plugins import default_plugins

    answer = default_plugins().manager.hook.autobench_indexed_result(record_dir=path)
    return answer if isinstance(answer, ExperimentResult) else None


def prepare(paths: Iterable[Path]) -> None:
    """Load the plugins now (a tenth of a second or more, once per process) when one of the
    experiment directories ``paths`` holds a derived store, rather than in its first load,
    which asks them for it (:func:`indexed`) while a page waits."""
    if any((path / DERIVED_STORE).is_dir() for path in paths):
        from autobench.core.plugins import default_plugins

        default_plugins()


class RunsTable(NamedTuple):
    """The runs table of a load: the replayed result, a row per run (metrics from the
    report's projection) and the values its filters offer; served before the rest of the
    report on a first load."""

    result: ExperimentResult
    rows: list[RunRow]
    choices: dict[str, list[str]]
    from_index: bool = False
    """Whether the result was read from the record's columnar index, not its run files."""


class Loaded(NamedTuple):
    """An experiment as the pages use it: the replayed result, its report
    (``build_report``), the rows of its runs table and the values its filters offer."""

    result: ExperimentResult
    report: Report
    rows: list[RunRow]
    choices: dict[str, list[str]]
    from_index: bool = False
    """Whether the result was read from the record's columnar index, not its run files."""

    @property
    def table(self) -> RunsTable:
        return RunsTable(self.result, self.rows, self.choices, self.from_index)


class LoadProblem(AutobenchError):
    """An experiment that has no load to show: its first load failed (the message says why)."""


@dataclass(frozen=True)
class Snapshot:
    """What an experiment's pages can show now: ``loaded`` (``None`` before the first load
    ends), ``table``, the runs table of ``loaded`` or, while a first load builds its report,
    the runs table it already has (``None`` before that), the ``generation`` (0 before
    either; it grows when the table and again when the whole load is served), whether a load
    is underway and how far it is (``parsed`` of ``pending`` run files; ``stage`` names the
    step), the ids and planned run count once its ``experiment.yaml`` is read, and the
    ``problem`` of the last failed load (cleared by the next good one)."""

    loaded: Loaded | None
    table: RunsTable | None
    generation: int
    loading: bool
    stage: str
    parsed: int
    pending: int
    benchmark: str | None
    experiment: str | None
    planned: int | None
    problem: str | None

    @property
    def problem_line(self) -> str:
        """The page's line about ``problem`` (``""`` when there is none): what is shown
        despite it, and why."""
        if self.problem is None:
            return ""
        if self.loaded is not None:
            shown = "Showing the previous load: the record changed and cannot be read now"
        elif self.table is not None:
            shown = "The runs are shown, but the headline and leaderboard cannot be built"
        else:
            shown = "This record cannot be read"
        return f"{shown}: {self.problem}"

    @property
    def progress(self) -> str:
        """One line saying what the load underway is doing, or ``""`` when none is: for a
        first load ``"loading runs: N of M"``, for a reload of what is shown
        ``"reloading: N of M new or changed runs"``."""
        if not self.loading:
            return ""
        if self.stage in ("look", "runs") and self.table is None:
            total = self.pending or self.planned or 0
            return f"loading runs: {self.parsed:,} of {total:,}"
        if self.stage == "runs" and self.pending:
            return f"reloading: {self.parsed:,} of {self.pending:,} new or changed runs"
        if self.loaded is not None:
            return "" if self.stage in ("look", "") else "reloading"
        if self.table is not None:  # a first load, its runs table served
            return "" if self.stage in ("look", "") else "building the headline and leaderboard"
        return {
            "plan": "reading the experiment",
            "index": "reading the columnar index",
            "rows": "building the runs table",
            "report": "building the report",
        }.get(self.stage, "looking for changes")


def signature(root: Path) -> tuple[int, int]:
    """How many YAML files lie under ``root`` and the newest modification time (ns) among
    them: what changes when a run is recorded, rewritten or removed."""
    count, newest = 0, 0
    for here, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".yaml"):
                try:
                    changed = os.stat(os.path.join(here, name)).st_mtime_ns
                except OSError:  # removed while looking
                    continue
                count += 1
                newest = max(newest, changed)
    return count, newest


def file_stamp(path: Path) -> tuple[int, int] | None:
    """``(size, modification time in ns)`` of the file at ``path``, or ``None``."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


class Loads:
    """The loads of the experiment directory ``path`` (see the module docstring). Thread
    safe: pages call :meth:`snapshot`, :meth:`look` and :meth:`wait` from any thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._changed = threading.Condition()
        self._loaded: Loaded | None = None
        self._table: RunsTable | None = None
        self._generation = 0
        self._problem: str | None = None
        self._error: AutobenchError | None = None
        self._record: ExperimentRecord | None = None
        self._record_stamp: tuple[int, int] | None = None
        self._signature: tuple[int, int] | None = None
        self._looked_at = -float("inf")  # monotonic time the last look started
        self._looks = 0  # looks finished
        self._thread: threading.Thread | None = None
        self._again = False
        self._stage = ""
        self._parsed = ParsedRuns()
        self._indexing = False  # a first load from the columnar index is underway

    @property
    def parsed_by_last_load(self) -> int:
        """How many run files the last (or current) load parsed; the others were kept from
        the load before."""
        return self._parsed.last_parsed

    def snapshot(self) -> Snapshot:
        with self._changed:
            record = self._record
            # A look at the files of what is shown, which finds them unchanged most of the
            # time, is not a load: the page does not say "loading" (nor poll faster) for it.
            shown = self._loaded is not None or self._table is not None
            loading = self._thread is not None and not (shown and self._stage in ("look", ""))
            return Snapshot(
                loaded=self._loaded,
                table=self._table,
                generation=self._generation,
                loading=loading,
                stage=self._stage,
                parsed=self._parsed.last_parsed if loading else 0,
                pending=self._parsed.pending if loading else 0,
                benchmark=None if record is None else record.benchmark_id,
                experiment=None if record is None else record.experiment_id,
                planned=None if record is None else len(record.plan),
                problem=self._problem,
            )

    def look(self, *, force: bool = False) -> int:
        """Start looking at the record's files (and reloading when they changed) unless a
        look is underway or the last began less than :data:`RECHECK_SECONDS` ago (``force``:
        however recent). Returns the number of looks a caller waiting for this one must see
        finished."""
        with self._changed:
            now = time.monotonic()
            if self._thread is not None:
                if force or now - self._looked_at >= RECHECK_SECONDS:
                    self._again = True  # files may have changed since that look began
                    return self._looks + 2
                return self._looks + 1
            if not force and now - self._looked_at < RECHECK_SECONDS:
                return self._looks
            self._looked_at = now
            self._thread = threading.Thread(
                target=self._run, name=f"autobench-view-load {self.path.name}", daemon=True
            )
            self._thread.start()
            return self._looks + 1

    def wait(self, looks: int = 0, *, inline_runs: int | None = None) -> Snapshot:
        """Block until ``looks`` looks have finished and there is a load or a problem; with
        ``inline_runs``, stop waiting as soon as a first load turns out to plan more runs
        than that (the page then shows its progress, or the runs table when it has one), or
        once a first load from a columnar index has served its runs table (waited for at
        most :data:`INDEX_PATIENCE` seconds)."""
        deadline = time.monotonic() + INDEX_PATIENCE

        def done() -> bool:
            if self._looks >= looks and (self._loaded is not None or self._problem is not None):
                return True
            if inline_runs is None or self._loaded is not None:
                return False
            if self._indexing:  # quick, and its size is unknown until read
                return time.monotonic() >= deadline
            table, record = self._table, self._record
            plan = table.result.experiment.plan if table is not None else None
            plan = record.plan if plan is None and record is not None else plan
            return plan is not None and len(plan) > inline_runs

        with self._changed:
            while not done():
                left = deadline - time.monotonic()
                self._changed.wait(left if self._indexing and left > 0 else None)
        return self.snapshot()

    def load(self, *, fresh: bool = True) -> Loaded:
        """The current load, looked at again first (``fresh``, at most every
        :data:`RECHECK_SECONDS`) and waited for; raises :class:`LoadProblem` (or the
        record's own :class:`~autobench.abp.AutobenchError`) when there is none."""
        looks = self.look() if fresh or self.snapshot().loaded is None else 0
        snapshot = self.wait(looks)
        if snapshot.loaded is None:
            with self._changed:
                error = self._error
            raise error if error is not None else LoadProblem(snapshot.problem or "not loaded")
        return snapshot.loaded

    def runs_table(self) -> RunsTable:
        """The runs table served now, or (when there is none yet) the whole load's, waited
        for as :meth:`load` does (and raising as it does)."""
        table = self.snapshot().table
        return table if table is not None else self.load(fresh=False).table

    def _set(self, **values: object) -> None:
        with self._changed:
            for name, value in values.items():
                setattr(self, name, value)
            self._changed.notify_all()

    def _run(self) -> None:
        while True:
            try:
                self._reload_if_changed()
            except AutobenchError as exc:
                self._set(_problem=str(exc), _error=exc)
            except Exception as exc:  # a bug or an OS error: shown, not a dead thread
                self._set(_problem=f"{type(exc).__name__}: {exc}", _error=None)
            with self._changed:
                self._stage = ""
                if self._again:
                    self._again = False
                    self._looked_at = time.monotonic()
                    self._looks += 1
                    self._changed.notify_all()
                    continue
                self._thread = None
                self._looks += 1
                self._changed.notify_all()
                return

    def _reload_if_changed(self) -> None:
        if self._signature is None:  # nothing loaded nor looked at yet
            self._first_load()
            return
        self._set(_stage="look")
        seen = signature(self.path)
        if seen == self._signature:
            return  # unchanged since the last load (or the last failed one)
        self._set(_signature=seen)
        self._replay()

    def _first_load(self) -> None:
        """A first load, from a fresh columnar index when there is one (:func:`indexed`),
        else by a replay; the look that later reloads compare with (:func:`signature`, a
        walk over every file) is taken once the load is served, not before. A YAML file
        changed since about when the load began (:data:`LATE_CHANGE_NS`), or fewer files
        than the load read, mean the next look reloads."""
        began = time.time_ns()
        result: ExperimentResult | None = None
        try:
            result = self._load_from_index()
            if result is None:
                result = self._replay()
        finally:
            self._set(_stage="look")
            count, newest = seen = signature(self.path)
            late = newest >= began - LATE_CHANGE_NS
            fewer = result is not None and count < len(result.runs) + 1  # + experiment.yaml
            self._set(_signature=(-1, -1) if late or fewer else seen)

    def _replay(self) -> ExperimentResult:
        """Replay the record's files (only the run files new or changed since the last
        replay are parsed; ``experiment.yaml`` again only when it changed) and serve it."""
        plan = self.path / "experiment.yaml"
        stamp = file_stamp(plan)
        record = self._record
        if record is None or stamp != self._record_stamp:  # not read yet, or rewritten
            self._set(_stage="plan")  # the ids and the plan first: a waiting page answers
            record = load_experiment_record(self.path)
        self._set(_record=record, _record_stamp=stamp, _stage="runs")
        self._parsed.pending = self._parsed.last_parsed = 0
        result = replay_experiment(record, self.path, evidence_only=True, parsed=self._parsed)
        self._publish(result, from_index=False)
        return result

    def _load_from_index(self) -> ExperimentResult | None:
        """A first load from the record's fresh columnar index (:func:`indexed`), which holds
        the plan too, so ``experiment.yaml`` is not parsed first; ``None`` (nothing done)
        when there is no fresh index, or reading it failed: the run files are the record,
        the index only a faster way to read them."""
        if not (self.path / DERIVED_STORE).is_dir():
            return None
        self._set(_stage="index", _indexing=True)
        try:
            stamp = file_stamp(self.path / "experiment.yaml")
            with gc_paused():  # its files table and runs: tens of thousands of objects kept
                try:
                    result = indexed(self.path)
                except Exception:  # a damaged store the plugin did not catch: the files rule
                    result = None
                settle_long_lived()
            if result is None:
                return None
            self._set(_record=result.experiment, _record_stamp=stamp)
            self._publish(result, from_index=True)
            return result
        finally:
            self._set(_indexing=False)

    def _publish(self, result: ExperimentResult, *, from_index: bool) -> None:
        """Serve ``result``: with its report and runs table; on a first load, its runs table
        (metrics from :func:`~autobench.report.build_run_metric_rows`, the report's own
        projection) first, then the report (``build_report``) once built."""
        table: RunsTable | None = None
        if self._loaded is None:
            self._set(_stage="rows")
            with gc_paused_for(len(result.runs)):  # thousands of rows: no collection meanwhile
                table = _table(result, build_run_metric_rows(result), from_index)
                settle_long_lived()
            with self._changed:
                self._table = table
                self._generation += 1
                self._indexing = False  # a page waiting for the table has it
                self._problem = self._error = None
                self._changed.notify_all()
        self._set(_stage="report")
        report = build_report(result)
        with gc_paused_for(len(result.runs)):
            if table is None:
                table = _table(result, report.run_rows, from_index)
            loaded = Loaded(result, report, table.rows, table.choices, from_index)
            settle_long_lived()  # the next young collection does not walk the load
        with self._changed:
            self._loaded = loaded
            self._table = table
            self._generation += 1
            self._problem = self._error = None
            self._changed.notify_all()


def _table(
    result: ExperimentResult, metric_rows: Sequence[RunMetricRow], from_index: bool
) -> RunsTable:
    rows = run_rows(result, metric_rows)
    return RunsTable(result, rows, choices(rows), from_index)
