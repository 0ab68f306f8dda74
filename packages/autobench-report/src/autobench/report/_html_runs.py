"""The run drill-downs of the HTML report: each run as a compact array (status, scores and
reasons, errors, artifacts, the first spans of its trace), strings interned.

A run keeps at most :data:`MAX_SPANS` spans for its waterfall (the first ones in start
order); the page draws the waterfall only when the run's drill-down opens. Runs replayed
with ``evidence_only`` carry no trace: their ``run.yaml`` files are read again for the
trace alone, by worker processes for large experiments.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from autobench.abp import Trace
from autobench.records import (
    ExperimentResult,
    RunRecord,
    TraceSummary,
    load_run_record,
    run_record_from_yaml,
)
from autobench.report._format import value_text

MAX_SPANS = 40
"""Spans kept per run for its waterfall (the page says when a run had more)."""
MAX_TEXT = 500
"""Characters kept of a reason, error message or score value shown in a drill-down."""


def number(value: Any) -> float | None:
    """A finite float of a metric value (booleans as 0/1), else ``None``."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int or kind is bool:
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def short(text: Any) -> str:
    """``text`` (any value, shown as text) cut to :data:`MAX_TEXT` characters."""
    value = text if isinstance(text, str) else value_text(text)
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "\u2026"


TRACE_ONLY = frozenset(
    {"case", "output", "observations", "scores", "artifacts", "errors", "asset_versions", "variant"}
)
"""Sections of ``run.yaml`` not read when a trace is all that is wanted."""


NO_SPANS: tuple[list[str], list[int], int] = ([], [], 0)
PARALLEL_TRACES = 1000
"""From this many runs without a loaded trace, their traces are read by worker processes."""

Spans = tuple[list[str], list[int], int]
"""A run's waterfall before string interning: operation names, four integers per span
(see :func:`_spans`) and the trace's span count."""


def _spans(trace: Trace | None) -> Spans:
    """Up to :data:`MAX_SPANS` spans: their operation names, and four integers each:
    name position, offset and duration in microseconds (-1: partial), and
    ``2 * depth + 1`` when the span ended in an error (``2 * depth`` otherwise)."""
    if trace is None:
        return [], [], 0
    depth: dict[str, int] = {}
    names: list[str] = []
    flat: list[int] = []
    for span in trace.spans:
        level = depth[span.parent] + 1 if span.parent in depth else 0
        depth[span.id] = level
        if len(names) < MAX_SPANS:
            failed = (
                span.error is not None or str(getattr(span.status, "value", span.status)) == "error"
            )
            flat += [
                len(names),
                _microseconds(span.offset),
                _microseconds(span.duration),
                2 * level + (1 if failed else 0),
            ]
            names.append(short(span.operation))
    return names, flat, len(trace.spans)


def _read_spans(root: Path, relative: str) -> Spans:
    """The waterfall of the run recorded at ``relative``: only its ``run`` and ``trace``
    sections are parsed (a trace stored as an artifact is loaded from ``root``)."""
    path = root / relative
    run = run_record_from_yaml(path.read_text(encoding="utf-8"), source=path, skip=TRACE_ONLY)
    if isinstance(run.trace, TraceSummary):
        run = load_run_record(path, root=root)
    return _spans(run.trace if isinstance(run.trace, Trace) else None)


def _read_chunk(root: Path, relatives: list[str]) -> list[Spans]:
    return [_read_spans(root, relative) for relative in relatives]


def run_spans(result: ExperimentResult) -> dict[str, Spans]:
    """The waterfall of each run. Runs replayed with ``evidence_only`` carry no trace: their
    ``run.yaml`` files are read again for the trace alone, by several processes (forked, as
    :func:`~autobench.records.replay_experiment` does) for large experiments."""
    spans = {run.run_id: _spans(run.trace) for run in result.runs if isinstance(run.trace, Trace)}
    root = result.root_dir
    if spans or not result.evidence_only or root is None:
        return spans
    present = {run.run_id for run in result.runs}
    planned = [item for item in result.experiment.plan if item.id in present]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(cpus or 1, 8)
    forkable = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if len(planned) >= PARALLEL_TRACES and workers > 1 and forkable:
        size = max(1, len(planned) // (workers * 4))
        chunks = [
            [item.path for item in planned[start : start + size]]
            for start in range(0, len(planned), size)
        ]
        try:
            with ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")
            ) as pool:
                parts = list(pool.map(_read_chunk, [root] * len(chunks), chunks))
            read = [item for part in parts for item in part]
            return {item.id: found for item, found in zip(planned, read, strict=True)}
        except (BrokenProcessPool, OSError):
            pass  # no usable worker processes here: read in this process
    return {item.id: _read_spans(root, item.path) for item in planned}


class Strings:
    """A table of the strings the page shows many times (ids, names, statuses): the data
    holds their index in :attr:`items`."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.items)
            self.items.append(text)
        return found


def _microseconds(seconds: float | None) -> int:
    return -1 if seconds is None else round(seconds * 1e6)


def _score_value(value: Any) -> Any:
    found = number(value)
    if found is not None and not isinstance(value, bool):
        return float(f"{found:.6g}")
    return short(value)


def run_entry(
    run: RunRecord, report_reason: str | None, spans: Spans, strings: Strings
) -> list[Any]:
    """One run as a compact array; the page's script (``openRun``) names the fields."""
    names, flat, span_count = spans
    table = [strings(name) for name in names]
    flat = [table[value] if i % 4 == 0 else value for i, value in enumerate(flat)]
    return [
        run.run_id,
        strings(run.case_id),
        strings(run.variant_id),
        strings(run.status.value),
        short(report_reason) if report_reason else "",
        [
            [strings(s.name), _score_value(s.value), short(s.reason or ""), short(s.error or "")]
            for s in run.scores
        ],
        [[strings(e.stage), strings(e.type), short(e.message)] for e in run.errors],
        [[a.name, a.size] for a in run.artifacts],
        flat,
        span_count,
        -1 if run.run.duration is None else _microseconds(run.run.duration),
    ]
