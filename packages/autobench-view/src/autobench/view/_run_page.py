"""The run page and the JSON its waterfall reads.

Routes (under ``/x/{key}``): ``run/{run_id}`` (the page: input, expected, output, scores,
observations, errors, artifacts, cassette exchanges, LLM calls, tool calls and the
waterfall), ``run/{run_id}/spans?from=I&count=N`` (rows ``I`` to ``I+N`` of the waterfall,
in display order, see :mod:`autobench.view._waterfall`) and ``run/{run_id}/span/{row}``
(one span's details). A loaded run is kept in a small LRU (:class:`RunCache`), keyed by its
file and that file's size and change time, so the span requests of a 100,000-span trace do
not read its YAML again.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from autobench.abp import AutobenchError, Trace
from autobench.records import RunRecord, artifact_payload_from_yaml, load_run_record
from autobench.view._cassettes import ShownCassette, is_cassette, read_cassette
from autobench.view._diff_page import run_links
from autobench.view._discover import Found
from autobench.view._files import TEXT_LIMIT, contained, image_type, is_textual
from autobench.view._llm_calls import llm_calls, tool_uses
from autobench.view._render import HEADERS, page
from autobench.view._waterfall import FAILED, MAX_WINDOW, Waterfall, waterfall

CACHED_RUNS = 8
"""Runs kept loaded (each with its waterfall); the least recently used goes first."""

INLINE_SPANS = 1000
"""Traces up to this many spans are also written into the page as plain HTML, for a
browser without JavaScript; longer ones need it."""


@dataclass(frozen=True)
class LoadedRun:
    """A run's record, its waterfall and the file it was read from."""

    run: RunRecord
    waterfall: Waterfall
    path: Path


class RunCache:
    """The last :data:`CACHED_RUNS` runs read, by ``(run file, size, change time)``: a run
    file rewritten since is read again. Safe to use from the server's threads."""

    def __init__(self, size: int = CACHED_RUNS) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._runs: OrderedDict[tuple[str, int, int], LoadedRun] = OrderedDict()

    def get(self, path: Path, root: Path) -> LoadedRun:
        """The run recorded at ``path`` (a ``run.yaml`` under the experiment ``root``).
        Raises what :func:`~autobench.records.load_run_record` raises."""
        stat = os.stat(path)
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        with self._lock:
            found = self._runs.get(key)
            if found is not None:
                self._runs.move_to_end(key)
                return found
        run = load_run_record(path, root=root)
        loaded = LoadedRun(
            run, waterfall(run.trace if isinstance(run.trace, Trace) else None), path
        )
        with self._lock:
            self._runs[key] = loaded
            self._runs.move_to_end(key)
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)
        return loaded


_cache_lock = threading.Lock()


def run_cache(request: Request) -> RunCache:
    """The application's :class:`RunCache` (made on first use)."""
    state = request.app.state
    with _cache_lock:
        cache = getattr(state, "run_cache", None)
        if cache is None:
            cache = state.run_cache = RunCache()
    return cache


def run_file(viewer: Any, found: Found, run_id: str) -> Path:
    """The record file of run ``run_id`` of the experiment at ``found``, as its plan names it,
    under the experiment's directory. ``viewer`` is the application's
    :class:`~autobench.view._app.Viewer`. Raises ``HTTPException`` 404 for a run the plan
    does not hold or whose file is missing or lies outside the experiment."""
    # The plan served last (its runs table is enough) names the run's file, unless the run
    # is newer than that load: then the load looked at again, and waited for.
    try:
        plan = viewer.loads(found).runs_table().result.experiment.plan
    except AutobenchError as exc:
        raise HTTPException(422, f"this record cannot be read: {exc}") from exc
    planned = next((item for item in plan if item.id == run_id), None)
    if planned is None:
        try:
            plan = viewer.load(found, fresh=True).result.experiment.plan
        except AutobenchError:  # no newer load to look in
            plan = []
        planned = next((item for item in plan if item.id == run_id), None)
    if planned is None:
        raise HTTPException(404, "no such run")
    path = contained(found.path, planned.path)
    if path is None:
        raise HTTPException(404, "no record for this run")
    return path


def _loaded(request: Request) -> tuple[Found, LoadedRun]:
    viewer = request.app.state.viewer  # an autobench.view._app.Viewer
    found = viewer.find(request.path_params["key"])
    path = run_file(viewer, found, request.path_params["run_id"])
    try:
        return found, run_cache(request).get(path, found.path)
    except AutobenchError as exc:
        raise HTTPException(422, f"this run's record cannot be read: {exc}") from exc


def _artifacts(found: Found, run: RunRecord) -> tuple[list[dict[str, Any]], list[ShownCassette]]:
    artifacts, cassettes = [], []
    for ref in run.artifacts:
        path = None if ref.path is None else contained(found.path, ref.path)
        cassette = is_cassette(ref)
        if path is not None and cassette:
            cassettes.append(read_cassette(ref.name, path))
        text = None
        if (
            path is not None
            and not cassette  # shown as exchanges below
            and is_textual(ref.media_type)
            and path.stat().st_size <= TEXT_LIMIT
        ):
            text = _shown_text(path)
        image = None if path is None else image_type(path)
        artifacts.append(
            {"ref": ref, "available": path is not None, "text": text, "image": image is not None}
        )
    return artifacts, cassettes


def _shown_text(path: Path) -> str:
    """The text of an artifact file as a person wants to read it: a structured payload (a
    YAML file with an ``artifact_payload`` header, as the record writer stores values that
    are not text) is shown as its payload, in JSON; any other file as it is."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix not in (".yaml", ".yml") or "artifact_payload" not in text[:400]:
        return text
    try:
        _, payload = artifact_payload_from_yaml(text, source=path)
    except AutobenchError:  # a user's own YAML text: shown as written
        return text
    if isinstance(payload, str):
        return payload
    return json.dumps(payload, indent=2, ensure_ascii=False, default=str)


def run_page(request: Request) -> Response:
    found, loaded = _loaded(request)
    run = loaded.run
    artifacts, cassettes = _artifacts(found, run)
    llm, llm_total = llm_calls(run)
    tools, tools_total = tool_uses(run)
    fall = loaded.waterfall
    inline = []
    if fall.total <= INLINE_SPANS:
        inline = [
            {
                "span": fall.spans[fall.order[row]],
                "depth": fall.depth[row],
                "failed": values[4] == FAILED,
            }
            for row, values in enumerate(fall.rows(0, fall.total))
        ]
    return page(
        "run.html",
        found=found,
        run=run,
        artifacts=artifacts,
        cassettes=cassettes,
        llm=llm,
        llm_total=llm_total,
        tools=tools,
        tools_total=tools_total,
        waterfall=fall,
        inline=inline,
        inline_limit=INLINE_SPANS,
        diff_links=_diff_links(request, found, run),
    )


def _diff_links(request: Request, found: Found, run: RunRecord) -> Any:
    """The "diff with" links of a run page (:func:`autobench.view._diff_page.run_links`)."""
    viewer = request.app.state.viewer  # an autobench.view._app.Viewer
    rows = viewer.loads(found).runs_table().rows

    def loaded_rows(item: Found) -> Any:
        table = viewer.loads(item).snapshot().table
        return None if table is None else table.rows

    return run_links(viewer.roots, viewer.experiments(), found, run, rows, loaded_rows)


def _json(data: Any) -> Response:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return Response(body, media_type="application/json", headers=HEADERS)


def _integer(request: Request, name: str, default: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        if default is None:
            raise HTTPException(400, f"missing query parameter {name!r}")
        return default
    try:
        return int(raw)
    except ValueError:
        raise HTTPException(400, f"{name!r} must be an integer, not {raw!r}") from None


def spans(request: Request) -> Response:
    """``{"total": n, "extent_ms": ms, "from": i, "rows": [...]}``: waterfall rows ``from``
    to ``from + count`` (``count`` 1 to :data:`MAX_WINDOW`, default 500; ``from`` 0 to
    ``total``). 400 for another value, 404 for an unknown run."""
    _found, loaded = _loaded(request)
    fall = loaded.waterfall
    first = _integer(request, "from", 0)
    count = _integer(request, "count", 500)
    if not 0 <= first <= fall.total:
        raise HTTPException(400, f"'from' must be between 0 and {fall.total}")
    if not 1 <= count <= MAX_WINDOW:
        raise HTTPException(400, f"'count' must be between 1 and {MAX_WINDOW}")
    return _json(
        {
            "total": fall.total,
            "extent_ms": round(fall.extent * 1000, 3),
            "from": first,
            "rows": fall.rows(first, count),
        }
    )


def span(request: Request) -> Response:
    """One span's details (:meth:`Waterfall.detail`) by display row; 404 out of range."""
    _found, loaded = _loaded(request)
    raw = request.path_params["row"]
    if not raw.isdigit():
        raise HTTPException(400, f"a span is asked for by its row number, not {raw!r}")
    try:
        return _json(loaded.waterfall.detail(int(raw)))
    except IndexError:
        raise HTTPException(404, "no such span") from None
