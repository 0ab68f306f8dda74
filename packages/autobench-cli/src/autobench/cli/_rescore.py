"""``autobench rescore``: run scorers again on a recorded experiment's outputs, without
its task, and write derived records; ``--rescored NAME`` lets ``report``/``compare`` show
them."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from autobench.cli._console import stderr_console, stdout_console, user_errors
from autobench.cli._plugins import command_plugins

if TYPE_CHECKING:
    from rich.progress import Progress

    from autobench.core.rescore import RescoreOutcome
    from autobench.core.runtime import CassetteSetup, ProgressEvent
    from autobench.records import ExperimentResult, RescoreRecord

# The runtime, the records and Rich's progress bar are imported when a command uses them:
# `rescore --help` (and the `--help` of the commands sharing --rescored) needs none of them.

_EPILOG = """\b
Examples:
  autobench rescore runs/latest --score correct
  autobench rescore runs/latest --score answer_quality --spec autobench.yaml
  autobench report runs/latest --rescored answer_quality
"""


class _ProgressBar:
    """Feeds re-scoring progress events into a Rich progress bar on stderr."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task = progress.add_task("rescoring", total=None, status="")
        self._errored = 0

    def __call__(self, event: ProgressEvent) -> None:
        from autobench.core.runtime import ProgressEventKind

        if event.kind is ProgressEventKind.EXPERIMENT_STARTED:
            self._progress.update(self._task, total=event.total)
        elif event.kind is ProgressEventKind.RUN_FINISHED:
            self._errored += event.status == "errored"
            status = f"scorer errors on {self._errored} runs" if self._errored else ""
            self._progress.update(self._task, advance=1, status=status)


@click.command("rescore", epilog=_EPILOG)
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--score",
    "names",
    multiple=True,
    required=True,
    metavar="NAME",
    help="A scorer to run (repeatable): one of the recorded spec's scorers, or of --spec.",
)
@click.option(
    "--spec",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Take the scorers from this spec file instead of the recorded spec: a new scorer, "
    "or a changed one (another threshold, a new rubric). Its targets resolve from its "
    "directory.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Maximum number of runs scored at once (scorers that await, such as model "
    "judges, overlap).",
)
@click.option(
    "--cassette",
    "cassette_mode",
    type=click.Choice(["record", "replay", "replay-or-record"]),
    help="record: keep the HTTP exchanges of the scorers' model calls (a judge's) in their "
    "derived records. replay: answer them from the cassettes of --cassette-from FROM_DIR "
    "(default DIR itself: its runs' and re-scorings' judge cassettes), offline; a request "
    "that matches nothing is a scorer error. replay-or-record: send and record such a "
    "request instead.",
)
@click.option(
    "--cassette-from",
    "cassette_dir",
    metavar="FROM_DIR",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="The record directory whose judge cassettes --cassette replay and replay-or-record "
    "use (default: DIR).",
)
@click.option(
    "--progress/--no-progress", "show_progress", default=True, help="Show a progress bar on stderr."
)
def rescore_command(
    record_dir: Path,
    names: tuple[str, ...],
    spec: Path | None,
    concurrency: int,
    cassette_mode: str | None,
    cassette_dir: Path | None,
    show_progress: bool,
) -> None:
    """Score the experiment recorded in DIR again, without running its task.

    Each --score NAME runs on every recorded run, on what its run.yaml keeps:
    the case, variant, output, observations and trace spans (the run context,
    `ctx`, exists only while the task runs, so scorers get None). NAME is a
    scorer of the experiment's recorded spec, or of --spec SPEC when given.
    Scoring is the same as during `autobench run`: a scorer that raises gives
    that run a score with an error, and the command goes on.

    Every score is written as a derived record with its lineage (the scorer,
    the hash of its definition, the spec it came from, when, the run and the
    sha256 of its run.yaml) under
    DIR/derived/rescore/<scorer>/<definition hash>/cases/<case>/<variant>/score.yaml.
    Recorded files are never modified. Re-scoring again with the same
    definition skips the runs already done (an interrupted re-scoring
    completes); a changed definition is a new re-scoring beside the old one.

    `autobench report DIR` and `compare` keep showing the recorded scores;
    with `--rescored NAME` (NAME, or NAME@HASH for one definition) they show
    the newest re-scoring of NAME in place of the recorded score. Run
    statuses stay as recorded.
    """
    if cassette_dir is not None and cassette_mode in (None, "record"):
        raise click.UsageError("--cassette-from only applies to --cassette replay")
    import asyncio

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from autobench.core.rescore import rescore_experiment

    with user_errors():
        cassette = rescore_cassette(cassette_mode, cassette_dir or record_dir)
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=stderr_console(),
            transient=True,
            disable=not show_progress or not stderr_console().is_terminal,
        )
        with progress:
            outcome = asyncio.run(
                rescore_experiment(
                    record_dir,
                    names,
                    spec=spec,
                    plugins=command_plugins(),
                    concurrency=concurrency,
                    progress=_ProgressBar(progress),
                    cassette=cassette,
                )
            )
    _summary(outcome, record_dir)


def rescore_cassette(mode: str | None, source: Path) -> CassetteSetup | None:
    """The cassettes of ``--cassette MODE`` replaying from ``source`` (``None``: none).
    Raises :class:`~autobench.core.runtime.CassetteSourceError`."""
    from autobench.core.runtime import CassetteSetup

    if mode is None:
        return None
    if mode == "record":
        return CassetteSetup("record")
    return CassetteSetup.replaying("replay" if mode == "replay" else "replay-or-record", source)


def _summary(outcome: RescoreOutcome, record_dir: Path) -> None:
    console = stdout_console()
    for definition in outcome.scorers.definitions:
        mine = [r for r in outcome.records if r.scorer.hash == definition.hash]
        errored = sum(1 for r in mine if r.score.error is not None)
        values = [r.score.value for r in mine if _number(r.score.value) is not None]
        label = f"{definition.name}@{definition.hash[:12]}"
        parts = [f"{len(mine)} runs scored"]
        if errored:
            parts.append(f"{errored} with a scorer error")
        kept = _kept(outcome, definition.hash)
        if kept:
            parts.append(f"{kept} already re-scored, kept")
        if values:
            parts.append(f"mean {sum(_number(v) or 0.0 for v in values) / len(values):.4g}")
        spend = judge_spend(mine)
        if spend is not None:
            parts.append(spend)
        console.print(Text(f"{label}: {', '.join(parts)}"), soft_wrap=True)
        first = next((r for r in mine if r.score.error is not None), None)
        if first is not None:
            console.print(
                Text(f"  first error ({first.lineage.run}): {first.score.error}", style="red"),
                soft_wrap=True,
            )
    directory = record_dir / "derived" / "rescore"
    console.print(Text(f"Derived records: {directory}"), soft_wrap=True)
    shown = " ".join(f"--rescored {shlex.quote(d.name)}" for d in outcome.scorers.definitions)
    console.print(
        Text(f"Show them: autobench report {shlex.quote(str(record_dir))} {shown}"),
        soft_wrap=True,
    )


def _kept(outcome: RescoreOutcome, definition_hash: str) -> int:
    # `kept` counts (run, scorer) pairs overall; per scorer, the runs without a new record.
    from autobench.records import rescorings

    if not outcome.kept:
        return 0
    for item in rescorings(outcome.root):
        if item.hash == definition_hash:
            new = sum(1 for r in outcome.records if r.scorer.hash == definition_hash)
            return len(item.records) - new
    return 0


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def rescored_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--rescored NAME`` option of the commands that show recorded scores."""
    return click.option(
        "--rescored",
        multiple=True,
        metavar="NAME",
        help="Show the scores of the re-scoring NAME (`autobench rescore`: a scorer name "
        "for its newest re-scoring, or NAME@HASH) in place of the recorded ones "
        "(repeatable). Run statuses stay as recorded.",
    )(function)


def apply_rescored(result: ExperimentResult, names: tuple[str, ...]) -> ExperimentResult:
    """``result`` with the re-scorings ``names`` laid over it; without names, ``result``
    itself, after a note on stderr when the record has re-scorings (so the default view,
    the recorded scores, is never changed silently)."""
    from autobench.records import rescoring_labels, with_rescored

    if names:
        return with_rescored(result, names)
    if result.root_dir is not None:
        known = rescoring_labels(result.root_dir)
        if known:
            labels = ", ".join(known)
            stderr_console().print(
                Text(
                    f"Note: {result.root_dir} has re-scored scores ({labels}); these are the "
                    "recorded ones (--rescored NAME shows a re-scoring).",
                    style="dim",
                ),
                soft_wrap=True,
            )
    return result


def rescored_banner(result: ExperimentResult, names: tuple[str, ...]) -> Text | None:
    """One line saying which re-scorings replace recorded scores (``None`` without names)."""
    if not names or result.root_dir is None:
        return None
    from autobench.records import find_rescoring

    chosen = [find_rescoring(result.root_dir, name) for name in names]
    described = "; ".join(
        f"{item.label} ({len(item.records)} runs, {next(iter(item.records.values())).lineage.spec} "
        f"spec, {item.rescored_at:%Y-%m-%d %H:%M} UTC)"
        for item in chosen
    )
    lines = [f"Re-scored scores shown in place of the recorded ones: {described}"]
    for item in chosen:
        spend = judge_spend(tuple(item.records.values()))
        if spend is not None:
            lines.append(
                f"Re-scoring {item.label}: {spend}; the judge columns show this spend in "
                "place of the recorded judge's, never in the application's cost"
            )
    return Text("\n".join(lines))


def judge_spend(records: Sequence[RescoreRecord]) -> str | None:
    """What the judges of ``records`` spent, in words (``judge cost $0.0012 (24 requests,
    3,400 input and 480 output tokens)``), or ``None`` when they recorded no judge usage.
    The cost is the exact sum of the ``judge.cost`` observations, said to be unknown when
    some record has requests but no cost (a model without a price). Requests answered
    from a cassette (``--cassette replay``) are said to be replayed: their spend is the
    recorded calls', not paid again."""
    from autobench.records import Semantic

    spend = frozenset(
        {
            Semantic.JUDGE_COST,
            Semantic.JUDGE_REQUEST_COUNT,
            Semantic.JUDGE_TOKENS_INPUT,
            Semantic.JUDGE_TOKENS_OUTPUT,
        }
    )
    totals: dict[str, Decimal] = {}
    unpriced = False
    replayed = 0
    for record in records:
        replayed += sum(
            item.value
            for item in record.observations
            if item.tags.get("cassette") == "replayed" and isinstance(item.value, int)
        )
        kinds = {item.semantic_type for item in record.observations}
        if Semantic.JUDGE_REQUEST_COUNT in kinds and Semantic.JUDGE_COST not in kinds:
            unpriced = True
        for item in record.observations:
            if item.semantic_type in spend and _number(item.value) is not None:
                exact = (
                    item.tags.get("exact") if item.semantic_type == Semantic.JUDGE_COST else None
                )
                amount = Decimal(exact) if exact is not None else Decimal(str(item.value))
                totals[item.semantic_type] = totals.get(item.semantic_type, Decimal(0)) + amount
    if not totals:
        return None
    cost = totals.get(Semantic.JUDGE_COST)
    said = "judge cost unknown" if cost is None or unpriced else f"judge cost ${cost:f}"
    requests = int(totals.get(Semantic.JUDGE_REQUEST_COUNT, 0))
    tokens_in = int(totals.get(Semantic.JUDGE_TOKENS_INPUT, 0))
    tokens_out = int(totals.get(Semantic.JUDGE_TOKENS_OUTPUT, 0))
    shown = f"{said} ({requests:,} requests, {tokens_in:,} input and {tokens_out:,} output tokens"
    if replayed:
        shown += f"; {replayed:,} requests replayed from a cassette: recorded spend, not paid again"
    return shown + ")"
