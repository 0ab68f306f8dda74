"""``autobench run``: execute a benchmark matrix, record it, and show the status."""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from autobench.cli._console import stderr_console, stdout_console, user_errors
from autobench.cli._factor_names import warn_factor_names
from autobench.cli._gate import fail_on_option, gate_failures, runs_option
from autobench.cli._output import exit_for_gate, show_first_traceback
from autobench.cli._plugins import check_executor, command_plugins
from autobench.cli._scalars import show_scalar_notes, strict_scalars_option
from autobench.cli._startup import startup_collection

if TYPE_CHECKING:
    from rich.progress import Progress

    from autobench.core.runtime import CassetteSetup, Interruption, ProgressEvent, RunSession
    from autobench.core.spec import BenchmarkSpec
    from autobench.records import ExperimentResult, RunRecord
    from autobench.report._render import RunSelection

# The runtime, the records, the report and Rich's progress bar are imported when the command
# runs: `autobench run --help` needs none of them.


def recorded_repeat(record_dir: Path) -> int | None:
    """The repeat count the experiment in ``record_dir`` was started with (``None`` when
    it cannot be read: resuming then reports the problem)."""
    from autobench.records import load_experiment_record

    try:
        spec = load_experiment_record(record_dir).benchmark.spec
    except (OSError, ValueError):
        return None
    repeat = 1 if spec is None else spec.snapshot.get("repeat", 1)
    return repeat if isinstance(repeat, int) and not isinstance(repeat, bool) else None


class _ProgressBar:
    """Feeds typed progress events into a Rich progress bar on stderr."""

    def __init__(self, progress: Progress) -> None:
        from autobench.records import RunStatus

        self._progress = progress
        self._task = progress.add_task("running", total=None, status="")
        self._counts = {status: 0 for status in RunStatus}

    def __call__(self, event: ProgressEvent) -> None:
        from autobench.core.runtime import ProgressEventKind
        from autobench.records import RunStatus

        if event.kind is ProgressEventKind.EXPERIMENT_STARTED:
            self._progress.update(self._task, total=event.total)
        elif event.kind is ProgressEventKind.RUN_FINISHED and event.status is not None:
            self._counts[RunStatus(event.status)] += 1
            summary = " ".join(
                f"{status.value} {count}" for status, count in self._counts.items() if count
            )
            self._progress.update(self._task, advance=1, status=summary)


EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C (128 + SIGINT), as shells report it."""


def _interrupted(session: RunSession, interrupt: KeyboardInterrupt) -> click.exceptions.Exit:
    """After Ctrl-C or a task's ``KeyboardInterrupt``: let finished runs reach the disk,
    say what is recorded where (from what the session stored, never a guess), exit 130."""
    from autobench.core.runtime import TaskInterrupted
    from autobench.records import RecordDirectoryWriter, RecordingError

    if isinstance(interrupt, TaskInterrupted):
        message = (
            f"Interrupted: the task of run {interrupt.run_id} raised KeyboardInterrupt; "
            "no new runs were started."
        )
    else:
        message = "Interrupted: no new runs were started."
    sink = session.sink
    if isinstance(sink, RecordDirectoryWriter):
        try:
            sink.flush()
        except RecordingError as error:
            message += f" Writing a record failed: {error}."
        sink.close()
        message += " " + _recorded(sink.root, session.interruption)
    stderr_console().print(Text(message, style="yellow"))
    return click.exceptions.Exit(EXIT_INTERRUPTED)


def _recorded(target: Path, interruption: Interruption | None) -> str:
    """What an interrupted session left in the record directory ``target``."""
    resume = f"`autobench run SPEC --resume {target}` completes them."
    if interruption is None:  # interrupted before any run was handed over
        if not (target / "experiment.yaml").is_file():
            return f"Nothing was recorded in {target}."
        return f"No run of this session was recorded in {target}; {resume}"
    runs = "1 run" if interruption.runs == 1 else f"{interruption.runs} runs"
    summary = (
        "its summary marks the experiment incomplete"
        if interruption.summary_stored
        else "its summary could not be written"
    )
    return (
        f"{runs} of this session are recorded in {target} ({summary}); "
        f"`autobench replay {target}` lists the missing ones and {resume}"
    )


class _RunCommand(click.Command):
    """``run``, reading ``--cassette replay FROM_DIR`` (and ``replay-or-record``) as
    ``--cassette replay --cassette-from FROM_DIR``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rewritten: list[str] = []
        index = 0
        while index < len(args):
            item = args[index]
            rewritten.append(item)
            index += 1
            if item == "--cassette" and index < len(args) and args[index] in _REPLAYING:
                rewritten.append(args[index])
                index += 1
                if index < len(args) and not args[index].startswith("-"):
                    rewritten += ["--cassette-from", args[index]]
                    index += 1
        given = [item for item in rewritten if item.split("=", 1)[0] == "--cassette-from"]
        if len(given) > 1:
            raise click.UsageError(
                "give the record to replay once: --cassette replay FROM_DIR, or "
                "--cassette-from FROM_DIR",
                ctx,
            )
        return super().parse_args(ctx, rewritten)


_REPLAYING = ("replay", "replay-or-record")


@click.command("run", cls=_RunCommand)
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--record",
    "record_dir",
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write the records to DIR (must not hold an experiment already).",
)
@click.option("--no-record", is_flag=True, help="Run and show results without writing any record.")
@click.option(
    "--no-index",
    is_flag=True,
    help="Write no columnar index beside the record as runs land (autobench-index; the same "
    "as AUTOBENCH_NO_INDEX=1). `autobench index DIR` builds it later.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Maximum number of runs active at once (sync tasks run in worker threads).",
)
@click.option(
    "--experiment-id",
    metavar="ID",
    help="Experiment id (default: exp_<benchmark>_<UTC time>_<hex>).",
)
@click.option(
    "--progress/--no-progress", "show_progress", default=True, help="Show a progress bar on stderr."
)
@runs_option
@fail_on_option
@click.option(
    "--resume",
    "resume_dir",
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Complete the interrupted experiment recorded in DIR: run only its missing runs, "
    "keeping its experiment id. Refused when the spec, dataset or source files changed "
    "since it began, unless --force.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --resume: resume even though the spec, dataset or sources changed "
    "(the summary records what changed).",
)
@click.option(
    "--executor",
    metavar="NAME",
    help="Run the matrix with executor NAME (local, or one an installed plugin adds) "
    "instead of the spec's `executor` (default: local).",
)
@click.option(
    "--executor-option",
    "executor_option_items",
    metavar="KEY=VALUE",
    multiple=True,
    help="An option of the executor (repeatable), laid over those the spec writes beside "
    "its name; the value is a string, which the executor converts. Not recorded.",
)
@click.option(
    "--ray-address",
    metavar="ADDRESS",
    help="With the ray executor: the Ray cluster to join (auto, HOST:PORT or "
    "ray://HOST:PORT); the same as --executor-option address=ADDRESS. Without it, "
    "the ray executor starts a local Ray.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    metavar="K",
    help="Run every case x variant K times instead of the spec's `repeat` (default 1); "
    "with --resume, the experiment's recorded repeat count is kept unless given.",
)
@click.option(
    "--cassette",
    "cassette_mode",
    type=click.Choice(["record", "replay", "replay-or-record"]),
    help="record: store every HTTPX exchange of each run in the record (one cassette file "
    "per run; credentials never stored). replay FROM_DIR: answer each run's requests from "
    "the cassette of the same case and variant in the record FROM_DIR, offline; a request "
    "that matches nothing errors the run. replay-or-record FROM_DIR: send and record such "
    "a request instead.",
)
@click.option(
    "--cassette-from",
    "cassette_dir",
    metavar="FROM_DIR",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="The record directory whose cassettes --cassette replay and replay-or-record use "
    "(also written --cassette replay FROM_DIR).",
)
@strict_scalars_option
def run_command(**options: Any) -> None:
    """Run the benchmark SPEC: every case against every variant.

    Each run's record is written atomically as soon as the run ends. Without
    --record or --no-record, records go to .autobench/<benchmark>/<experiment>/.
    An existing experiment directory is never overwritten. It ends with the
    same report as `autobench report`. The exit code is 0 when the experiment
    completed, even if some runs failed or errored (the report shows them),
    unless --fail-on says otherwise.

    Ctrl-C stops starting runs, cancels active async runs (sync runs get up to
    5 seconds to end), writes summary.yaml with complete: false and exits 130.
    --resume DIR then completes the missing runs and writes summary.yaml for the
    whole experiment, keeping the earlier one as summary.<n>.yaml (n: its session).
    A run counts as finished once its run.yaml is on disk; a run.yaml that cannot
    be read stops --resume with its line and column, and is never written over.
    """
    with startup_collection() as runs_begin:
        _run(**options, runs_begin=runs_begin)


def _run(
    spec_path: Path,
    record_dir: Path | None,
    no_record: bool,
    no_index: bool,
    concurrency: int,
    experiment_id: str | None,
    show_progress: bool,
    runs: RunSelection,
    fail_on: frozenset[str],
    resume_dir: Path | None,
    force: bool,
    executor: str | None,
    executor_option_items: tuple[str, ...],
    ray_address: str | None,
    repeat: int | None,
    cassette_mode: str | None,
    cassette_dir: Path | None,
    strict_scalars: bool,
    runs_begin: Callable[[], None],
) -> None:
    """The command's work; ``runs_begin`` is called just before the first run."""
    if record_dir is not None and no_record:
        raise click.UsageError("--record and --no-record exclude each other")
    if resume_dir is not None and (record_dir is not None or no_record or experiment_id):
        raise click.UsageError("--resume excludes --record, --no-record and --experiment-id")
    if force and resume_dir is None:
        raise click.UsageError("--force only applies to --resume")
    if cassette_mode in _REPLAYING and cassette_dir is None:
        raise click.UsageError(f"--cassette {cassette_mode} needs the record to replay: FROM_DIR")
    if cassette_mode == "record" and no_record:
        raise click.UsageError(
            "--cassette record stores each run's cassette in the record: drop --no-record"
        )
    if cassette_dir is not None and cassette_mode not in _REPLAYING:
        raise click.UsageError("--cassette-from only applies to --cassette replay")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from autobench.core.runtime import RunSession
    from autobench.core.spec import load_benchmark_spec
    from autobench.report import build_report, output_policy, render_report

    plugins = command_plugins()
    check_executor(executor, plugins)
    with user_errors():
        cassette = _cassette(cassette_mode, cassette_dir)
        spec = load_benchmark_spec(spec_path, strict_scalars=strict_scalars, plugins=plugins)
        show_scalar_notes(spec)
        warn_factor_names(spec, spec_path)
        executor_options = _executor_options(executor_option_items, ray_address, executor, spec)
        if repeat is None and resume_dir is not None:
            repeat = recorded_repeat(resume_dir)
        if repeat is not None and repeat != spec.repeat:
            # The spec as run: its hash, snapshot and plan all carry this repeat count.
            spec = spec.model_copy(update={"repeat": repeat})
        if resume_dir is not None:
            session = RunSession.resume(
                spec,
                resume_dir,
                force=force,
                executor=executor,
                executor_options=executor_options,
                cassette=cassette,
            )
            nothing_missing = not session.resumed or not session.resumed.missing
            if nothing_missing and _summarized(resume_dir):  # nothing run or written
                stdout_console().print(
                    Text(
                        f"Nothing to resume: all {len(session.experiment.plan)} planned runs of "
                        f"{resume_dir} are recorded "
                        f"(`autobench report {shlex.quote(str(resume_dir))}` shows them)."
                    )
                )
                return
        else:
            session = RunSession.start(
                spec,
                experiment_id=experiment_id,
                record_dir=None if no_record else record_dir or "default",
                executor=executor,
                executor_options=executor_options,
                cassette=cassette,
            )
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
        try:
            with progress:
                # Recording: the run files hold each run whole, so the session keeps only
                # status counts (the evidence of each run when the spec post-derives) and
                # reads the result back from the finished record, as `autobench report`
                # does: the closing report is that command's (docs/performance.md).
                runs_begin()
                executed = asyncio.run(
                    session.execute_detached(
                        concurrency_limit=concurrency,
                        # No bar shown: no progress events made at all (two a run).
                        progress=None if progress.disable else _ProgressBar(progress),
                        listeners=not no_index,
                        lean=session.root_dir is not None,
                    )
                )
        except KeyboardInterrupt as interrupt:
            raise _interrupted(session, interrupt) from None
    # The closing report holds nothing of the running phase: the spec's cases and the plan
    # go before the result is read back (or taken, when kept), the report's input.
    spec_dir = spec.base_dir
    del session, spec
    from autobench.cli import _app
    from autobench.cli._replayed import arrow_pool

    if _app.OWNS_PROCESS:
        arrow_pool()  # reading the index back peaks about 80 MB lower at a million runs
    with user_errors():
        result = executed.result()
        del executed
        _warn_overruns(result)
        report = build_report(result)
    records = None if result.root_dir is None else str(result.root_dir)
    console = stdout_console(output_policy(result))
    console.print(render_report(report, records=records, runs=runs, spec_dir=spec_dir))
    if records is None:
        show_first_traceback(console, result, spec_dir)
    exit_for_gate(gate_failures(result, fail_on))


def _summarized(record_dir: Path) -> bool:
    """Whether the latest summary of ``record_dir`` says its experiment is complete. A
    session killed after its last run was stored but before its summary was written leaves
    every run recorded and no such summary: resuming it then runs nothing and writes the
    summary of the whole experiment."""
    from autobench.records import load_experiment_summary

    summary = load_experiment_summary(record_dir)
    return summary is not None and summary.complete


def _warn_overruns(result: ExperimentResult) -> None:
    """A warning on stderr for each run whose async task held the event loop past its
    timeout (the run's ``timeout.overrun`` diagnostic, ``core.runtime._retry``). Runs read
    back as columns (a ``RunTable``) are built whole only when they hold something besides
    plain metric values (``plain`` is ``None``): a diagnostic always does."""
    from autobench.records import RunTable

    runs: Sequence[RunRecord] = result.runs
    if isinstance(runs, RunTable):
        runs = runs.records(runs.not_plain())
    for run in runs:
        for observation in run.observations:
            if observation.name == "timeout.overrun":
                stderr_console().print(
                    Text(f"Warning: run {run.run_id}: {observation.reason}", style="yellow")
                )


def _cassette(mode: str | None, source: Path | None) -> CassetteSetup | None:
    from autobench.core.runtime import CassetteSetup

    if mode is None:
        return None
    if mode == "record":
        return CassetteSetup("record")
    assert source is not None
    return CassetteSetup.replaying("replay" if mode == "replay" else "replay-or-record", source)


def _executor_options(
    items: tuple[str, ...], ray_address: str | None, executor: str | None, spec: BenchmarkSpec
) -> dict[str, str]:
    """The executor options of ``--executor-option KEY=VALUE`` and ``--ray-address`` (option
    ``address``); a usage error for an item without ``=`` or ``--ray-address`` with an
    executor other than ``ray``."""
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="'--executor-option'")
        options[key] = value
    if ray_address is not None:
        name = executor or (spec.executor.name if spec.executor is not None else "local")
        if name != "ray":
            raise click.UsageError(
                f"--ray-address applies to the ray executor only; this run uses {name!r} "
                "(add --executor ray)"
            )
        options["address"] = ray_address
    return options
