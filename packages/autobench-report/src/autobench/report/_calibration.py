"""Calibration of a score (a judge's, or any scorer's) against human labels of the same runs.

:func:`calibrate` matches each label to its run (by ``run_id``, or by ``case`` and
``variant`` when that names one run), reads the label on the score's scale, and reports the
agreement statistics of :mod:`autobench.report._agreement` with bootstrap intervals and the
confusion matrix. Nothing is dropped in silence: runs without a label, labels of no run,
labels naming several runs (repeats) and labelled runs without a value of the score are
counted and listed.

The scale is read from the score's recorded values: all booleans is **pass/fail** (false,
then true: true is the positive category); all integers is an **integer** scale, ordered,
whose categories run from the smallest to the largest value either rater used (so the
weights of weighted kappa measure real distances); anything else is **labels**, named
categories in sorted order (no weighted kappa, no rates).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autobench.abp import AutobenchError
from autobench.records import LABELS_FILE, ExperimentResult, Label, LabelsFile, RunRecord
from autobench.records import read_labels as read_labels_file
from autobench.report._model import AgreementStatistic, Calibration, Scale

if TYPE_CHECKING:
    from autobench.report._agreement import Statistic

# The statistics (numpy) are imported when a score is calibrated: a report without labels,
# and `autobench run` before its first run, never load numpy.

CALIBRATION_RESAMPLES = 2000
"""Bootstrap resamples of the labelled items behind each interval."""
CALIBRATION_SEED = 20260101
"""The seed of the calibration bootstrap (reproducible intervals)."""

STATISTIC_TITLES = {
    "accuracy": "accuracy",
    "kappa": "Cohen's kappa",
    "kappa_linear": "weighted kappa (linear)",
    "kappa_quadratic": "weighted kappa (quadratic)",
    "tpr": "true positive rate",
    "fpr": "false positive rate",
}
"""The statistics a calibration may report, by the names ``--fail-on`` uses."""

_TRUE = frozenset({"true", "pass", "passed", "yes", "y", "1", "t", "p"})
_FALSE = frozenset({"false", "fail", "failed", "no", "n", "0", "f"})


class CalibrationError(AutobenchError, ValueError):
    """Labels that cannot be compared with the score: no run has the score, a label not on
    its scale, or two labels for one run."""


def _score_value(run: RunRecord, score: str) -> Any:
    for item in run.scores:
        if item.name == score and item.error is None and item.value is not None:
            return item.value
    return None


def score_scale(values: Sequence[Any]) -> Scale:
    """The scale of a score's recorded ``values`` (see the module docstring)."""
    if values and all(isinstance(value, bool) for value in values):
        return "pass/fail"
    if values and all(isinstance(value, int) and not isinstance(value, bool) for value in values):
        return "integer"
    return "labels"


def read_label(value: Any, scale: Scale) -> Any:
    """A label (as typed in YAML, or a CSV cell's text) on ``scale``: a bool for pass/fail
    (``true``/``false``, ``pass``/``fail``, ``yes``/``no``, ``1``/``0``), an int for an
    integer scale, text for labels. Raises ``ValueError`` when it is not on the scale."""
    if scale == "pass/fail":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError(f"{value!r} is not pass/fail (true/false, pass/fail, yes/no, 1/0)")
    if scale == "integer":
        if isinstance(value, bool):
            raise ValueError(f"{value!r} is not an integer")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        try:
            return int(str(value).strip())
        except ValueError:
            raise ValueError(f"{value!r} is not an integer") from None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip()


def _category_text(value: Any) -> str:
    if isinstance(value, bool):
        return "pass" if value else "fail"
    return str(value)


def _match(
    result: ExperimentResult, labels: Sequence[Label]
) -> tuple[dict[str, Label], list[str], list[str]]:
    by_id = {run.run_id: run for run in result.runs}
    by_pair: dict[tuple[str, str], list[str]] = {}
    for run in result.runs:
        by_pair.setdefault((run.case_id, run.variant_id), []).append(run.run_id)
    matched: dict[str, Label] = {}
    unknown: list[str] = []
    ambiguous: list[str] = []
    for label in labels:
        if label.run_id is not None:
            run_ids = [label.run_id] if label.run_id in by_id else []
        else:
            run_ids = by_pair.get((str(label.case), str(label.variant)), [])
        if not run_ids:
            unknown.append(label.item)
            continue
        if len(run_ids) > 1:
            ambiguous.append(f"{label.item} ({len(run_ids)} runs)")
            continue
        if run_ids[0] in matched:
            raise CalibrationError(
                f"two labels for run {run_ids[0]} ({matched[run_ids[0]].item} and {label.item})"
            )
        matched[run_ids[0]] = label
    return matched, unknown, ambiguous


def calibrate(
    result: ExperimentResult,
    labels: LabelsFile,
    score: str,
    *,
    level: float = 0.95,
    resamples: int = CALIBRATION_RESAMPLES,
    seed: int = CALIBRATION_SEED,
    labels_file: str | None = None,
) -> Calibration:
    """The agreement of the score ``score`` of ``result``'s runs with ``labels``.

    Reports accuracy and Cohen's kappa on every scale; linear and quadratic weighted kappa
    on an integer scale; true and false positive rates on pass/fail (the person is the
    reference). Intervals: two-sided ``level``, ``resamples`` bootstrap resamples of the
    labelled items seeded with ``seed``. ``labels_file`` names the source in the report.
    Raises :class:`CalibrationError` when no run has a value of ``score`` (naming the
    scores there are), when the file names another score, for a label not on the scale,
    and for two labels of one run."""
    if labels.score is not None and labels.score != score:
        raise CalibrationError(
            f"the labels are for score {labels.score!r}, not {score!r}"
            + (f" ({labels_file})" if labels_file else "")
        )
    values = {run.run_id: _score_value(run, score) for run in result.runs}
    recorded = [value for value in values.values() if value is not None]
    if not recorded:
        names = sorted({item.name for run in result.runs for item in run.scores})
        raise CalibrationError(
            f"no run has a value of score {score!r}; scores recorded: "
            + (", ".join(names) or "none")
        )
    scale = score_scale(recorded)
    matched, unknown, ambiguous = _match(result, labels.labels)
    pairs: list[tuple[Any, Any]] = []
    unscored: list[str] = []
    for run_id, label in matched.items():
        try:
            human = read_label(label.label, scale)
        except ValueError as exc:
            raise CalibrationError(
                f"{label.item}: the label {exc} (score {score!r} is {scale})"
            ) from None
        judged = values[run_id]
        if judged is None:
            unscored.append(run_id)
            continue
        pairs.append((human, read_label(judged, scale)))
    categories = _categories(scale, pairs, recorded)
    index = {value: position for position, value in enumerate(categories)}
    reference = [index[human] for human, _ in pairs]
    rated = [index[judged] for _, judged in pairs]
    from autobench.report._agreement import bootstrap_intervals

    found = bootstrap_intervals(
        reference,
        rated,
        len(categories),
        _statistics(scale),
        level=level,
        resamples=resamples,
        seed=seed,
    )
    table = [[0] * len(categories) for _ in categories]
    for row, column in zip(reference, rated, strict=True):
        table[row][column] += 1
    return Calibration(
        score=score,
        scale=scale,
        labels_file=labels_file,
        items=len(pairs),
        categories=tuple(_category_text(value) for value in categories),
        confusion=tuple(tuple(row) for row in table),
        statistics=tuple(
            AgreementStatistic(name=name, estimate=item.estimate, low=item.low, high=item.high)
            for name, item in found.items()
        ),
        level=level,
        resamples=resamples,
        seed=seed,
        unlabelled_runs=tuple(
            run_id
            for run_id, value in values.items()
            if value is not None and run_id not in matched
        ),
        unknown_labels=tuple(unknown),
        ambiguous_labels=tuple(ambiguous),
        unscored_runs=tuple(unscored),
    )


def _categories(
    scale: Scale, pairs: Sequence[tuple[Any, Any]], recorded: Sequence[Any]
) -> list[Any]:
    if scale == "pass/fail":
        return [False, True]
    seen = {value for pair in pairs for value in pair} | {read_label(v, scale) for v in recorded}
    if scale == "integer":
        return list(range(min(seen), max(seen) + 1))
    return sorted(seen)


def _statistics(scale: Scale) -> dict[str, Statistic]:
    from autobench.report._agreement import (
        accuracy,
        cohen_kappa,
        false_positive_rate,
        true_positive_rate,
        weighted_kappa,
    )

    statistics: dict[str, Statistic] = {"accuracy": accuracy, "kappa": cohen_kappa}
    if scale == "integer":
        statistics["kappa_linear"] = lambda table: weighted_kappa(table, "linear")
        statistics["kappa_quadratic"] = lambda table: weighted_kappa(table, "quadratic")
    if scale == "pass/fail":
        statistics["tpr"] = true_positive_rate
        statistics["fpr"] = false_positive_rate
    return statistics


def stored_labels_path(result: ExperimentResult) -> Path | None:
    """The labels file stored beside ``result``'s record (``labels.yaml`` in its
    directory), or ``None`` when there is none (or no record directory)."""
    if result.root_dir is None:
        return None
    path = Path(result.root_dir) / LABELS_FILE
    return path if path.is_file() else None


def stored_calibrations(result: ExperimentResult) -> tuple[Calibration, ...]:
    """The calibration of the score named by the labels file stored beside ``result``'s
    record (empty when there is none). Raises :class:`CalibrationError` when that file
    names no score, and what :func:`calibrate` and reading the file raise."""
    path = stored_labels_path(result)
    if path is None:
        return ()
    labels = read_labels_file(path)
    if labels.score is None:
        raise CalibrationError(f"{path}: a stored labels file names its score (`score:`)")
    return (calibrate(result, labels, labels.score, labels_file=LABELS_FILE),)
