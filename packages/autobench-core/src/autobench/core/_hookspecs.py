"""Hook specifications of the ``autobench`` plugin project and the pluggy markers.

Each hook returns one plugin's contributions; pluggy gathers the results of every
registered plugin into a list (the last registered plugin first). The types below
are what a contribution is; :class:`autobench.core.plugins.AutobenchPlugins` turns
the gathered results into typed registries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pluggy

from autobench.core.derive._base import DeriverSpec
from autobench.core.native._integrations import IntegrationEntry, IntegrationFields
from autobench.core.packs._model import MetricPack
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.scoring._base import ScorerSpec
from autobench.records import (
    ExperimentRecord,
    ExperimentResult,
    RecordListener,
    RunRecord,
    SemanticDefinition,
    TraceExtractor,
)

PROJECT_NAME = "autobench"
ENTRY_POINT_GROUP = "autobench"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@runtime_checkable
class ExportFormat(Protocol):
    """What the core knows of a report exporter: its ``--format`` ``name``, file
    ``extension`` (no dot) and one-line ``description``. The full protocol, with
    ``export(report, result)``, is ``autobench.report.Exporter``, which extends this one
    (the report model lives in autobench-report, above the core)."""

    name: str
    extension: str
    description: str


@runtime_checkable
class Executor(Protocol):
    """What a run session asks of an executor built for its runs.

    :meth:`run` executes every run and returns the records of the finished ones in
    plan order (what the setup's ``keep`` makes of each, when it is given: none of those
    for which it returns ``None``); each record goes to the sink (``sink.run_finished``, or ``run_prepared``
    for a ``PreparingSink``) on the event loop thread as its run ends, and the progress
    callback gets ``run_started`` / ``run_finished`` events. When :meth:`run` is
    cancelled it hands the runs that ended to the sink and re-raises
    :class:`asyncio.CancelledError`; :attr:`finished` then lists them (plan order).
    :attr:`completed` counts the runs that ended; :attr:`payloads` holds the artifact
    payloads by ``(run_id, artifact_id)`` when there is no sink.

    An executor is built by its factory (the ``autobench_executors`` hook), called with
    the arguments :class:`autobench.core.runtime.ExecutorFactory` spells out.
    """

    @property
    def completed(self) -> int: ...

    @property
    def finished(self) -> tuple[RunRecord, ...]: ...

    @property
    def payloads(self) -> Mapping[tuple[str, str], Any]: ...

    async def run(self) -> tuple[RunRecord, ...]: ...


class AutobenchSpecs:
    """Hook specifications (see the module docstring for how results are gathered)."""

    @hookspec
    def autobench_scorers(self) -> Sequence[type[ScorerSpec]]:  # type: ignore[empty-body]
        """Scorer models: each a :class:`ScorerSpec` subclass with ``kind`` and ``keyword``."""

    @hookspec
    def autobench_derivers(self) -> Sequence[type[DeriverSpec]]:  # type: ignore[empty-body]
        """Per-run deriver models: :class:`DeriverSpec` subclasses, by YAML ``kind``."""

    @hookspec
    def autobench_post_derivers(self) -> Sequence[type[PostDeriverSpec]]:  # type: ignore[empty-body]
        """Cross-run post-deriver models: :class:`PostDeriverSpec` subclasses, by YAML ``kind``."""

    @hookspec
    def autobench_exporters(self) -> Sequence[ExportFormat]:  # type: ignore[empty-body]
        """Report exporters (``autobench.report.Exporter`` instances), by format name."""

    @hookspec
    def autobench_metric_packs(self) -> Sequence[MetricPack | Mapping[str, object]]:  # type: ignore[empty-body]
        """Metric packs (semantic types, scorer defaults, report metrics): a
        :class:`MetricPack` or a mapping of its fields."""

    @hookspec
    def autobench_semantic_types(  # type: ignore[empty-body]
        self,
    ) -> Mapping[str, SemanticDefinition | Mapping[str, object]]:
        """Semantic type definitions by type name (a :class:`SemanticDefinition` or a
        mapping of its fields), laid over the built-in catalog."""

    @hookspec
    def autobench_trace_extractors(  # type: ignore[empty-body]
        self,
    ) -> Sequence[TraceExtractor | type[TraceExtractor]]:
        """Trace extractors usable by extraction replay: instances, or classes built with
        no arguments."""

    @hookspec
    def autobench_executors(self) -> Mapping[str, Callable[..., Executor]]:  # type: ignore[empty-body]
        """Executor factories by the name a spec, the builder or ``--executor`` chooses
        them by (``local`` is built in): each called as
        :class:`autobench.core.runtime.ExecutorFactory` says (the run setup, the runs,
        ``concurrency_limit``, ``sink``, ``progress``, ``options``) and returning an
        :class:`Executor`. Listing them must not import anything heavy (no cluster client):
        a factory imports its machinery when it is called."""

    @hookspec
    def autobench_cassette_transports(self) -> Sequence[Callable[[], object]]:  # type: ignore[empty-body]
        """Installers of cassette transports (``autobench run --cassette``): each is called
        once per process before the first run with a cassette, and patches an HTTP client
        library so that its requests go through the active run's
        :class:`autobench.abp._cassette.RunCassette`. Listing them imports nothing heavy."""

    @hookspec
    def autobench_instrumentors(  # type: ignore[empty-body]
        self,
    ) -> Sequence[IntegrationEntry | IntegrationFields]:
        """Native integrations (:class:`autobench.core.native.IntegrationEntry`: id,
        distribution, import module, extra, target SDKs, or a mapping of those fields, so
        an instrumentor distribution need not import the core); listing them imports no SDK."""

    @hookspec(firstresult=True)
    def autobench_indexed_result(self, record_dir: Path) -> ExperimentResult | None:
        """The experiment recorded in ``record_dir`` from a derived store (such as
        autobench-index's columnar index) when that store is present and fresh: it must
        equal ``replay_experiment(record_dir, evidence_only=True)``. ``None`` lets the next
        plugin answer, and in the end the YAML records are replayed. Commands that read
        evidence only (``report``, ``compare``, ``export``) ask it first, when
        ``record_dir`` has an ``index/`` subdirectory (where derived stores live)."""

    @hookspec
    def autobench_record_listener(
        self, record_dir: Path, experiment: ExperimentRecord, resumed: bool
    ) -> RecordListener | None:
        """A :class:`autobench.records.RecordListener` to follow the experiment ``experiment``
        as a live run records it into ``record_dir`` (``resumed``: a resumed session adding
        runs to a record that holds some already), or ``None``. autobench-index answers with
        the listener that writes the columnar index as runs land. A listener never fails
        the run: what it raises is a warning."""
