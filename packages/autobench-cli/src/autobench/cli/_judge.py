"""``autobench judge calibrate``: how a score (a judge's, or any scorer's) agrees with
human labels of the same runs; ``autobench judge pairwise``: a judge compares two recorded
variants case by case (the judging itself is autobench-judge's, imported when asked)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

import click

from autobench.cli._agreement_gate import agreement_bound, agreement_failures
from autobench.cli._console import stdout_console, user_errors
from autobench.cli._output import exit_for_gate
from autobench.cli._plugins import command_plugins
from autobench.cli._rescore import apply_rescored, rescored_banner, rescored_option

if TYPE_CHECKING:
    from autobench.records import LabelsFile

# The records and the report (numpy with it) are imported when a command runs: `--help` needs
# neither. Its defaults are these constants, which a test keeps equal to the report's and
# the records' own (tests/cli/test_lazy_imports.py).
LABELS_FILE = "labels.yaml"
"""``autobench.records.LABELS_FILE``."""
CALIBRATION_RESAMPLES = 2000
"""``autobench.report._calibration.CALIBRATION_RESAMPLES``."""
CALIBRATION_SEED = 20260101
"""``autobench.report._calibration.CALIBRATION_SEED``."""


@click.group("judge")
def judge_group() -> None:
    """Judges: check a score against what people say about the same outputs."""


def _parse_bounds(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> frozenset[str]:
    if value is None:
        return frozenset()
    bounds = set()
    for part in (part.strip().lower() for part in value.split(",")):
        if not part:
            continue
        bound = agreement_bound(part)
        if bound is None:
            raise click.BadParameter(
                f"{part!r} is not an agreement bound; write e.g. 'kappa<0.6' or 'fpr>0.1'"
            )
        bounds.add(bound)
    return frozenset(bounds)


@judge_group.command("calibrate")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help=f"The labels file (YAML or CSV). Default: {LABELS_FILE} in DIR.",
)
@click.option(
    "--score",
    metavar="NAME",
    help="The score to calibrate (a scorer's or judge's name). Default: the one the labels "
    "file names.",
)
@click.option(
    "--store",
    is_flag=True,
    help=f"Also keep the labels in DIR/{LABELS_FILE}, so `autobench report DIR` shows this "
    "calibration beside the scores (refuses to replace different labels there without "
    "--replace).",
)
@rescored_option
@click.option("--replace", is_flag=True, help=f"With --store: replace DIR/{LABELS_FILE}.")
@click.option(
    "--level",
    type=click.FloatRange(0.5, 1, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence level of the intervals.",
)
@click.option(
    "--resamples",
    type=click.IntRange(100),
    default=CALIBRATION_RESAMPLES,
    show_default=True,
    help="Bootstrap resamples of the labelled runs.",
)
@click.option(
    "--seed",
    type=int,
    default=CALIBRATION_SEED,
    show_default=True,
    help="Seed of the bootstrap (the same labels and seed give the same intervals).",
)
@click.option(
    "--fail-on",
    "bounds",
    callback=_parse_bounds,
    metavar="BOUNDS",
    help="Exit with code 3 when the agreement is below a floor (comma-separated, quoted in "
    "a shell: 'kappa<0.6', 'accuracy<0.8', 'kappa_linear<0.6', 'kappa_quadratic<0.7', "
    "'tpr<0.9') or the false positive rate above a ceiling ('fpr>0.1'). The point "
    "estimate is compared; an undefined statistic trips the gate.",
)
def calibrate_command(
    record_dir: Path,
    labels_path: Path | None,
    score: str | None,
    store: bool,
    rescored: tuple[str, ...],
    replace: bool,
    level: float,
    resamples: int,
    seed: int,
    bounds: frozenset[str],
) -> None:
    """Compare a score of the runs recorded in DIR with human labels.

    Shows accuracy and Cohen's kappa (weighted kappa, linear and quadratic, for an
    integer scale; true and false positive rates for pass/fail), each with a seeded
    bootstrap interval over the labelled runs, the confusion matrix, and every run
    without a label and label without a run. With --rescored NAME, the scores of that
    re-scoring (`autobench rescore`) are calibrated in place of the recorded ones.
    """
    from autobench.cli._replayed import replayed
    from autobench.records import LabelsFile, read_labels
    from autobench.report import CalibrationError, calibrate, output_policy
    from autobench.report._render_calibration import render_calibration

    stored = record_dir / LABELS_FILE
    source = stored if labels_path is None else labels_path
    with user_errors():
        labels = read_labels(source)
        score = score or labels.score
        if score is None:
            raise CalibrationError(f"{source} names no score: give --score NAME")
        result = apply_rescored(replayed(record_dir, evidence_only=True), rescored)
        banner = rescored_banner(result, rescored)
        calibration = calibrate(
            result,
            labels,
            score,
            level=level,
            resamples=resamples,
            seed=seed,
            labels_file=str(source),
        )
        if store:
            _store(stored, LabelsFile(score=score, labels=labels.labels), replace=replace)
    console = stdout_console(output_policy(result))
    if banner is not None:
        console.print(banner, soft_wrap=True)
    console.print(render_calibration(calibration))
    if store:
        click.echo(f"labels kept in {stored}")
    exit_for_gate(agreement_failures([calibration], bounds, where=str(source)))


def _store(path: Path, labels: LabelsFile, *, replace: bool) -> None:
    from autobench.records import RecordingError, read_labels, write_labels

    if path.exists() and not replace:
        try:
            same = read_labels(path) == labels
        except Exception:  # an unreadable file is different labels too
            same = False
        if not same:
            raise RecordingError(
                f"{path} already holds other labels; pass --replace to replace them",
                path=path,
            )
    write_labels(path, labels)


@judge_group.command("pairwise")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--judge",
    "judge",
    required=True,
    metavar="NAME",
    help="The judge: a `judge:` scorer of the recorded spec (or of --spec).",
)
@click.option("--baseline", required=True, metavar="VARIANT", help="The baseline variant.")
@click.option("--candidate", required=True, metavar="VARIANT", help="The candidate variant.")
@click.option(
    "--spec",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Take the judge from this spec file instead of the recorded spec.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Maximum number of cases judged at once.",
)
@click.option(
    "--level",
    type=click.FloatRange(0.5, 1, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence level of the intervals and the sign test.",
)
@click.option(
    "--cassette",
    "cassette_mode",
    type=click.Choice(["record", "replay", "replay-or-record"]),
    help="record: keep the judge's HTTP exchanges beside the derived record "
    "(<baseline>~<candidate>.cassette.json). replay: answer them from the cassettes of this "
    "judge and pair in --cassette-from FROM_DIR (default DIR), offline; a request that "
    "matches nothing is that order's error. replay-or-record: send and record it instead.",
)
@click.option(
    "--cassette-from",
    "cassette_dir",
    metavar="FROM_DIR",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="The record directory whose pairwise cassettes --cassette replay uses (default: DIR).",
)
def pairwise_command(
    record_dir: Path,
    judge: str,
    baseline: str,
    candidate: str,
    spec: Path | None,
    concurrency: int,
    level: float,
    cassette_mode: str | None,
    cassette_dir: Path | None,
) -> None:
    """Judge two recorded variants against each other, case by case, without running the task.

    For every case both variants recorded, the judge NAME (a `judge:` scorer, reused with
    its model, rubric and inputs) is shown both outputs and says which is better, or a
    tie: once with the baseline first, once with the candidate first. Both answers make
    the case's outcome for the candidate (they disagree: a tie). Shows win/tie/loss rates
    with Wilson intervals, a sign test of wins against losses (ties left out) and the
    position bias (how often the order flips the verdict; how often the response shown
    first wins). The judge's spend is kept apart from the application's.

    The result is a derived record with lineage,
    DIR/derived/pairwise/<judge>/<definition hash>/<baseline>~<candidate>.yaml; the run
    files are never touched. `autobench report DIR` shows it in the headline of that pair.
    Judging the same pair again with the same judge shows the stored record.
    """
    import asyncio

    from autobench.report._pairwise import pairwise_lines, pairwise_summary

    with user_errors():
        try:
            pairwise = importlib.import_module("autobench.judge._pairwise")
        except ImportError as exc:
            raise click.UsageError(
                "pairwise judging needs the judge distribution: pip install 'autobench[judge]' "
                f"({exc})"
            ) from None
        if cassette_dir is not None and cassette_mode in (None, "record"):
            raise click.UsageError("--cassette-from only applies to --cassette replay")
        cassettes = None
        if cassette_mode is not None:
            from autobench.judge._pairwise_cassette import pairwise_cassettes

            cassettes = pairwise_cassettes(
                cassette_mode,  # type: ignore[arg-type]
                cassette_dir or record_dir,
                judge,
                baseline,
                candidate,
            )
        outcome = asyncio.run(
            pairwise.judge_pairwise(
                record_dir,
                judge,
                baseline,
                candidate,
                spec=spec,
                plugins=command_plugins(),
                concurrency=concurrency,
                cassettes=cassettes,
            )
        )
    summary = pairwise_summary(outcome.record, level=level)
    for line in pairwise_lines(summary):
        click.echo(line)
    what = "already judged, kept" if outcome.kept else "written"
    click.echo(f"{what}: {record_dir / (outcome.record.path or '')}")
