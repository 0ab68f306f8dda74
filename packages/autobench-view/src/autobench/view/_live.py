"""What the experiment page shows of a load underway or a record still being written, and
the small JSON state ``static/live.js`` polls to bring the page up to date.

The page's changing part (ids, status and progress lines, headline, leaderboard, runs
table) is one template, ``experiment_body.html``, rendered whole into the page and alone as
the fragment the script swaps in when the state's ``generation`` changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from autobench.report._html_figures import leaderboard_formats
from autobench.report._html_views import headline_view, leaderboard_view
from autobench.view._discover import Found
from autobench.view._loading import Snapshot
from autobench.view._runs import Query, select

INDEX_HINT_RUNS = 2000
"""From this many runs, a finished experiment read from its YAML files says how to make the
next first load fast: a columnar index (``autobench index DIR``)."""


def recording_line(snapshot: Snapshot) -> str:
    """``"recording: N of M runs"`` while runs of the loaded experiment are missing and no
    session of it has finished (no summary yet), else ``""``."""
    table = snapshot.table
    if table is None:
        return ""
    result = table.result
    recorded, planned = len(result.runs), len(result.experiment.plan)
    if recorded >= planned or result.summary is not None:
        return ""
    return f"recording: {recorded:,} of {planned:,} runs"


def state(snapshot: Snapshot) -> dict[str, Any]:
    """The JSON the page polls: ``generation`` (grows with each new load, and once more
    when a first load's report joins its runs table), ``loading``, ``progress`` and
    ``recording`` lines (``""`` when there is nothing to say), the recorded and planned run
    counts of the runs table served (``null`` before the first), ``report``, whether the
    headline and leaderboard are served too, ``problem``, why the last load failed
    (``null`` when it did not), and ``problem_line``, the page's line about it (``""``
    when there is none)."""
    table = snapshot.table
    return {
        "generation": snapshot.generation,
        "loading": snapshot.loading,
        "progress": snapshot.progress,
        "recording": recording_line(snapshot),
        "runs": None if table is None else len(table.result.runs),
        "planned": None if table is None else len(table.result.experiment.plan),
        "report": snapshot.loaded is not None,
        "problem": snapshot.problem,
        "problem_line": snapshot.problem_line,
    }


def body_values(
    found: Found, snapshot: Snapshot, query: Query, params: Mapping[str, str]
) -> dict[str, Any]:
    """The values ``experiment_body.html`` renders: the snapshot's runs table (when there
    is one: ``runs``, ``planned`` and ``counts`` by status, the page of runs ``query`` asks
    for) and its report (when built: headline, leaderboard, diagnostics); ``params`` are
    the query's parameters but the page number, for the pager's links."""
    values: dict[str, Any] = {
        "found": found,
        "snapshot": snapshot,
        "recording": recording_line(snapshot),
        "title": snapshot.experiment or found.key,
        "benchmark": snapshot.benchmark or "",
    }
    table = snapshot.table
    if table is None:
        return values
    result = table.result
    values = {
        **values,
        "title": result.experiment_id,
        "benchmark": result.benchmark_id,
        "runs": len(result.runs),
        "planned": len(result.experiment.plan),
        "counts": Counter(row.status for row in table.rows),
        "page": select(table.rows, query),
        "query": query,
        "params": dict(params),
        "choices": table.choices,
        "from_index": table.from_index,
        "index_hint": (
            not table.from_index and len(result.runs) >= INDEX_HINT_RUNS and not values["recording"]
        ),
    }
    loaded = snapshot.loaded
    if loaded is None:
        return values
    report = loaded.report
    return {
        **values,
        "report": report,
        "headline": headline_view(report),
        "leaderboard": leaderboard_view(report, leaderboard_formats(report)),
        "diagnostics": report.diagnostics,
    }
