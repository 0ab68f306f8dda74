"""The compare page: two variants of an experiment, or two experiments, compared by the
functions ``autobench compare`` calls (:func:`~autobench.report.compare_variants_with_headline`,
:func:`~autobench.report.compare_experiments`) and shown with the HTML report's views of
their models (no second computation, the same numbers and words as the report)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException

from autobench.abp import AutobenchError
from autobench.records import ExperimentResult
from autobench.report import (
    Headline,
    Report,
    UnknownVariantError,
    compare_experiments,
    compare_variants_with_headline,
)
from autobench.report._headline_text import comparison_title, item_text, pareto_text
from autobench.report._html_figures import leaderboard_formats
from autobench.report._html_views import comparison_view, verdict_class
from autobench.report._model import DEFAULT_LEVEL


def level_of(params: Mapping[str, str]) -> float:
    """The confidence level asked for (``level``, default 0.95), as ``autobench compare
    --level`` takes it: at least 0.5 and below 1. Raises ``HTTPException`` 422 otherwise."""
    text = params.get("level", "")
    if not text:
        return DEFAULT_LEVEL
    try:
        level = float(text)
    except ValueError:
        level = -1.0
    if not 0.5 <= level < 1:
        raise HTTPException(
            422, f"level must be a number from 0.5 up to (not including) 1, not {text!r}"
        )
    return level


class Computed:
    """The last few comparisons, by what they were computed from (kept alive with the
    result objects they came from, so a key is never reused for another record)."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = OrderedDict()

    def get(self, key: tuple[Any, ...], keep: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """The value computed for ``key`` from the very objects ``keep`` (compared by
        identity: a record read again is computed again), else ``compute()``."""
        with self._lock:
            found = self._items.get(key)
            if found is None or any(a is not b for a, b in zip(found[0], keep, strict=True)):
                found = (keep, compute())
                self._items[key] = found
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            self._items.move_to_end(key)
            return found[1]


def headline_items(headline: Headline) -> list[dict[str, Any]]:
    """Each headline comparison's title and its items (text and verdict CSS class), in the
    report's wording."""
    views = []
    for comparison in headline.comparisons:
        level = next((i.level for i in comparison.items if i.level is not None), None)
        views.append(
            {
                "title": comparison_title(comparison, level),
                "items": [(item_text(i), verdict_class(i.verdict)) for i in comparison.items],
            }
        )
    return views


def _formats(report: Report) -> dict[tuple[str, str], Any]:
    formats = leaderboard_formats(report)
    return {(c.semantic_type, c.fn): formats[c.name] for c in report.leaderboard.columns}


def variants_view(
    result: ExperimentResult, report: Report, baseline: str, candidate: str, level: float
) -> dict[str, Any]:
    """Two variants of one experiment, as ``autobench compare DIR --baseline --candidate``
    computes them. Raises ``HTTPException`` 404 for a variant the experiment does not have,
    422 for the same variant twice or a record the comparison cannot read."""
    if baseline == candidate:
        raise HTTPException(422, "choose two different variants")
    try:
        comparison, headline = compare_variants_with_headline(
            result, baseline, candidate, level=level
        )
    except UnknownVariantError as exc:
        raise HTTPException(404, str(exc)) from exc
    except (AutobenchError, ValueError) as exc:
        raise HTTPException(422, f"these variants cannot be compared: {exc}") from exc
    return {
        "headline": headline_items(headline),
        "comparisons": [comparison_view(comparison, _formats(report))],
    }


def experiments_view(
    baseline: ExperimentResult, report: Report, candidate: ExperimentResult, level: float
) -> dict[str, Any]:
    """Two experiments, paired by case and variant, as ``autobench compare BASELINE_DIR
    CANDIDATE_DIR`` computes them (numbers in the baseline report's notation). Raises
    ``HTTPException`` 422 when the comparison cannot read a record."""
    try:
        across = compare_experiments(baseline, candidate, level=level)
    except (AutobenchError, ValueError) as exc:
        raise HTTPException(422, f"these experiments cannot be compared: {exc}") from exc
    formats = _formats(report)
    pareto = across.headline.pareto
    return {
        "headline": headline_items(across.headline),
        "pareto": None if pareto is None else pareto_text(pareto),
        "comparisons": [comparison_view(item, formats) for item in across.comparisons],
        "changed": [
            f"{item} hash changed" if item in ("spec", "dataset") else f"{item} changed"
            for item in across.changed
        ],
        "only": [
            (label, items)
            for label, items in (
                ("variants only in the baseline", across.variants_only_in_baseline),
                ("variants only in the candidate", across.variants_only_in_candidate),
                ("cases only in the baseline", across.cases_only_in_baseline),
                ("cases only in the candidate", across.cases_only_in_candidate),
            )
            if items
        ],
    }
