"""What the experiment page shows of a load underway or a record still being written, and
the small JSON state ``static/live.js`` polls to bring the page up to date.

The page's changing part (ids, status and progress lines, headline, leaderboard, runs
table) is one template, ``experiment_body.html``, rendered whole into the page and alone as
the fragment the script swaps in when the state's ``generation`` changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autobench.report._html_figures import leaderboard_formats
from autobench.report._html_views import headline_view, leaderboard_view
from autobench.view._discover import Found
from autobench.view._loading import Snapshot
from autobench.view._runs import Query, select


def recording_line(snapshot: Snapshot) -> str:
    """``"recording: N of M runs"`` while runs of the loaded experiment are missing and no
    session of it has finished (no summary yet), else ``""``."""
    loaded = snapshot.loaded
    if loaded is None:
        return ""
    result = loaded.result
    recorded, planned = len(result.runs), len(result.experiment.plan)
    if recorded >= planned or result.summary is not None:
        return ""
    return f"recording: {recorded:,} of {planned:,} runs"


def state(snapshot: Snapshot) -> dict[str, Any]:
    """The JSON the page polls: ``generation`` (grows with each new load), ``loading``,
    ``progress`` and ``recording`` lines (``""`` when there is nothing to say), the recorded
    and planned run counts of the current load (``null`` before the first), and ``problem``,
    why the last load failed (``null`` when it did not)."""
    loaded = snapshot.loaded
    return {
        "generation": snapshot.generation,
        "loading": snapshot.loading,
        "progress": snapshot.progress,
        "recording": recording_line(snapshot),
        "runs": None if loaded is None else len(loaded.result.runs),
        "planned": None if loaded is None else len(loaded.result.experiment.plan),
        "problem": snapshot.problem,
    }


def body_values(
    found: Found, snapshot: Snapshot, query: Query, params: Mapping[str, str]
) -> dict[str, Any]:
    """The values ``experiment_body.html`` renders: the snapshot's load (when there is one)
    with the page of runs ``query`` asks for; ``params`` are the query's parameters but the
    page number, for the pager's links."""
    values: dict[str, Any] = {
        "found": found,
        "snapshot": snapshot,
        "recording": recording_line(snapshot),
        "title": snapshot.experiment or found.key,
        "benchmark": snapshot.benchmark or "",
    }
    loaded = snapshot.loaded
    if loaded is None:
        return values
    report = loaded.report
    return {
        **values,
        "title": report.experiment,
        "benchmark": report.benchmark,
        "report": report,
        "headline": headline_view(report),
        "leaderboard": leaderboard_view(report, leaderboard_formats(report)),
        "page": select(loaded.rows, query),
        "query": query,
        "params": dict(params),
        "choices": loaded.choices,
        "diagnostics": report.diagnostics,
        "from_index": loaded.from_index,
    }
