"""The ``yaml`` export: a readable summary of the report as a ``report`` record.

Shape::

    record: {type: report, version: 1}
    report:
      benchmark, experiment, runs, planned, status: {passed, failed, errored, skipped}
      missing_runs: [run ids]                      (only when runs are missing)
      units: {semantic type: canonical unit}
      variants: {id: {label, factors}}
      leaderboard: {variant: {runs, metrics: {name: {metric, aggregate, value, n, total, unit}}}}
      cases: {case: {variant: {status, reason, metrics: {semantic type: value}}}}
      matrix: {metric, unit, cases: {case: {variant: value}}}
      compare: {"A -> B": {runs, confounded, changed_factors, unpaired, metrics}}
        (each metric: its aggregates, delta and statistics: {cases, informative,
         mean_delta, interval: {level, low, high}, test, p, p_holm, verdict, cases_needed})
      distributions: {name: {semantic, unit, variants: {variant: [values]}, summaries}}
      reliability: {k, level, interval: wilson, variants: {variant: {cases, pass_at_k,
        pass_hat_k (each {value, low, high}), flaky: [case ids], short: [case ids],
        cases_detail: {case: {runs, passed, pass_at_k, pass_hat_k, pass_rate_interval: {low, high},
        flaky}}}}}                                 (only under repeats)
      calibration: {score: {scale, labels_file, items, level, resamples, seed,
        statistics: {name: {estimate, low, high}}, confusion: {label: {score: count}},
        unlabelled_runs, unknown_labels, ambiguous_labels, unscored_runs}}
                                                   (only with labels stored beside the record)
      diagnostics: [text]

``value: null`` is "no value". The text is written with the record YAML
writer, so NaN, infinities and odd strings stay safe.
"""

from __future__ import annotations

from typing import Any

from autobench.records import ExperimentResult, render_sections
from autobench.report._model import (
    AggregateValue,
    Calibration,
    Comparison,
    Distribution,
    MetricStatistics,
    Reliability,
    Report,
)
from autobench.report._redaction import output_policy, redact_strings

REPORT_RECORD_VERSION = 1


def _aggregate(value: AggregateValue, metric: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {} if metric is None else {"metric": metric}
    data.update(aggregate=value.fn, value=value.value, n=value.n, total=value.total)
    if value.unit is not None:
        data["unit"] = value.unit
    if value.spread is not None:
        data["repeat_spread"] = value.spread
    return data


def _statistics(stats: MetricStatistics) -> dict[str, Any]:
    return {
        "cases": stats.n,
        "informative": stats.informative,
        "mean_delta": stats.mean_delta,
        "interval": {"level": stats.level, "low": stats.ci_low, "high": stats.ci_high},
        "test": stats.test,
        "p": stats.p_value,
        "p_holm": stats.p_adjusted,
        "verdict": stats.verdict.value,
        "cases_needed": stats.cases_needed,
    }


def _comparison(item: Comparison) -> dict[str, Any]:
    factors: dict[str, Any] = {}
    for change in item.changed_factors:
        entry: dict[str, Any] = {"baseline": change.baseline, "candidate": change.candidate}
        if change.only_in is not None:
            entry["only_in"] = change.only_in
        factors[change.name] = entry
    metrics: dict[str, Any] = {}
    for metric in item.metrics:
        metrics[metric.name] = {
            "metric": metric.semantic_type,
            "aggregate": metric.fn,
            **({"unit": metric.unit} if metric.unit is not None else {}),
            "baseline": metric.baseline.value,
            "candidate": metric.candidate.value,
            "delta": metric.delta,
            "n": {"baseline": metric.baseline.n, "candidate": metric.candidate.n},
            "total": {"baseline": metric.baseline.total, "candidate": metric.candidate.total},
        }
        if metric.statistics is not None:
            metrics[metric.name]["statistics"] = _statistics(metric.statistics)
    return {
        "runs": len(item.paired_cases),
        "confounded": item.confounded,
        "changed_factors": factors,
        "unpaired": {case.case: case.reason for case in item.unpaired},
        "metrics": metrics,
    }


def _distribution(item: Distribution) -> dict[str, Any]:
    return {
        "semantic": item.semantic_type,
        **({"unit": item.unit} if item.unit is not None else {}),
        "variants": {name: list(v.values) for name, v in item.variants.items()},
        "summaries": {
            name: {
                fn: {"value": agg.value, "n": agg.n, "total": agg.total}
                for fn, agg in v.summaries.items()
            }
            for name, v in item.variants.items()
        },
    }


def _reliability(item: Reliability) -> dict[str, Any]:
    return {
        "k": item.k,
        "level": item.level,
        "interval": "wilson",
        "variants": {
            variant.variant: {
                "cases": variant.cases,
                "pass_at_k": {
                    "value": variant.pass_at_k,
                    "low": variant.pass_at_k_low,
                    "high": variant.pass_at_k_high,
                },
                "pass_hat_k": {
                    "value": variant.pass_hat_k,
                    "low": variant.pass_hat_k_low,
                    "high": variant.pass_hat_k_high,
                },
                "flaky": list(variant.flaky),
                "short": list(variant.short),
                "cases_detail": {
                    case.case: {
                        "runs": case.runs,
                        "passed": case.passed,
                        "pass_at_k": case.pass_at_k,
                        "pass_hat_k": case.pass_hat_k,
                        "pass_rate_interval": {
                            "low": case.pass_rate_low,
                            "high": case.pass_rate_high,
                        },
                        "flaky": case.flaky,
                    }
                    for case in variant.by_case
                },
            }
            for variant in item.variants
        },
    }


def report_document(report: Report) -> dict[str, Any]:
    """The ``report:`` section as plain data (see the module docstring for its shape)."""
    body: dict[str, Any] = {
        "benchmark": report.benchmark,
        "experiment": report.experiment,
        "runs": report.runs,
        "planned": report.planned,
        "status": report.status.model_dump(mode="json"),
    }
    if report.missing_runs:
        body["missing_runs"] = list(report.missing_runs)
    body["units"] = dict(report.metric_units)
    body["variants"] = {
        variant.id: {
            **({"label": variant.label} if variant.label else {}),
            "factors": dict(variant.factors),
        }
        for variant in report.variants
    }
    if report.policies:
        body["policies"] = {
            policy.name: {
                **({"metric": policy.metric} if policy.metric else {}),
                "passed": dict(policy.passed),
                "failed": dict(policy.failed),
            }
            for policy in report.policies
        }
    body["leaderboard"] = {
        row.variant: {
            "runs": row.runs,
            "metrics": {
                column.name: _aggregate(row.metrics[column.name], column.semantic_type)
                for column in report.leaderboard.columns
            },
        }
        for row in report.leaderboard.rows
    }
    cases: dict[str, dict[str, Any]] = {}
    rows = report.run_rows  # read as columns: no row model per run
    for index in range(len(rows)):
        entry: dict[str, Any] = {"status": rows.statuses[index].value}
        reason = rows.reason(index)
        if reason is not None:
            entry["reason"] = reason
        entry["metrics"] = rows.metrics_of(index)
        cases.setdefault(rows.case_ids[index], {})[rows.variant_ids[index]] = entry
    body["cases"] = cases
    if report.matrix is not None:
        matrix = report.matrix
        body["matrix"] = {
            "metric": matrix.semantic_type,
            **({"unit": matrix.unit} if matrix.unit is not None else {}),
            "cases": {
                case: {variant: cell.value for variant, cell in row.items()}
                for case, row in matrix.cells.items()
            },
        }
    body["compare"] = {
        f"{item.baseline} -> {item.candidate}": _comparison(item) for item in report.comparisons
    }
    body["distributions"] = {item.name: _distribution(item) for item in report.distributions}
    if report.reliability is not None:
        body["reliability"] = _reliability(report.reliability)
    if report.calibrations:
        body["calibration"] = {
            item.score: calibration_document(item) for item in report.calibrations
        }
    body["diagnostics"] = list(report.diagnostics)
    return body


def calibration_document(item: Calibration) -> dict[str, Any]:
    """The plain-data view of a calibration (see the module docstring)."""
    return {
        "scale": item.scale,
        "labels_file": item.labels_file,
        "items": item.items,
        "level": item.level,
        "resamples": item.resamples,
        "seed": item.seed,
        "statistics": {
            statistic.name: {
                "estimate": statistic.estimate,
                "low": statistic.low,
                "high": statistic.high,
            }
            for statistic in item.statistics
        },
        "confusion": {
            label: dict(zip(item.categories, row, strict=True))
            for label, row in zip(item.categories, item.confusion, strict=True)
        },
        "unlabelled_runs": list(item.unlabelled_runs),
        "unknown_labels": list(item.unknown_labels),
        "ambiguous_labels": list(item.ambiguous_labels),
        "unscored_runs": list(item.unscored_runs),
    }


class YamlExporter:
    """``yaml``: the report summary as a ``report`` record (see :func:`report_document`)."""

    name = "yaml"
    extension = "yaml"
    description = "Readable report summary (a `report` record)."

    def export(self, report: Report, result: ExperimentResult) -> str:
        header = f"record:\n  type: report\n  version: {REPORT_RECORD_VERSION}\n"
        # Redacted as data, so a marker is written as the string it is, never read back as
        # YAML syntax (the text pass of every export then finds nothing left to change).
        document = redact_strings(report_document(report), output_policy(result))
        return header + render_sections({"report": document})
