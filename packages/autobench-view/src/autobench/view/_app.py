"""The viewer's ASGI application: pages over the experiments found under some directories.

Pages: ``/`` (the experiments), ``/x/{key}`` (an experiment: headline, leaderboard, runs
table), ``/x/{key}/run/{run_id}`` (a run), ``/x/{key}/file/{path}`` (an artifact file of
the record, only under its directory, as a download), ``/x/{key}/image/{path}`` (a raster
image of the record, inline). Every response carries a Content-Security-Policy
that allows nothing from another origin. Pages are plain functions, which Starlette runs in
its thread pool, so a long replay does not stall the server.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from autobench.abp import AutobenchError
from autobench.records import (
    ExperimentResult,
    RunRecord,
    load_experiment_record,
    load_run_record,
    replay_experiment,
)
from autobench.report import Report, build_report
from autobench.report._html_figures import leaderboard_formats
from autobench.report._html_views import headline_view, leaderboard_view
from autobench.view import _run_page
from autobench.view._compare_page import Computed, experiments_view, level_of, variants_view
from autobench.view._diff_page import DiffCache, diff_context, diff_url, find_pair
from autobench.view._discover import Found, find_experiments
from autobench.view._files import contained, image_type
from autobench.view._render import CSP as CSP  # part of what this module offers the tests
from autobench.view._render import HEADERS
from autobench.view._render import page as _page
from autobench.view._runs import Query, RunRow, choices, run_rows, select

STATIC = Path(__file__).parent / "static"
RECHECK_SECONDS = 1.0
"""How long a loaded experiment is served without looking at its files again."""


class Loaded(NamedTuple):
    """An experiment as the pages use it: the replayed result, its report
    (``build_report``), the rows of its runs table and the values its filters offer."""

    result: ExperimentResult
    report: Report
    rows: list[RunRow]
    choices: dict[str, list[str]]


class Viewer:
    """The state behind the pages: the roots, and each experiment's :class:`Loaded`, kept
    while the record's files are unchanged (looked at again at most every
    :data:`RECHECK_SECONDS`)."""

    def __init__(self, directories: Sequence[Path]) -> None:
        self.roots = tuple(Path(d).resolve() for d in directories)
        self._lock = threading.Lock()
        self._loaded: dict[Path, tuple[tuple[int, int], float, Loaded]] = {}

    def experiments(self) -> list[Found]:
        return find_experiments(self.roots)

    def find(self, key: str) -> Found:
        for found in self.experiments():
            if found.key == key:
                return found
        raise HTTPException(404, "no such experiment")

    def load(self, found: Found, *, fresh: bool = True) -> Loaded:
        """The experiment at ``found``, replayed again when the count or newest change of its
        YAML files differs from the last look (runs recorded since); with ``fresh`` false,
        whatever was loaded last, without looking. Raises what
        :func:`~autobench.records.replay_experiment` raises."""
        with self._lock:  # pages are served from a thread pool: one replay at a time
            cached = self._loaded.get(found.path)
            now = time.monotonic()
            if cached is not None and (not fresh or now - cached[1] < RECHECK_SECONDS):
                return cached[2]
            signature = _signature(found.path)
            if cached is not None and cached[0] == signature:
                self._loaded[found.path] = (signature, now, cached[2])
                return cached[2]
            result = replay_experiment(found.path, evidence_only=True)
            report = build_report(result)
            rows = run_rows(result, report)
            loaded = Loaded(result, report, rows, choices(rows))
            self._loaded[found.path] = (signature, time.monotonic(), loaded)
            return loaded


def _signature(root: Path) -> tuple[int, int]:
    count, newest = 0, 0
    for here, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".yaml"):
                count += 1
                newest = max(newest, os.stat(os.path.join(here, name)).st_mtime_ns)
    return count, newest


def _summary(found: Found) -> dict[str, Any]:
    """What the index says of an experiment: its ids, start and planned runs, or why its
    ``experiment.yaml`` cannot be read."""
    try:
        record = load_experiment_record(found.path)
    except AutobenchError as exc:
        return {"found": found, "problem": str(exc)}
    info = record.experiment
    return {
        "found": found,
        "problem": None,
        "benchmark": info.benchmark,
        "experiment": info.id,
        "started": "" if info.started_at is None else info.started_at.isoformat(timespec="seconds"),
        "planned": len(record.plan),
    }


def index(request: Request) -> Response:
    viewer: Viewer = request.app.state.viewer
    experiments = [_summary(found) for found in viewer.experiments()]
    return _page("index.html", roots=viewer.roots, experiments=experiments)


def _query(request: Request) -> Query:
    params = request.query_params

    def integer(name: str, default: int) -> int:
        try:
            return int(params.get(name, default))
        except ValueError:
            return default

    return Query(
        status=params.get("status", ""),
        case=params.get("case", ""),
        variant=params.get("variant", ""),
        repeat=params.get("repeat", ""),
        error=params.get("error", ""),
        sort=params.get("sort", ""),
        descending=params.get("order", "") == "desc",
        page=integer("page", 1),
        size=integer("size", 50),
    )


def experiment(request: Request) -> Response:
    viewer: Viewer = request.app.state.viewer
    found = viewer.find(request.path_params["key"])
    try:
        loaded = viewer.load(found)
    except AutobenchError as exc:
        raise HTTPException(422, f"this record cannot be read: {exc}") from exc
    report = loaded.report
    query = _query(request)
    page = select(loaded.rows, query)
    formats = leaderboard_formats(report)
    params = {k: v for k, v in request.query_params.items() if k != "page"}
    return _page(
        "experiment.html",
        found=found,
        report=report,
        headline=headline_view(report),
        leaderboard=leaderboard_view(report, formats),
        page=page,
        query=query,
        params=params,
        choices=loaded.choices,
        diagnostics=report.diagnostics,
    )


def _run(viewer: Viewer, found: Found, run_id: str) -> RunRecord:
    # The run's own record is read below: the plan loaded last names its file, unless the
    # run is newer than that load.
    planned = next(
        (
            item
            for fresh in (False, True)
            for item in viewer.load(found, fresh=fresh).result.experiment.plan
            if item.id == run_id
        ),
        None,
    )
    if planned is None:
        raise HTTPException(404, "no such run")
    path = contained(found.path, planned.path)
    if path is None:
        raise HTTPException(404, "no record for this run")
    return load_run_record(path, root=found.path)


DIFFS = DiffCache()
COMPARISONS = Computed()


def _loaded(viewer: Viewer, key: str) -> Loaded:
    try:
        return viewer.load(viewer.find(key))
    except AutobenchError as exc:
        raise HTTPException(422, f"this record cannot be read: {exc}") from exc


def diff(request: Request) -> Response:
    """Two runs compared (:mod:`autobench.view._diff_page`)."""
    viewer: Viewer = request.app.state.viewer

    def load(key: str, run_id: str) -> tuple[Found, RunRecord]:
        found = viewer.find(key)
        return found, _run(viewer, found, run_id)

    return _page("diff.html", **diff_context(request.query_params, load, DIFFS, viewer.roots))


def diff_find(request: Request) -> Response:
    """A choice of two runs, sent on to their diff's address (303)."""
    viewer: Viewer = request.app.state.viewer
    left, right = find_pair(request.query_params, lambda key: _loaded(viewer, key).rows)
    return RedirectResponse(diff_url(left, right), status_code=303, headers=HEADERS)


def compare_variants(request: Request) -> Response:
    """Two variants of an experiment compared (:mod:`autobench.view._compare_page`)."""
    viewer: Viewer = request.app.state.viewer
    found = viewer.find(request.path_params["key"])
    loaded = _loaded(viewer, found.key)
    params = request.query_params
    pair = (params.get("baseline", ""), params.get("candidate", ""))
    level = level_of(params)
    view = COMPARISONS.get(
        ("variants", found.path, *pair, level),
        (loaded.result,),
        lambda: variants_view(loaded.result, loaded.report, *pair, level),
    )
    return _page("compare.html", found=found, report=loaded.report, pair=pair, level=level, **view)


def compare_two(request: Request) -> Response:
    """Two experiments compared, paired by case and variant."""
    viewer: Viewer = request.app.state.viewer
    params = request.query_params
    keys = (params.get("baseline", ""), params.get("candidate", ""))
    if not all(keys):
        raise HTTPException(422, "choose a baseline and a candidate experiment")
    sides = [_loaded(viewer, key) for key in keys]
    level = level_of(params)
    view = COMPARISONS.get(
        ("experiments", *keys, level),
        (sides[0].result, sides[1].result),
        lambda: experiments_view(sides[0].result, sides[0].report, sides[1].result, level),
    )
    found = [viewer.find(key) for key in keys]
    return _page("compare.html", found=None, experiments=found, level=level, **view)


def file(request: Request) -> Response:
    viewer: Viewer = request.app.state.viewer
    found = viewer.find(request.path_params["key"])
    path = contained(found.path, request.path_params["path"])
    if path is None:
        raise HTTPException(404, "no such file")
    return FileResponse(
        path,
        headers={**HEADERS, "Content-Disposition": "attachment"},
        media_type="application/octet-stream",
    )


def image(request: Request) -> Response:
    """A raster image of the record, shown inline (``IMAGES``); anything else is 404."""
    viewer: Viewer = request.app.state.viewer
    found = viewer.find(request.path_params["key"])
    path = contained(found.path, request.path_params["path"])
    media = None if path is None else image_type(path)
    if path is None or media is None:
        raise HTTPException(404, "no such image")
    return FileResponse(path, headers=HEADERS, media_type=media)


def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in (
        "view.css",
        "view.js",
        "waterfall.js",
        "waterfall.css",
        "pages.css",
        "pages.js",
    ):
        raise HTTPException(404, "no such asset")
    media = "text/css" if name.endswith(".css") else "text/javascript"
    return Response((STATIC / name).read_bytes(), media_type=media, headers=HEADERS)


async def _not_found(request: Request, exc: Exception) -> Response:
    detail = getattr(exc, "detail", "not found")
    code = getattr(exc, "status_code", 404)
    return _page("error.html", status=code, code=code, detail=detail)


def create_app(directories: Sequence[Path]) -> Starlette:
    """The viewer over the experiments found (recursively) under ``directories``. Only GET
    and HEAD are routed: nothing can be written. Raises ``FileNotFoundError`` for a
    directory that does not exist."""
    for directory in directories:
        if not Path(directory).is_dir():
            raise FileNotFoundError(f"no directory here: {directory}")
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/static/{name}", static),
            Route("/diff", diff),
            Route("/diff/find", diff_find),
            Route("/compare", compare_two),
            Route("/x/{key:path}/compare", compare_variants),
            Route("/x/{key:path}/run/{run_id}/spans", _run_page.spans),
            Route("/x/{key:path}/run/{run_id}/span/{row}", _run_page.span),
            Route("/x/{key:path}/run/{run_id}", _run_page.run_page),
            Route("/x/{key:path}/file/{path:path}", file),
            Route("/x/{key:path}/image/{path:path}", image),
            Route("/x/{key:path}", experiment),
        ],
        exception_handlers={HTTPException: _not_found},
    )
    app.state.viewer = Viewer(directories)
    return app
