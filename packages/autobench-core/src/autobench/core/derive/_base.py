"""Per-run derivers: the spec base class, the call a deriver receives and what it returns.

A deriver kind is a :class:`DeriverSpec` subclass with a literal ``kind``
(its YAML ``kind``), registered through the ``autobench_derivers`` hook like
any plugin. Once per experiment the runtime calls :meth:`DeriverSpec.prepare`
(read files, build indexes); the prepared deriver's ``derive(call)`` is then
called once per run, after scoring, and returns :class:`DerivedValue`\\ s the
runtime records as observations with source ``derived``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from autobench.abp import InstrumentationScope, SpanRecord
from autobench.records import (
    Case,
    Direction,
    Observation,
    ObservationKind,
    ObservationRole,
    SemanticRegistry,
    SpanIndex,
    Variant,
)


@dataclass(frozen=True, slots=True)
class DerivationCall:
    """What one run offers a deriver: its case and variant, every observation recorded
    (task observations with the accounting summaries of additive evidence, then one per
    score), the trace's spans, their instrumentation scopes (by scope key) and the spec's
    registry. :meth:`span_index` gives what the accounting functions of
    :mod:`autobench.records` need of the trace."""

    case: Case
    variant: Variant
    observations: Sequence[Observation]
    spans: Sequence[SpanRecord]
    registry: SemanticRegistry
    scopes: Mapping[str, InstrumentationScope] = field(default_factory=dict)

    def span_index(self) -> SpanIndex:
        """Span parents, layers and operation ids of the run's trace."""
        return SpanIndex.of(spans=self.spans, scopes=self.scopes)


@dataclass(frozen=True, slots=True)
class DerivedValue:
    """One observation to record: a metric value or a diagnostic (with its ``reason``)."""

    name: str
    value: Any
    kind: ObservationKind = ObservationKind.METRIC
    semantic_type: str | None = None
    unit: str | None = None
    direction: Direction | None = None
    role: ObservationRole | None = None
    reason: str | None = None
    span_id: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)


class PreparedDeriver(Protocol):
    """A deriver ready for the runs of one experiment."""

    def derive(self, call: DerivationCall) -> Sequence[DerivedValue]:
        """The values derived for one run (never raises for missing evidence: it returns
        diagnostics instead)."""
        ...


class DeriverSpec(BaseModel):
    """Base of deriver specs. Subclasses set ``kind: Literal[...]`` and implement
    :meth:`prepare`.

    ``file_fields`` names fields holding a local file reference; the spec loader
    resolves them against the spec's directory (remote URLs and paths leaving it
    are refused), checks the file with :meth:`check_file` and records it in
    ``files`` (resolved path by field) and in ``BenchmarkSpec.source_files``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    file_fields: ClassVar[tuple[str, ...]] = ()
    files: dict[str, Path] = Field(default_factory=dict, exclude=True)
    """Resolved paths of the ``file_fields`` (filled by the loader; not part of the spec)."""

    def check_file(self, field: str, data: Any) -> None:
        """Validate the parsed content of the file named by ``field``; raise ``ValueError``
        (or a pydantic ``ValidationError`` whose locations follow ``data``)."""

    def file_model(self, field: str) -> type[BaseModel] | None:
        """The pydantic model :meth:`check_file` validates the file of ``field`` with, if
        any: an unknown key in the file is then named with the closest valid spelling."""
        return None

    def file_path(self, field: str, reference: str, base_dir: Path | None) -> Path:
        """Where the file of ``field`` is: the loader's resolved path, else ``reference``
        (``file://`` stripped) relative to ``base_dir`` (the working directory when ``None``)."""
        if field in self.files:
            return self.files[field]
        target = reference.removeprefix("file://")
        return Path(target) if base_dir is None else base_dir / target

    def prepare(self, *, base_dir: Path | None, registry: SemanticRegistry) -> PreparedDeriver:
        """Prepare this deriver for one experiment (read its files once)."""
        raise NotImplementedError
