"""The diff page: two runs compared by :func:`autobench.report.diff_runs`, shown a page of
aligned spans at a time (a 100,000-span trace never reaches the browser whole).

A run is named ``<experiment key>:<run id>`` (:class:`RunRef`), so a diff's address is
``/diff?left=<ref>&right=<ref>``: stable while the records are. ``/diff/find`` turns a
choice (two run ids, a case and two variants, or a run and another experiment) into that
address. Everything here is plain values for the templates, which escape them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.exceptions import HTTPException

from autobench.records import RunRecord
from autobench.report import DiffStatus, RunDiff, SpanDiff, diff_runs
from autobench.view._discover import Found
from autobench.view._runs import RunRow

NODES_PER_PAGE = 500
"""Aligned span rows shown per page (``size`` may ask for up to :data:`MAX_NODES_PER_PAGE`)."""
MAX_NODES_PER_PAGE = 2000
TOOL_ROWS = 1000
"""Tool-call rows shown; the page says how many more there are."""
OUTPUT_LINES = 2000
"""Lines of the output diff shown; the page says how many more there are."""
SHOWS = ("all", "differing")
"""Which aligned spans a page lists: every node, or only those not ``same``."""


@dataclass(frozen=True)
class RunRef:
    """A run as the diff page names it: the key of its experiment and its run id."""

    key: str
    run_id: str

    @classmethod
    def parse(cls, text: str, side: str) -> RunRef:
        """``<key>:<run id>`` split at its last colon (run ids hold none). Raises
        ``HTTPException`` 422 naming ``side`` when either part is empty."""
        key, colon, run_id = text.rpartition(":")
        if not colon or not key or not run_id:
            raise HTTPException(
                422, f"{side} must name a run as <experiment key>:<run id>, not {text!r}"
            )
        return cls(key, run_id)

    def __str__(self) -> str:
        return f"{self.key}:{self.run_id}"


def diff_url(left: RunRef, right: RunRef, **extra: str) -> str:
    """The diff page's address for two runs (``extra``: more query parameters)."""
    return "/diff?" + urlencode({"left": str(left), "right": str(right), **extra})


class DiffCache:
    """The last few diffs computed, by the pair of runs (a run's record is written once, so
    a diff stays right): paging through a large diff computes it once. Thread-safe; one
    diff is computed at a time."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._diffs: OrderedDict[tuple[Any, ...], RunDiff] = OrderedDict()

    def get(self, key: tuple[Any, ...], compute: Callable[[], RunDiff]) -> RunDiff:
        with self._lock:
            diff = self._diffs.get(key)
            if diff is None:
                diff = compute()
                self._diffs[key] = diff
                while len(self._diffs) > self.size:
                    self._diffs.popitem(last=False)
            self._diffs.move_to_end(key)
            return diff


def counterpart(rows: Sequence[RunRow], case: str, variant: str, repeat: int) -> RunRow | None:
    """The run of ``case`` under ``variant``: the same ``repeat`` when there is one, else
    the first repeat recorded; ``None`` when the case never ran under the variant."""
    same = [row for row in rows if row.case == case and row.variant == variant]
    return next((row for row in same if row.repeat == repeat), same[0] if same else None)


@dataclass(frozen=True)
class DiffLink:
    """A "diff with" link of the run page: its text and address."""

    text: str
    href: str


def diff_links(
    key: str,
    run: RunRow,
    rows: Sequence[RunRow],
    others: Sequence[tuple[str, str]],
) -> tuple[list[DiffLink], list[DiffLink]]:
    """The run page's links: the same case under each other variant of the experiment (from
    ``rows``), and the same case and variant in each other experiment (``others``: key and
    label), resolved by ``/diff/find`` when followed."""
    here = RunRef(key, run.run_id)
    variants = []
    for variant in dict.fromkeys(row.variant for row in rows):
        if variant == run.variant:
            continue
        other = counterpart(rows, run.case, variant, run.repeat)
        if other is not None:
            variants.append(
                DiffLink(f"variant {variant}", diff_url(here, RunRef(key, other.run_id)))
            )
    experiments = [
        DiffLink(label, "/diff/find?" + urlencode({"left": str(here), "experiment": other}))
        for other, label in others
        if other != key
    ]
    return variants, experiments


def find_pair(
    params: Mapping[str, str], rows_of: Callable[[str], Sequence[RunRow]]
) -> tuple[RunRef, RunRef]:
    """The two runs a choice names (``rows_of(key)``: the runs of experiment ``key``):

    * ``left=<ref>`` and ``experiment=<key>``: that run against the same case, variant
      and repeat in the other experiment;
    * ``experiment=<key>``, ``case``, ``left_variant``, ``right_variant`` (``repeat``,
      default 1): the case under the two variants;
    * ``experiment=<key>``, ``left_run``, ``right_run``: two runs of one experiment.

    Raises ``HTTPException`` 404 when a run is not found, 422 when the choice is incomplete.
    """
    experiment = params.get("experiment", "")
    if not experiment:
        raise HTTPException(422, "choose an experiment")
    if params.get("left"):
        left = RunRef.parse(params["left"], "left")
        row = next((r for r in rows_of(left.key) if r.run_id == left.run_id), None)
        if row is None:
            raise HTTPException(404, f"no run {left.run_id!r} in experiment {left.key!r}")
        other = counterpart(rows_of(experiment), row.case, row.variant, row.repeat)
        if other is None:
            raise HTTPException(
                404,
                f"experiment {experiment!r} has no run of case {row.case!r} "
                f"under variant {row.variant!r}",
            )
        return left, RunRef(experiment, other.run_id)
    rows = rows_of(experiment)
    if params.get("left_run") or params.get("right_run"):
        ids = {row.run_id for row in rows}
        refs = []
        for side in ("left_run", "right_run"):
            run_id = params.get(side, "").strip()
            if run_id not in ids:
                raise HTTPException(404, f"no run {run_id!r} in experiment {experiment!r}")
            refs.append(RunRef(experiment, run_id))
        return refs[0], refs[1]
    case = params.get("case", "")
    chosen = [params.get("left_variant", ""), params.get("right_variant", "")]
    if not case or not all(chosen):
        raise HTTPException(422, "choose two run ids, or a case and two variants")
    try:
        repeat = int(params.get("repeat", "1"))
    except ValueError:
        raise HTTPException(422, "repeat must be a whole number") from None
    refs = []
    for variant in chosen:
        row = counterpart(rows, case, variant, repeat)
        if row is None:
            raise HTTPException(
                404, f"no run of case {case!r} under variant {variant!r} in {experiment!r}"
            )
        refs.append(RunRef(experiment, row.run_id))
    return refs[0], refs[1]


def _number(value: float | int | None, unit: str = "", signed: bool = False) -> str:
    if value is None:
        return ""
    if isinstance(value, int):
        text = f"{value:+d}" if signed else str(value)
    else:
        text = f"{value:+.4g}" if signed else f"{value:.4g}"
    return f"{text} {unit}".rstrip()


def _ms(seconds: float | None, signed: bool = False) -> str:
    return "" if seconds is None else _number(seconds * 1000, "ms", signed)


METRIC_UNITS = {"cost": "USD"}


def _metrics(metrics: Mapping[str, float | int], signed: bool = False) -> str:
    return ", ".join(
        f"{name} {_number(value, METRIC_UNITS.get(name, ''), signed)}"
        for name, value in metrics.items()
    )


def _node(diff: RunDiff, node: SpanDiff) -> dict[str, Any]:
    sides = {}
    for name, side in (("left", node.left), ("right", node.right)):
        sides[name] = (
            None
            if side is None
            else {
                "status": side.status,
                "duration": _ms(side.duration),
                "metrics": _metrics(side.metrics),
                "error": side.error or "",
            }
        )
    return {
        "index": node.index,
        "depth": node.depth,
        "operation": node.operation,
        "kind": node.kind,
        "ordinal": node.ordinal,
        "path": " / ".join(diff.span_path(node.index)),
        "status": node.status.value,
        "left": sides["left"],
        "right": sides["right"],
        "changes": ", ".join(node.changes),
        "duration_delta": _ms(node.duration_delta, signed=True),
        "metric_deltas": _metrics(node.metric_deltas, signed=True),
        "attributes": node.attributes,
    }


def spans_page(diff: RunDiff, show: str, page: int, size: int) -> dict[str, Any]:
    """One page of the aligned span rows: ``show`` one of :data:`SHOWS` (anything else:
    ``all``), ``page`` 1-based (clamped to the pages there are), ``size`` rows (clamped to
    1 .. :data:`MAX_NODES_PER_PAGE`). Returns the rows, the count they were taken from,
    the page, the page count and the choices made."""
    show = show if show in SHOWS else "all"
    size = min(max(size, 1), MAX_NODES_PER_PAGE)
    nodes: Sequence[SpanDiff] = diff.spans
    if show == "differing":
        nodes = [node for node in diff.spans if node.status is not DiffStatus.SAME]
    pages = max(1, -(-len(nodes) // size))
    page = min(max(page, 1), pages)
    chosen = nodes[(page - 1) * size : page * size]
    return {
        "rows": [_node(diff, node) for node in chosen],
        "total": len(nodes),
        "first": (page - 1) * size + 1 if chosen else 0,
        "last": (page - 1) * size + len(chosen),
        "page": page,
        "pages": pages,
        "size": size,
        "show": show,
    }


def output_rows(diff: RunDiff) -> tuple[list[tuple[str, str]], int]:
    """The output diff's first :data:`OUTPUT_LINES` lines, each with its CSS class
    (``file``, ``hunk``, ``added``, ``removed``, ``context``), and how many lines are left
    out."""
    rows = []
    for line in diff.output_diff[:OUTPUT_LINES]:
        if line.startswith(("---", "+++")):
            css = "file"
        elif line.startswith("@@"):
            css = "hunk"
        elif line.startswith("+"):
            css = "added"
        elif line.startswith("-"):
            css = "removed"
        else:
            css = "context"
        rows.append((line, css))
    return rows, max(0, len(diff.output_diff) - OUTPUT_LINES)


def total_rows(diff: RunDiff) -> list[dict[str, str]]:
    """The run totals with their deltas as text (durations in ms, others in their unit)."""
    rows = []
    for total in diff.totals:
        if total.name == "duration":
            values = [_ms(v) for v in (total.left, total.right)] + [_ms(total.delta, True)]
        else:
            unit = total.unit or ""
            values = [_number(total.left, unit), _number(total.right, unit)]
            values.append(_number(total.delta, unit, signed=True))
        rows.append({"name": total.name, "left": values[0], "right": values[1], "delta": values[2]})
    return rows


def run_links(
    roots: Sequence[Path],
    experiments: Sequence[Found],
    found: Found,
    run: RunRecord,
    rows: Sequence[RunRow],
    loaded_rows: Callable[[Found], Sequence[RunRow] | None] = lambda _found: None,
) -> dict[str, list[DiffLink]]:
    """The run page's "diff with" links (:func:`diff_links`), ``variants`` and
    ``experiments``; none when ``rows`` (the experiment as loaded) lacks the run. Another
    experiment already loaded (``loaded_rows`` gives its rows, ``None`` when it is not
    loaded yet) is offered only when it holds a run of the same case and variant; one not
    loaded yet is offered, and ``/diff/find`` says so if it has none."""
    row = next((r for r in rows if r.run_id == run.run_id), None)
    if row is None:
        return {"variants": [], "experiments": []}
    others = []
    for item in experiments:
        theirs = None if item.key == found.key else loaded_rows(item)
        if theirs is not None and counterpart(theirs, row.case, row.variant, row.repeat) is None:
            continue
        label = f"{roots[item.root].name}/{item.path.relative_to(roots[item.root]).as_posix()}"
        others.append((item.key, label))
    variants, elsewhere = diff_links(found.key, row, rows, others)
    return {"variants": variants, "experiments": elsewhere}


def diff_context(
    params: Mapping[str, str],
    load: Callable[[str, str], tuple[Found, RunRecord]],
    cache: DiffCache,
    roots: Sequence[Path],
) -> dict[str, Any]:
    """What ``diff.html`` shows for ``left``/``right`` (:class:`RunRef` s, loaded by
    ``load(key, run_id)``, which raises ``HTTPException`` 404 for a missing one), ``show``,
    ``page`` and ``size`` (:func:`spans_page`). Raises ``HTTPException`` 422 for a missing or
    malformed ref."""
    refs = [RunRef.parse(params.get(side, ""), side) for side in ("left", "right")]
    loaded = [load(ref.key, ref.run_id) for ref in refs]
    key = (tuple(roots), *((found.path, run.run_id) for found, run in loaded))
    diff = cache.get(key, lambda: diff_runs(loaded[0][1], loaded[1][1]))

    def integer(name: str, default: int) -> int:
        try:
            return int(params.get(name, default))
        except ValueError:
            return default

    spans = spans_page(
        diff, params.get("show", "all"), integer("page", 1), integer("size", NODES_PER_PAGE)
    )
    output, output_more = output_rows(diff)
    steps = diff.tool_steps[:TOOL_ROWS]
    return {
        "refs": refs,
        "left": loaded[0],
        "right": loaded[1],
        "diff": diff,
        "spans": spans,
        "tool_steps": steps,
        "tool_more": len(diff.tool_steps) - len(steps),
        "output": output,
        "output_more": output_more,
        "totals": total_rows(diff),
        "swap": diff_url(refs[1], refs[0]),
        "url": lambda **changes: diff_url(
            refs[0],
            refs[1],
            **{"show": spans["show"], "size": str(spans["size"]), **changes},
        ),
    }
