"""The authoring DSL's own sections, compiled to structured models.

- ``run: {python: module:function, timeout, retries}`` -> :class:`TaskSpec`.
- ``score: {<name>: {<keyword>: <action>, semantic, role, goal, unit, optional}}``
  -> scorer models. ``<keyword>`` is any keyword of the scorer registry
  (``value``, ``pass``, ``exact`` built in; plugins add more) and each entry
  holds exactly one; the scorer kind turns it into its structured mapping
  (:meth:`ScorerSpec.from_dsl`). ``goal`` is the structured ``direction``.
- ``report: {leaderboard: {show: {<name>: {metric, aggregate}}}, matrix: {metric},
  compare: {"<baseline> -> <candidate>": {show: {...}}}, distributions: [{name,
  semantic_type, summaries}]}`` -> :class:`ReportSpec`.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from autobench.core.plugins import ScorerRegistry
from autobench.core.scoring import ScorerSpec
from autobench.core.spec._checks import expect_keys, expect_list, expect_mapping, validate_model
from autobench.core.spec._errors import SpecError, did_you_mean, one_of
from autobench.core.spec._execution import EXECUTION_KEYS, load_execution
from autobench.core.spec._models import (
    ComparisonReportSpec,
    DistributionReportSpec,
    LeaderboardReportSpec,
    MatrixReportSpec,
    MetricAggregation,
    ReportSpec,
    TaskSpec,
)
from autobench.core.spec._sections import check_target, locate_scorer, validate_scorer
from autobench.core.spec._yaml import Located

REPORT_KEYS = frozenset({"leaderboard", "matrix", "compare", "distributions"})
SHOW_ENTRY_KEYS = frozenset({"metric", "aggregate"})


def task_from_run(item: Located, base_dir: Path | None = None) -> TaskSpec | None:
    """``run: {python: module:function, timeout, retries}`` as a :class:`TaskSpec` (null for
    no task); ``timeout`` and ``retries`` per :mod:`._execution` (``retries.on`` names
    resolve from ``base_dir`` first)."""
    if item.value is None:
        return None
    expect_mapping(item, "run")
    expect_keys(item, {"python"} | EXECUTION_KEYS, "run")
    python = item.get("python")
    if python is None:
        raise SpecError(
            item.location,
            "run needs a 'python' target",
            expected="python: module:function (timeout and retries go beside it)",
        )
    return TaskSpec(
        kind="python",
        target=check_target(python),
        origin=str(python.location),
        **load_execution(item, base_dir),
    )


def scorers_from_dsl(item: Located, registry: ScorerRegistry) -> tuple[ScorerSpec, ...]:
    """The ``score`` mapping as scorer models (kinds and keywords of ``registry``), in
    declaration order."""
    keywords = "exactly one of: " + ", ".join(sorted(registry.by_keyword))
    expect_mapping(item, "score")
    scorers: list[ScorerSpec] = []
    for name, entry in item.items():
        if not isinstance(name, str) or not name:
            raise SpecError(
                entry.key_location,
                f"scorer name {name!r} must be a non-empty string",
                expected="a string",
            )
        what = f"scorer '{name}'"
        fields = expect_mapping(entry, what)
        actions = [key for key in fields if key in registry.by_keyword]
        if not actions:
            near = next(
                (
                    (entry.get(key), hint)
                    for key in fields
                    if (hint := did_you_mean(key, registry.by_keyword))
                ),
                None,
            )
            if near is not None and near[0] is not None:
                raise SpecError(
                    near[0].key_location,
                    f"{what} has no scoring action{near[1]}",
                    expected=keywords,
                )
            raise SpecError(entry.key_location, f"{what} has no scoring action", expected=keywords)
        if len(actions) > 1:
            second = entry.get(actions[1])
            assert second is not None
            raise SpecError(
                second.key_location,
                f"{what} has more than one scoring action ({', '.join(actions)})",
                expected=keywords,
            )
        keyword = actions[0]
        model = registry.by_keyword[keyword]
        expect_keys(entry, model.dsl_options() | {keyword}, what)
        action = entry.get(keyword)
        assert action is not None
        options = {key: value for key, value in fields.items() if key != keyword}
        try:
            data = model.from_dsl(name, action.value, options)
        except ValueError as exc:
            raise SpecError(action.location, f"invalid {what}: {exc}") from None
        scorers.append(
            locate_scorer(validate_scorer(data, entry, what, registry, action), entry, action)
        )
    return tuple(scorers)


def report_from_dsl(item: Located, variant_ids: Collection[str] = ()) -> ReportSpec:
    """The ``report`` section as a :class:`ReportSpec`; comparisons must name
    variants in ``variant_ids`` (when it is not empty)."""
    expect_mapping(item, "report")
    expect_keys(item, REPORT_KEYS, "report")
    leaderboard = matrix = None
    comparisons: list[ComparisonReportSpec] = []
    distributions: list[DistributionReportSpec] = []
    if (section := item.get("leaderboard")) is not None:
        expect_mapping(section, "report leaderboard")
        expect_keys(section, {"show"}, "report leaderboard")
        leaderboard = LeaderboardReportSpec(
            metrics=_show(section.get("show"), "report leaderboard")
        )
    if (section := item.get("matrix")) is not None:
        fields = expect_mapping(section, "report matrix")
        expect_keys(section, {"metric"}, "report matrix")
        matrix = validate_model(MatrixReportSpec, fields, section, "report matrix")
    if (section := item.get("compare")) is not None:
        expect_mapping(section, "report compare")
        for pair, entry in section.items():
            baseline, arrow, candidate = str(pair).partition("->")
            if not arrow or not baseline.strip() or not candidate.strip():
                raise SpecError(
                    entry.key_location,
                    f"comparison {pair!r} must name two variants",
                    expected="'<baseline> -> <candidate>'",
                )
            what = f"comparison '{pair}'"
            for side in (baseline.strip(), candidate.strip()):
                if variant_ids and side not in variant_ids:
                    raise SpecError(
                        entry.key_location,
                        f"{what} names unknown variant '{side}'",
                        expected=one_of(variant_ids),
                    )
            expect_mapping(entry, what)
            expect_keys(entry, {"show"}, what)
            metrics = _show(entry.get("show"), what)
            comparisons.append(
                ComparisonReportSpec(
                    baseline=baseline.strip(), candidate=candidate.strip(), metrics=metrics
                )
            )
    if (section := item.get("distributions")) is not None:
        expect_list(section, "report distributions")
        for entry in section.elements():
            fields = expect_mapping(entry, "a report distribution")
            distributions.append(
                validate_model(DistributionReportSpec, fields, entry, "a report distribution")
            )
    return ReportSpec(
        leaderboard=leaderboard,
        matrix=matrix,
        comparisons=tuple(comparisons),
        distributions=tuple(distributions),
    )


def _show(item: Located | None, what: str) -> tuple[MetricAggregation, ...]:
    """``show: {<name>: {metric, aggregate}}`` (aggregate defaults to ``mean``)."""
    if item is None:
        return ()
    expect_mapping(item, f"'show' of {what}")
    metrics: list[MetricAggregation] = []
    for name, entry in item.items():
        entry_what = f"metric '{name}' of {what}"
        fields = expect_mapping(entry, entry_what)
        expect_keys(entry, SHOW_ENTRY_KEYS, entry_what)
        metrics.append(
            validate_model(MetricAggregation, {"name": name, **fields}, entry, entry_what)
        )
    return tuple(metrics)
