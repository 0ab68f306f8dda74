"""The viewer's ASGI application: pages over the experiments found under some directories.

Pages: ``/`` (the experiments), ``/x/{key}`` (an experiment: headline, leaderboard, runs
table), ``/x/{key}/run/{run_id}`` (a run), ``/x/{key}/file/{path}`` (an artifact file of
the record, only under its directory, as a download), ``/x/{key}/image/{path}`` (a raster
image of the record, inline). Every response carries a Content-Security-Policy
that allows nothing from another origin. Pages are plain functions, which Starlette runs in
its thread pool, so a long replay does not stall the server.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from autobench.abp import AutobenchError
from autobench.records import RunRecord, load_experiment_record, load_run_record
from autobench.view import _run_page
from autobench.view._compare_page import Computed, experiments_view, level_of, variants_view
from autobench.view._diff_page import DiffCache, diff_context, diff_url, find_pair
from autobench.view._discover import Found, find_experiments, split_key
from autobench.view._files import contained, image_type
from autobench.view._live import body_values, state
from autobench.view._loading import INLINE_RUNS, Loads, RunsTable, Snapshot, file_stamp, prepare
from autobench.view._loading import RECHECK_SECONDS as RECHECK_SECONDS
from autobench.view._loading import Loaded as Loaded
from autobench.view._render import CSP as CSP  # part of what this module offers the tests
from autobench.view._render import HEADERS, compile_templates
from autobench.view._render import page as _page
from autobench.view._runs import Query

STATIC = Path(__file__).parent / "static"

DISCOVER_SECONDS = 5.0
"""How old the last walk of the roots may be before a page starts the next (in the
background): a new experiment appears in the list within about this long (its own address
works at once)."""


class Viewer:
    """The state behind the pages: the roots, and the :class:`~autobench.view._loading.Loads`
    of each experiment asked for (loaded in the background, looked at again at most every
    :data:`RECHECK_SECONDS`). A first load planning at most ``inline_runs`` runs is waited
    for by the experiment page; a larger one shows its progress."""

    def __init__(self, directories: Sequence[Path], *, inline_runs: int = INLINE_RUNS) -> None:
        self.roots = tuple(Path(d).resolve() for d in directories)
        self.inline_runs = inline_runs
        self._lock = threading.Lock()
        self._loads: dict[Path, Loads] = {}
        self._summaries: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}
        self._found: list[Found] | None = None
        self._found_at = 0.0
        self._walking = False

    def experiments(self) -> list[Found]:
        """The experiments found under the roots. The directory walk is made on the first
        call; afterwards a call older than :data:`DISCOVER_SECONDS` starts the next walk in
        the background and answers with the last one, so no page waits for a walk of the
        roots (tens of milliseconds over a project with a virtual environment, seconds over
        a large tree)."""
        with self._lock:
            found = self._found
            due = found is not None and time.monotonic() - self._found_at >= DISCOVER_SECONDS
            start = due and not self._walking
            if start:
                self._walking = True
        if found is None:
            return self.walk()
        if start:
            threading.Thread(target=self.walk, name="autobench-view-discover", daemon=True).start()
        return found

    def walk(self) -> list[Found]:
        """Walk the roots for experiments now, and keep what was found."""
        try:
            found = find_experiments(self.roots)
            with self._lock:
                self._found, self._found_at = found, time.monotonic()
            return found
        finally:
            with self._lock:
                self._walking = False

    def find(self, key: str) -> Found:
        """The experiment of ``key``; one not among those last found is looked for again
        (it may have been recorded since) before the page is a 404."""
        for experiments in (self.experiments, self.walk):
            for found in experiments():
                if found.key == key:
                    return found
        raise HTTPException(404, "no such experiment")

    def summary(self, found: Found) -> dict[str, Any]:
        """What the index page says of ``found`` (:func:`_summary`), kept until its
        ``experiment.yaml`` changes (size or modification time): parsing the plan of a
        10,000-run experiment costs a few tenths of a second."""
        stamp = file_stamp(found.path / "experiment.yaml")
        with self._lock:
            kept = self._summaries.get(found.path)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return kept[1]
        summary = _summary(found)
        if stamp is not None and summary["problem"] is None:
            with self._lock:
                self._summaries[found.path] = (stamp, summary)
        return summary

    def loads(self, found: Found) -> Loads:
        with self._lock:
            return self._loads.setdefault(found.path, Loads(found.path))

    def load(self, found: Found, *, fresh: bool = True) -> Loaded:
        """The experiment at ``found``, waited for: looked at again first (``fresh``: its
        files changed since the last look, at most every :data:`RECHECK_SECONDS`, mean a
        reload) or whatever was loaded last. Raises the
        :class:`~autobench.abp.AutobenchError` of a record that cannot be loaded."""
        return self.loads(found).load(fresh=fresh)

    def preload(self) -> threading.Thread:
        """Load every experiment found, one after the other, in a background thread
        (started and returned); pages asked for meanwhile load their own at once."""

        def run() -> None:
            for found in self.experiments():
                loads = self.loads(found)
                loads.wait(loads.look())

        thread = threading.Thread(target=run, name="autobench-view-preload", daemon=True)
        thread.start()
        return thread


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
    # The list of experiments walks the roots afresh (a new experiment is listed at once);
    # the other pages, polled and asked for many times a second, use the last walk.
    experiments = [viewer.summary(found) for found in viewer.walk()]
    return _page("index.html", roots=viewer.roots, experiments=experiments)


def _query(request: Request) -> Query:
    params = request.query_params

    def integer(name: str, default: int) -> int:
        try:
            return int(params.get(name, default))
        except ValueError:
            return default

    ignored = tuple(
        f"{name} {params[name]!r} is not a number: the range filter does not use it"
        for name in ("min", "max")
        if params.get(name, "").strip() and _bound(params[name]) is None
    )
    return Query(
        ignored=ignored,
        status=params.get("status", ""),
        case=params.get("case", ""),
        variant=params.get("variant", ""),
        repeat=params.get("repeat", ""),
        error=params.get("error", ""),
        sort=params.get("sort", ""),
        descending=params.get("order", "") == "desc",
        page=integer("page", 1),
        size=integer("size", 50),
        where=params.get("where", ""),
        low=_bound(params.get("min", "")),
        high=_bound(params.get("max", "")),
    )


def _bound(text: str) -> float | None:
    """A range filter's bound from the query string: a finite number, else no bound."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _snapshot(request: Request, *, wait: bool) -> tuple[Found, Snapshot]:
    viewer: Viewer = request.app.state.viewer
    found = viewer.find(request.path_params["key"])
    loads = viewer.loads(found)
    looks = loads.look()
    snapshot = loads.snapshot()
    if wait and snapshot.loaded is None:
        snapshot = loads.wait(looks, inline_runs=viewer.inline_runs)
        if snapshot.table is None and not snapshot.loading and snapshot.problem:
            raise HTTPException(422, f"this record cannot be read: {snapshot.problem}")
    return found, snapshot


def _body(request: Request, found: Found, snapshot: Snapshot) -> dict[str, Any]:
    params = {k: v for k, v in request.query_params.items() if k != "page"}
    return body_values(found, snapshot, _query(request), params)


def experiment(request: Request) -> Response:
    """The experiment page: whatever is loaded now (a small experiment's first load is
    waited for whole, a first load from a columnar index until its runs table is served:
    :meth:`~autobench.view._loading.Loads.wait`), kept up to date by ``live.js``; 422 when
    its first load failed."""
    found, snapshot = _snapshot(request, wait=True)
    return _page("experiment.html", **_body(request, found, snapshot))


def experiment_body(request: Request) -> Response:
    """The changing part of the experiment page alone (``experiment_body.html``), for the
    same query parameters; never waits for a load."""
    found, snapshot = _snapshot(request, wait=False)
    return _page("experiment_body.html", **_body(request, found, snapshot))


def experiment_state(request: Request) -> Response:
    """The experiment's load as JSON (:func:`autobench.view._live.state`), looking at its
    files again when the last look is older than :data:`RECHECK_SECONDS`; never waits."""
    _found, snapshot = _snapshot(request, wait=False)
    return JSONResponse(state(snapshot), headers={**HEADERS, "Cache-Control": "no-store"})


DIFFS = DiffCache()
COMPARISONS = Computed()


def _loaded(viewer: Viewer, key: str) -> Loaded:
    try:
        return viewer.load(viewer.find(key))
    except AutobenchError as exc:
        raise HTTPException(422, f"this record cannot be read: {exc}") from exc


def _runs_table(viewer: Viewer, key: str) -> RunsTable:
    try:
        return viewer.loads(viewer.find(key)).runs_table()
    except AutobenchError as exc:
        raise HTTPException(422, f"this record cannot be read: {exc}") from exc


def diff(request: Request) -> Response:
    """Two runs compared (:mod:`autobench.view._diff_page`)."""
    viewer: Viewer = request.app.state.viewer

    def load(key: str, run_id: str) -> tuple[Found, RunRecord]:
        found = viewer.find(key)
        return found, load_run_record(_run_page.run_file(viewer, found, run_id), root=found.path)

    return _page("diff.html", **diff_context(request.query_params, load, DIFFS, viewer.roots))


def diff_find(request: Request) -> Response:
    """A choice of two runs, sent on to their diff's address (303)."""
    viewer: Viewer = request.app.state.viewer
    left, right = find_pair(request.query_params, lambda key: _runs_table(viewer, key).rows)
    if left == right:
        raise HTTPException(
            422, "both sides are the same run: choose two variants, or two experiments"
        )
    return RedirectResponse(diff_url(left, right), status_code=303, headers=HEADERS)


def compare_variants(request: Request) -> Response:
    """Two variants of an experiment compared (:mod:`autobench.view._compare_page`)."""
    viewer: Viewer = request.app.state.viewer
    found = viewer.find(request.path_params["key"])
    loaded = _loaded(viewer, found.key)
    params = request.query_params
    pair = (params.get("baseline", ""), params.get("candidate", ""))
    if not all(pair):
        raise HTTPException(422, "choose a baseline and a candidate variant")
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


ASSETS = (
    "view.css",
    "view.js",
    "waterfall.js",
    "waterfall.css",
    "pages.css",
    "pages.js",
    "live.js",
)
"""The files under ``static/`` that are served."""


@functools.cache
def _asset(name: str) -> bytes:
    return (STATIC / name).read_bytes()


async def static(request: Request) -> Response:
    """One of :data:`ASSETS`, read once; served on the event loop itself (no worker thread
    to wait for while a load holds the interpreter), since a page waits for its style
    sheet before it shows anything."""
    name = request.path_params["name"]
    if name not in ASSETS:
        raise HTTPException(404, "no such asset")
    media = "text/css" if name.endswith(".css") else "text/javascript"
    return Response(_asset(name), media_type=media, headers=HEADERS)


EXPERIMENT_PAGES: tuple[tuple[re.Pattern[str], Callable[[Request], Response]], ...] = (
    (re.compile(r""), experiment),
    (re.compile(r"compare"), compare_variants),
    (re.compile(r"run/(?P<run_id>[^/]+)/spans"), _run_page.spans),
    (re.compile(r"run/(?P<run_id>[^/]+)/span/(?P<row>[^/]+)"), _run_page.span),
    (re.compile(r"run/(?P<run_id>[^/]+)"), _run_page.run_page),
    (re.compile(r"file/(?P<path>.+)"), file),
    (re.compile(r"image/(?P<path>.+)"), image),
    (re.compile(r"live/state"), experiment_state),
    (re.compile(r"live/body"), experiment_body),
)
"""The pages under ``/x/<experiment key>/``, by what follows the key."""


def experiment_pages(request: Request) -> Response:
    """Every page under ``/x/``: the experiment key is found first among the experiments
    discovered (the longest that starts the path, :func:`~autobench.view._discover.split_key`),
    then the rest of the path names the page (:data:`EXPERIMENT_PAGES`). Matching on keys
    first keeps an experiment directory named like a page (``run``, ``compare``, ...)
    reachable. 404 for an unknown experiment or page."""
    viewer: Viewer = request.app.state.viewer
    rest = request.path_params["rest"]
    split = split_key([found.key for found in viewer.experiments()], rest)
    if split is None:  # recorded since the last walk?
        split = split_key([found.key for found in viewer.walk()], rest)
    if split is None:
        raise HTTPException(404, "no such experiment")
    key, rest = split
    for pattern, handler in EXPERIMENT_PAGES:
        match = pattern.fullmatch(rest)
        if match is not None:
            request.scope["path_params"] = {"key": key, **match.groupdict()}
            return handler(request)
    raise HTTPException(404, "no such page")


async def _not_found(request: Request, exc: Exception) -> Response:
    detail = getattr(exc, "detail", "not found")
    code = getattr(exc, "status_code", 404)
    return _page("error.html", status=code, code=code, detail=detail)


def create_app(directories: Sequence[Path], *, preload: bool = False) -> Starlette:
    """The viewer over the experiments found (recursively) under ``directories``. Only GET
    and HEAD are routed: nothing can be written. When an experiment found holds a columnar
    index, the plugins are loaded here (:func:`~autobench.view._loading.prepare`); the
    templates are compiled here too. With ``preload`` every experiment found is loaded in
    the background from the start (``autobench view`` does). Raises ``FileNotFoundError``
    for a directory that does not exist."""
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
            Route("/x/{rest:path}", experiment_pages),
        ],
        exception_handlers={HTTPException: _not_found},
    )
    app.state.viewer = Viewer(directories)
    prepare(found.path for found in app.state.viewer.experiments())
    compile_templates()
    if preload:
        app.state.viewer.preload()
    return app
