"""``autobench export``: write a report file in any registered format, then preview it."""

from __future__ import annotations

import csv
import difflib
import itertools
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast
from urllib.parse import urlsplit

import click
from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from autobench.cli._console import show_error, stdout_console, title_of, user_errors
from autobench.cli._plugins import command_plugins

if TYPE_CHECKING:
    from autobench.core.plugins import AutobenchPlugins
    from autobench.report import Exporter, ExporterRegistry

# The plugins, the records and the report are imported when the command runs, or when its
# help lists the export formats (those of the installed plugins).

PREVIEW_LINES = 20
LONG_LINE = 2_000
RECORD_FILES = frozenset({"experiment.yaml", "summary.yaml", "run.yaml"})


def _head(stream: TextIO) -> tuple[list[str], int, int, int]:
    """What the preview needs of the text ``stream`` holds, read :data:`READ_SIZE`
    characters at a time: its first :data:`PREVIEW_LINES` + 1 lines as ``str.splitlines``
    cuts them (each to its first :data:`READ_SIZE` characters), its number of lines, the
    length of its first line and its number of characters. Past the first lines, lines
    are counted, not looked at (a million-run JUnit file has six million)."""
    head: list[str] = []
    lines = first = characters = 0
    pending = ""  # the line being read, to its first READ_SIZE characters, with its line end
    dropped = 0  # the characters of that line left out of ``pending``
    while block := stream.read(READ_SIZE):
        characters += len(block)
        parts = (pending + block).splitlines(keepends=True)
        pending = parts.pop()  # the line going on into the next block (or a "\r" of a "\r\n")
        if parts:
            if lines == 0:
                first = len(parts[0].splitlines()[0]) + dropped
            room = PREVIEW_LINES + 1 - len(head)
            head += [part.splitlines()[0][:READ_SIZE] for part in parts[: max(room, 0)]]
            lines += len(parts)
            dropped = 0
        body = pending.splitlines()[0]
        if len(body) > READ_SIZE:
            dropped += len(body) - READ_SIZE
            pending = body[:READ_SIZE] + pending[len(body) :]
    if pending:
        body = pending.splitlines()[0]
        if lines == 0:
            first = len(body) + dropped
        lines += 1
        if len(head) <= PREVIEW_LINES:
            head.append(body)
    return head, lines, first, characters


def _text_preview(
    name: str, head: list[str], lines: int, first: int, characters: int
) -> RenderableType:
    """The preview of a text of ``lines`` lines and ``characters`` characters whose first
    lines are ``head`` and whose first line is ``first`` characters long."""
    if lines == 1 and first > LONG_LINE:  # one long line (OTLP JSON): not for reading
        return Text(f"{characters:,} characters on one line", style="dim")
    shown = "\n".join(head[:PREVIEW_LINES])
    more = (
        Text(f"... {lines - PREVIEW_LINES} more lines in the file", style="dim")
        if lines > PREVIEW_LINES
        else Text("")
    )
    if name == "html":  # a page of markup and embedded scripts: nothing to read in a terminal
        return Text(f"{lines:,} lines of HTML; open the file in a browser", style="dim")
    if name in ("markdown", "github"):
        return Group(Markdown(shown), more)
    lexer = {"yaml": "yaml", "junit": "xml"}.get(name, "text")
    return Group(Syntax(shown, lexer, word_wrap=True), more)


CSV_PREVIEW_ROWS = 8
CSV_PREVIEW_COLUMNS = ("case", "variant", "status")


def _csv_preview(stream: TextIO) -> RenderableType:
    """The first rows of a CSV export read from ``stream``: case, variant, status and the
    first metric columns (the other rows are counted, not kept: a million-run export is a
    million rows)."""
    reader = csv.reader(stream)
    header = next(reader, None)
    if header is None:
        return Text("empty file", style="dim")
    body = list(itertools.islice(reader, CSV_PREVIEW_ROWS))
    rows = len(body) + sum(1 for _ in reader)
    wanted = [name for name in CSV_PREVIEW_COLUMNS if name in header]
    metrics = [name for name in header if "." in name][:3]
    columns = [header.index(name) for name in [*wanted, *metrics]]
    table = Table(pad_edge=False)
    for index in columns:
        table.add_column(header[index], overflow="ellipsis", no_wrap=True, max_width=28)
    for row in body[:CSV_PREVIEW_ROWS]:
        table.add_row(*(row[index] if index < len(row) else "" for index in columns))
    hidden_columns = len(header) - len(columns)
    note = f"{rows} rows, {len(header)} columns in the file"
    if rows > CSV_PREVIEW_ROWS or hidden_columns:
        note += f"; showing {min(rows, CSV_PREVIEW_ROWS)} rows and {len(columns)} columns"
    return Group(table, Text(note, style="dim"))


def _formats_help() -> str:
    """The formats Autobench's own distributions register, then each format an installed
    plugin adds, with the distribution that adds it."""
    from autobench.core.distributions import DISTRIBUTIONS
    from autobench.core.plugins import plugin_manager
    from autobench.report import Exporter

    manager = plugin_manager()
    distributions = {
        id(plugin): re.sub(r"[-_.]+", "-", dist.project_name).lower()
        for plugin, dist in manager.list_plugin_distinfo()
    }
    built_in: list[str] = []
    added: list[str] = []
    for impl in manager.hook.autobench_exporters.get_hookimpls():
        contributed = cast(Sequence[Exporter], impl.function())
        names = [exporter.name for exporter in contributed]
        origin = distributions.get(id(impl.plugin))
        if origin in DISTRIBUTIONS:
            built_in.extend(names)
        else:
            added.extend(f"{name} ({origin or impl.plugin_name})" for name in names)
    text = f"Export format: {', '.join(sorted(built_in))}"
    if added:
        text += f"; from installed plugins: {', '.join(sorted(added))}"
    return text + "."


def _exporters(plugins: AutobenchPlugins) -> ExporterRegistry:
    """The export formats of ``plugins`` (``autobench_exporters`` of its manager); the
    process-wide registry, built once, for the default plugins."""
    from autobench.core.plugins import default_plugins
    from autobench.report import ExporterRegistry, exporter_registry

    if plugins is default_plugins():
        return exporter_registry()
    return ExporterRegistry.from_manager(plugins.manager)


class _FormatOption(click.Option):
    """``--format``, whose help (the formats of the installed plugins) is written only when
    the help is shown: loading the plugins is not needed to run the command otherwise."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        if self.help is None:
            self.help = _formats_help()
        return super().get_help_record(ctx)


@click.command("export")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--format",
    "format_name",
    required=True,
    metavar="FORMAT",
    cls=_FormatOption,
)
@click.option(
    "--path",
    "target",
    type=click.Path(path_type=Path, dir_okay=False),
    help="File to write (formats that write a file).",
)
@click.option(
    "--endpoint",
    metavar="URL",
    help="Where to send the export (formats that send, such as otlp).",
)
@click.option(
    "--export-option",
    "option_items",
    metavar="KEY=VALUE",
    multiple=True,
    help="An option of the format (repeatable), such as github's baseline=DIR, "
    "html-artifact=NAME, record-artifact=NAME and artifacts-url=URL.",
)
def export_command(
    record_dir: Path,
    format_name: str,
    target: Path | None,
    endpoint: str | None,
    option_items: tuple[str, ...],
) -> None:
    """Export the report of the experiment recorded in DIR to a file, then preview it,
    or send it to an endpoint.

    Formats: yaml (the report record), csv (one row per run, one column per
    metric), markdown (GitHub tables), junit (one test case per run, for CI),
    html (one self-contained interactive page), github (a compact summary for
    a step summary or pull-request comment, under 65,000 characters; with
    --export-option baseline=DIR it compares against that record) and any
    format an installed
    plugin adds. The formats are those of the
    command's plugins (an embedding application may pass its own). The file
    is written atomically; the terminal shows a preview, never the raw file.
    Record files are never overwritten. A format that sends, such as otlp,
    takes --endpoint URL instead of --path; the command exits 1 with the
    reason when the endpoint does not accept the export.
    """
    registry = _exporters(command_plugins())
    if format_name not in registry.names():  # a bad option value is a usage error (exit 2)
        near = difflib.get_close_matches(format_name, registry.names(), n=1, cutoff=0.6)
        raise click.BadParameter(
            f"{format_name!r} is not a known export format"
            + (f" (did you mean {near[0]!r}?)" if near else "")
            + f"; known formats: {', '.join(registry.names())}",
            param_hint="'--format'",
        )
    exporter = _configured(registry.get(format_name), option_items)
    _check_destination(exporter, target, endpoint)
    if endpoint is not None:
        _send(exporter, record_dir, endpoint)
        return
    assert target is not None
    from autobench.cli._replayed import replayed
    from autobench.report import build_report, export_chunks, write_export

    with user_errors():
        if target.name in RECORD_FILES or (
            target.exists() and target.resolve().is_relative_to((record_dir / "cases").resolve())
        ):
            raise show_error(
                "Refusing to overwrite a record",
                f"{target} is part of a record directory; choose another path",
            )
        traces = getattr(exporter, "needs_traces", False) is True
        result = replayed(
            record_dir, evidence_only=not traces, meanwhile=getattr(exporter, "prepare", None)
        )
        report = build_report(result)
        pieces = _Pieces(export_chunks(exporter, report, result))
        existed = target.exists()
        try:
            size = write_export(target, pieces)
        except _ExporterFailed as failed:
            error = failed.__cause__
            assert error is not None
            left = "left as it was" if existed else "not written"
            raise show_error(
                "Export failed",
                f"the {format_name} export failed after {pieces.written:,} pieces: "
                f"{type(error).__name__}: {error}; {target} was {left}",
            ) from None
        except OSError as error:
            raise show_error(
                "Export failed", f"cannot write {target}: {error.strerror or error}"
            ) from None
    header = Text.assemble(
        ("wrote ", "green"), (str(target), "bold"), f" ({format_name}, {size:,} bytes)"
    )
    preview = _preview_file(format_name, target, size, binary=pieces.binary)
    stdout_console().print(Panel(preview, title=header, title_align="left"))


class _ExporterFailed(Exception):
    """The exporter raised while it made a piece (its error is the ``__cause__``)."""


class _Pieces:
    """The pieces of an export as they are written, noting how many were made and whether
    any was binary. An error the exporter raises comes out as :class:`_ExporterFailed`,
    but an ``AutobenchError`` (raised on purpose: a missing baseline, say) as it is, for
    the command's panel of that error; an error of the file system, while a piece is
    written, comes out as it is."""

    def __init__(self, pieces: Iterator[str | bytes]) -> None:
        self._pieces = pieces
        self.written = 0
        self.binary = False

    def __iter__(self) -> Iterator[str | bytes]:
        from autobench.abp import AutobenchError

        while True:
            try:
                piece = next(self._pieces)
            except StopIteration:
                return
            except AutobenchError:
                raise
            except Exception as error:
                raise _ExporterFailed() from error
            self.binary = self.binary or isinstance(piece, bytes)
            yield piece
            self.written += 1


READ_SIZE = 1 << 20
"""Characters read from the written file at a time for its preview."""


def _preview_file(name: str, path: Path, size: int, *, binary: bool) -> RenderableType:
    """:func:`_preview` of the file just written at ``path`` (``size`` bytes), read back a
    block at a time: the first lines are kept, the others only counted."""
    if binary:
        return Text(f"{size} bytes of binary content", style="dim")
    if name == "csv":
        with path.open(encoding="utf-8", newline="") as stream:
            return _csv_preview(stream)
    with path.open(encoding="utf-8", newline="") as stream:
        return _text_preview(name, *_head(stream))


def _configured(exporter: Exporter, items: tuple[str, ...]) -> Exporter:
    """``exporter`` with the ``--export-option KEY=VALUE`` items set; a usage error (exit 2)
    for an item without ``=`` or a key the format does not take."""
    from autobench.report import ExportOptionError, configure_exporter

    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="'--export-option'")
        values[key] = value
    try:
        return configure_exporter(exporter, values)
    except ExportOptionError as error:
        raise click.BadParameter(str(error), param_hint="'--export-option'") from None


def _sends(exporter: Exporter) -> bool:
    return callable(getattr(exporter, "send", None))


def _check_destination(exporter: Exporter, target: Path | None, endpoint: str | None) -> None:
    """Usage errors (exit 2): a format that sends takes --endpoint and no --path; a format
    that writes a file takes --path and no --endpoint."""
    if _sends(exporter):
        if endpoint is None:
            raise click.UsageError(
                f"format {exporter.name!r} sends its export: give --endpoint URL"
                + (" (it writes no file, so --path is not used)" if target is not None else "")
            )
        if target is not None:
            raise click.UsageError(
                f"format {exporter.name!r} sends to --endpoint and writes no file: leave out --path"
            )
        from autobench.report import redact_url

        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise click.UsageError(
                f"--endpoint {redact_url(endpoint)!r} is not a URL: "
                "give http://HOST:PORT or https://HOST/PATH"
            )
        return
    if endpoint is not None:
        raise click.UsageError(
            f"format {exporter.name!r} writes a file: "
            + ("leave out --endpoint" if target is not None else "give --path FILE")
            + "; --endpoint is for formats that send"
        )
    if target is None:
        raise click.UsageError("Missing option '--path'.")


def _send(exporter: Exporter, record_dir: Path, endpoint: str) -> None:
    """Replay ``record_dir`` for ``exporter`` and send it to ``endpoint``. What is shown of
    the endpoint (in the line saying what was sent, or in the error) has its credentials
    redacted: userinfo and secret query values (:func:`autobench.report.url_secrets`)."""
    from autobench.abp import AutobenchError
    from autobench.cli._replayed import replayed
    from autobench.report import build_report, output_policy, redact_known, url_secrets

    with user_errors():
        traces = getattr(exporter, "needs_traces", False) is True
        result = replayed(
            record_dir, evidence_only=not traces, meanwhile=getattr(exporter, "prepare", None)
        )
        report = build_report(result)
        policy = output_policy(result)
        secrets = url_secrets(endpoint, policy)
        try:
            said = exporter.send(report, result, endpoint)  # type: ignore[attr-defined]
        except AutobenchError as error:
            raise show_error(title_of(error), redact_known(str(error), secrets, policy)) from None
        said = redact_known(str(said), secrets, policy)
    stdout_console(policy).print(
        Panel(
            Text(said),
            title=Text(f"sent ({exporter.name})", style="green"),
            title_align="left",
        )
    )
