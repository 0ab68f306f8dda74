"""``autobench replay``: rebuild an experiment from its record directory, without the task;
with ``--extract``, run trace extractors over its runs and write derived records."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.markup import escape

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._gate import runs_option
from autobench.cli._output import recorded_spec_dir
from autobench.cli._plugins import command_plugins

if TYPE_CHECKING:
    from autobench.core.plugins import TraceExtractorRegistry
    from autobench.records import TraceExtractor
    from autobench.report._render import RunSelection

# The plugins, the records and the report are imported when the command runs: `replay --help`
# needs none of them.


def _extractor(names: tuple[str, ...], registry: TraceExtractorRegistry) -> TraceExtractor:
    """The extractor ``names`` choose (a composite of several, each once, in the order
    given); an unknown name is a usage error (exit 2) listing the known ones."""
    for name in names:
        if name not in registry.by_name:
            raise click.BadParameter(
                f"unknown trace extractor {name!r}; "
                f"known extractors: {', '.join(sorted(registry.by_name))}",
                param_hint="'--extract'",
            )
    return registry.get(*dict.fromkeys(names))


@click.command("replay")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--extract",
    "extract",
    multiple=True,
    metavar="NAME",
    help=(
        "Run the trace extractor NAME (signal, span, usage or one a plugin adds) over every "
        "recorded run and write a derived record per run instead of showing the report; "
        "repeat to run several as one composite extractor."
    ),
)
@runs_option
def replay_command(record_dir: Path, extract: tuple[str, ...], runs: RunSelection) -> None:
    """Replay the experiment recorded in DIR and show its report.

    Reads experiment.yaml, summary.yaml and every run.yaml in full (traces
    and artifacts references included), so a damaged record is reported.
    Neither the task nor any scorer module is imported, no model is called
    and, without --extract, nothing in DIR is modified. It shows the same
    views as `autobench report` (same --runs), which reads only what they need.

    With --extract, the named extractors read each run's recorded trace and
    a new derived record is written per run under DIR/derived/ (one line per
    run gives its path); recorded files are never rewritten, and extracting
    again with the same extractor version is refused. A later replay or
    report includes the derived observations.
    """
    from autobench.cli._replayed import replayed
    from autobench.report import build_report, output_policy, render_report

    if extract:
        from autobench.records import replay_experiment_extraction

        extractor = _extractor(extract, command_plugins().trace_extractors)
        with user_errors():
            records = replay_experiment_extraction(record_dir, extractor)
        console = stdout_console()
        for record in records:
            path = record_dir.joinpath(record.path or "")
            console.print(f"{escape(record.run_id)}: {escape(str(path))}", soft_wrap=True)
        return
    with user_errors():
        result = replayed(record_dir)
        report = build_report(result)
    stdout_console(output_policy(result)).print(
        render_report(
            report,
            records=str(record_dir),
            runs=runs,
            spec_dir=recorded_spec_dir(result, record_dir),
        )
    )
