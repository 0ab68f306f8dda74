"""Exporters: the protocol every export format implements, and the registry of formats.

Formats are contributed through the ``autobench_exporters`` hook of the
``autobench`` plugin project. The built-in ``yaml``, ``csv``, ``markdown``,
``junit`` and ``html`` formats come from :mod:`autobench.report._plugin`, an
entry point of this distribution, exactly like a third-party format would.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol, cast, runtime_checkable

import pluggy

from autobench.abp import AutobenchError
from autobench.core.plugins import ExportFormat, plugin_manager
from autobench.records import ExperimentResult
from autobench.report._model import Report
from autobench.report._redaction import output_policy, redact_content


@runtime_checkable
class Exporter(ExportFormat, Protocol):
    """An export format (what the ``autobench_exporters`` hook returns).

    ``name`` is the ``--format`` value, ``extension`` the file extension
    without a dot (``"csv"``), ``description`` one line for help texts (the
    core's :class:`~autobench.core.plugins.ExportFormat`). ``export`` returns
    the file's content: ``str`` (written as UTF-8) or ``bytes``.

    An exporter that shows traces sets a class attribute ``needs_traces = True``:
    ``autobench export`` then replays the runs with their traces; otherwise it
    replays evidence only (no case payloads, output or trace), which is faster.
    An exporter may also define ``prepare()``, which the command calls while
    worker processes read a large record, to import what ``export`` needs.

    An exporter that delivers its export somewhere instead of a file defines
    ``send(report, result, endpoint) -> str``: ``endpoint`` is the command's
    ``--endpoint`` value (a URL), the returned line says what was sent where, and
    a failure raises an ``AutobenchError`` whose message names the endpoint and
    the reason (the command shows it and exits 1). ``autobench export`` calls
    ``send`` for such a format, which then takes ``--endpoint`` and no
    ``--path``; its ``export`` still returns the content it would send.

    An exporter whose content may be large also defines
    ``chunks(report, result) -> Iterable[str] | Iterable[bytes]`` (see
    :class:`StreamingExporter`): the same content as ``export``, in pieces made as
    they are asked for, so the whole text is never held. ``autobench export``, the
    Python helpers and :func:`export_chunks` prefer it when present; an exporter
    that defines only ``export`` works as before. Every piece is redacted on its own
    (:func:`export_chunks`), so a piece must end where a unit of the format ends (a
    row, a record, an element; a multi-line cell with its row): a secret that
    straddled two pieces would be seen by no pattern. Pieces are all ``str`` (written
    as UTF-8) or all ``bytes``.
    """

    name: str
    extension: str
    description: str

    def export(self, report: Report, result: ExperimentResult) -> str | bytes: ...


@runtime_checkable
class StreamingExporter(Exporter, Protocol):
    """An :class:`Exporter` that also makes its content in pieces (``chunks``).

    ``chunks(report, result)`` gives the content ``export`` returns, in order, as
    ``str`` pieces (written as UTF-8) or ``bytes`` pieces, never both; ``"".join`` (or
    ``b"".join``) of the pieces is ``export``'s content. It is a generator, or any
    iterable: nothing needs to be made before the first piece is asked for, and a piece
    need not be kept once the next is asked for. Each piece is redacted on its own
    (:func:`export_chunks`), so a piece ends where a unit of the format ends (whole rows
    of a CSV file, whole elements of an XML file, whole lines of JSON lines): the secret
    patterns never see across two pieces. A few hundred kilobytes a piece is a good size
    (a piece is a write and a redaction pass). A failure raises from the iterator; the
    file being written is then removed and the target left as it was.
    """

    def chunks(
        self, report: Report, result: ExperimentResult
    ) -> Iterable[str] | Iterable[bytes]: ...


class ExportOptionError(AutobenchError, ValueError):
    """An export option the format does not take; the message lists those it takes."""


def with_options(exporter: Exporter, values: Mapping[str, str]) -> Exporter:
    """``exporter`` configured by ``values`` (``--export-option KEY=VALUE``). A format takes
    options by declaring ``options`` (a mapping of each key to one line of help) and
    ``with_options(values) -> Exporter``. Raises :class:`ExportOptionError` for a key the
    format does not declare (or any key, for a format without options)."""
    if not values:
        return exporter
    known: Mapping[str, str] = getattr(exporter, "options", None) or {}
    unknown = sorted(set(values) - set(known))
    if unknown:
        takes = f"it takes {', '.join(sorted(known))}" if known else "it takes no export options"
        raise ExportOptionError(
            f"format {exporter.name!r} has no option {', '.join(unknown)}; {takes}"
        )
    return cast(Exporter, exporter.with_options(dict(values)))  # type: ignore[attr-defined]


class UnknownExportFormatError(AutobenchError, ValueError):
    """No exporter of that name; the message lists the known formats."""


class ExporterRegistry:
    """Exporters by name. Raises ``ValueError`` when two exporters share a name or a
    contribution does not implement :class:`Exporter`."""

    def __init__(self, exporters: Iterable[Exporter]) -> None:
        self._by_name: dict[str, Exporter] = {}
        for exporter in exporters:
            if not isinstance(exporter, Exporter):
                raise ValueError(f"{exporter!r} does not implement the Exporter protocol")
            if exporter.name in self._by_name:
                raise ValueError(f"export format {exporter.name!r} is registered twice")
            self._by_name[exporter.name] = exporter

    @classmethod
    def from_manager(cls, manager: pluggy.PluginManager) -> ExporterRegistry:
        """Every exporter contributed through ``autobench_exporters`` hooks of ``manager``."""
        contributions: list[Sequence[ExportFormat]] = manager.hook.autobench_exporters()
        return cls(
            cast(Exporter, exporter) for contribution in contributions for exporter in contribution
        )

    def names(self) -> tuple[str, ...]:
        """Known format names, sorted."""
        return tuple(sorted(self._by_name))

    def get(self, name: str) -> Exporter:
        """The exporter of format ``name``; raises :class:`UnknownExportFormatError`."""
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownExportFormatError(
                f"unknown export format {name!r}; known formats: {', '.join(self.names())}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Exporter]:
        return iter(self._by_name.values())


@functools.cache
def exporter_registry() -> ExporterRegistry:
    """The exporters of the process-wide plugin manager (built once)."""
    return ExporterRegistry.from_manager(plugin_manager())


def export_content(exporter: Exporter, report: Report, result: ExperimentResult) -> str | bytes:
    """What ``exporter`` makes of ``report`` and ``result``, redacted by
    :func:`output_policy` of ``result``: the whole content, as one ``str`` or ``bytes``
    (the pieces of :func:`export_chunks` joined). Raises what the exporter raises."""
    return redact_content(exporter.export(report, result), output_policy(result))


def streams(exporter: Exporter) -> bool:
    """Whether ``exporter`` makes its content in pieces (defines a callable ``chunks``)."""
    return callable(getattr(exporter, "chunks", None))


def export_chunks(
    exporter: Exporter, report: Report, result: ExperimentResult
) -> Iterator[str | bytes]:
    """What ``exporter`` makes of ``report`` and ``result``, as pieces to write one after
    the other, each redacted by :func:`output_policy` of ``result``: the pieces of
    ``chunks(report, result)`` when the exporter defines it (:class:`StreamingExporter`;
    each made when the next is asked for), else the whole redacted content as one piece
    (:func:`export_content`). This is what ``autobench export`` and the Python export
    helpers write (:func:`~autobench.report.write_export` takes the iterator). Raises
    what the exporter raises, when the piece it was making is asked for; ``TypeError``
    for a piece that is neither ``str`` nor ``bytes``.

    Redaction is per piece, with the rule of :func:`~autobench.report.redact_content`
    (text as :func:`~autobench.report.redact_text`; bytes by the secret patterns over the
    raw bytes): a secret inside a piece is always found, which is why an exporter's
    pieces end where its rows or records end."""
    policy = output_policy(result)
    if not streams(exporter):
        yield redact_content(exporter.export(report, result), policy)
        return
    pieces = cast(StreamingExporter, exporter).chunks(report, result)
    for piece in pieces:
        if not isinstance(piece, str | bytes):
            raise TypeError(
                f"export format {exporter.name!r} made a piece of type {type(piece).__name__}; "
                "chunks() must give str or bytes"
            )
        yield redact_content(piece, policy)
