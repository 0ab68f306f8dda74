"""The click application: the ``autobench`` group, lazy subcommands and ``--version``.

Subcommands are imported only when invoked: ``autobench --help`` lists them
from the short descriptions below without importing the runtime, so it stays
fast.
"""

from __future__ import annotations

import importlib
import os
from importlib import metadata

import click

from autobench.core.distributions import DISTRIBUTIONS

# name -> (module:attribute of the click command, one-line description for the listing)
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": (
        "autobench.cli._validate:validate_command",
        "Validate a spec and show its planned matrix (never runs the task).",
    ),
    "run": (
        "autobench.cli._run:run_command",
        "Run a benchmark matrix, record the evidence, show the status.",
    ),
    "replay": (
        "autobench.cli._replay:replay_command",
        "Rebuild a recorded experiment without importing its task.",
    ),
    "rescore": (
        "autobench.cli._rescore:rescore_command",
        "Run scorers again on a record's outputs; write derived records.",
    ),
    "report": (
        "autobench.cli._report:report_command",
        "Show the report of a recorded experiment.",
    ),
    "compare": (
        "autobench.cli._compare:compare_command",
        "Compare two recorded variants, paired by case.",
    ),
    "instrumentation": (
        "autobench.cli._instrumentation:instrumentation_group",
        "Inspect instrumentation: integrations here (`doctor`), recorded trace shape (`trace DIR`).",
    ),
    "judge": (
        "autobench.cli._judge:judge_group",
        "Judges: calibrate against human labels (`calibrate`), compare two variants (`pairwise`).",
    ),
    "label": (
        "autobench.cli._label:label_command",
        "Label a record's outputs by hand (in the terminal, or through a CSV sheet).",
    ),
    "schema": (
        "autobench.cli._schema:schema_command",
        "Write the JSON schemas editors use to complete and check Autobench YAML.",
    ),
    "view": (
        "autobench.cli._view:view_command",
        "Browse recorded experiments and runs in a local web page (autobench-view).",
    ),
    "index": (
        "autobench.cli._index:index_command",
        "Build the columnar index (Parquet) of record directories (autobench-index).",
    ),
    "query": (
        "autobench.cli._index:query_command",
        "Run SQL (DuckDB) over the columnar indexes of record directories (autobench-index).",
    ),
    "export": (
        "autobench.cli._export:export_command",
        "Write a report file (yaml, csv, markdown, junit, ...) and preview it.",
    ),
}


READING_COMMANDS = frozenset({"compare", "export", "index", "query", "replay", "report", "view"})
"""Commands that read records and never run a user's task, scorer or judge."""


def leave_out_pydantic_plugins(command: str) -> None:
    """In the console script, before a reading command is imported: pydantic's plugins are
    not loaded (``PYDANTIC_DISABLE_PLUGINS``, unless the environment sets it). Pydantic loads
    every installed plugin's entry point when it builds its first model (an observability
    SDK's plugin alone imports its whole SDK: about a third of ``autobench report``'s time on
    10,000 runs), and a command that only reads records has no use for one. Commands that
    run user code (``run``, ``rescore``, ``judge``...) keep them."""
    if OWNS_PROCESS and command in READING_COMMANDS:
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use (the pattern from click's docs)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        leave_out_pydantic_plugins(cmd_name)
        module_name, _, attribute = COMMANDS[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; an error Autobench raises on purpose anywhere on the way (while
        a subcommand module is imported, its ``--help`` built, or it runs) is a panel with
        exit code 1, never a traceback. Click's usage errors, which quote the arguments
        given, are redacted like every output."""
        from autobench.cli._console import redact, user_errors  # not for `autobench --help`

        try:
            with user_errors():
                return super().invoke(ctx)
        except click.ClickException as exc:  # a usage error may quote an argument's secret
            vars(exc)["message"] = redact(exc.message)  # click declares it final
            raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _installed_versions() -> str:
    lines = []
    for name in DISTRIBUTIONS:
        try:
            lines.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{name} (not installed)")
    return "\n".join(lines)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_installed_versions())
        ctx.exit()


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version of every installed Autobench distribution and exit.",
)
def cli() -> None:
    """Autobench: run benchmark matrices, record immutable evidence, replay it.

    \b
    Typical workflow:
      autobench validate autobench.yaml
      autobench run autobench.yaml --record runs/latest
      autobench report runs/latest
      autobench compare runs/latest --baseline A --candidate B
      autobench export runs/latest --format csv --path runs.csv

    Exit codes: 0 when the command completed (even if some runs failed),
    1 for invalid specs, unresolved tasks, recording collisions and missing
    records, 2 for wrong command-line usage, 3 when --fail-on matched, 130
    after Ctrl-C.
    """


OWNS_PROCESS = False
"""Whether this process is the ``autobench`` console script (:func:`main`), which runs one
command and exits: a command may then make process-wide choices, such as freezing the
records it loaded out of the garbage collector's sight (:mod:`autobench.cli._replayed`).
False when the commands run inside another program (an embedding application, click's
test runner)."""


def main() -> None:
    """Entry point of the ``autobench`` console script."""
    global OWNS_PROCESS
    OWNS_PROCESS = True
    try:
        cli(prog_name="autobench")
    except SystemExit as done:  # click ends every command so
        from autobench.cli._lingering import exit_despite_threads

        exit_despite_threads(done.code)  # a thread a task left running: warn, exit anyway
        raise
