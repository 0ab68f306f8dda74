"""Span selectors: which spans of a run a scorer looks at (``ScoringCall.selected_spans``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from autobench.abp import SpanRecord
from autobench.records import Observation


class SpanSelector(BaseModel):
    """A filter over a run's spans; a span is selected when it passes every given criterion.

    YAML (the ``span:`` key of any scorer)::

        span:
          kind: tool                       # SpanRecord.kind equals it
          name: lookup_user                # the operation name equals it
          tag: {phase: retrieval}          # (or ``tags``) every pair is among the span's tags
          path: support_agent/lookup_user  # see below
          semantic_type: agent.tool.name   # an observation of that type is linked to the span

    ``path`` is matched against the span's ancestor chain, the operation
    names from the root span down to the span itself (``Trace.path``):
    its ``/``-separated segments must equal the *last* names of the chain,
    so ``support_agent/lookup_user`` selects ``lookup_user`` spans whose parent
    is ``support_agent``, at any depth. A leading ``/`` anchors the path at the
    root span (``/benchmark.run/support_agent``), and a ``*`` segment matches
    any single name. ``semantic_type`` compares observation semantic types
    exactly (no parent-type matching). An empty selector selects every span.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True)

    kind: str | None = None
    name: str | None = None
    tags: dict[str, str] = Field(default_factory=dict, validation_alias=AliasChoices("tags", "tag"))
    path: str | None = None
    semantic_type: str | None = Field(
        default=None, validation_alias=AliasChoices("semantic_type", "semantic")
    )

    @field_validator("path")
    @classmethod
    def _segments(cls, value: str | None) -> str | None:
        if value is not None and any(not part for part in value.removeprefix("/").split("/")):
            raise ValueError(f"span path {value!r} has an empty segment")
        return value

    def select(
        self, spans: Sequence[SpanRecord], observations: Iterable[Observation] = ()
    ) -> tuple[SpanRecord, ...]:
        """The spans (in their order) this selector matches; ``observations`` are the run's,
        used by ``semantic_type``."""
        by_id = {span.id: span for span in spans}
        linked: set[str] | None = None
        if self.semantic_type is not None:
            linked = {
                obs.span_id
                for obs in observations
                if obs.span_id is not None and obs.semantic_type == self.semantic_type
            }
        return tuple(span for span in spans if self._matches(span, by_id, linked))

    def _matches(
        self, span: SpanRecord, by_id: Mapping[str, SpanRecord], linked: set[str] | None
    ) -> bool:
        if self.kind is not None and span.kind != self.kind:
            return False
        if self.name is not None and span.operation != self.name:
            return False
        if any(span.tags.get(key) != value for key, value in self.tags.items()):
            return False
        if linked is not None and span.id not in linked:
            return False
        return self.path is None or _path_matches(self.path, _chain(span, by_id))


def _chain(span: SpanRecord, by_id: Mapping[str, SpanRecord]) -> tuple[str, ...]:
    names: list[str] = []
    current: SpanRecord | None = span
    seen: set[str] = set()
    while current is not None and current.id not in seen:
        seen.add(current.id)
        names.append(current.operation)
        current = by_id.get(current.parent) if current.parent is not None else None
    return tuple(reversed(names))


def _path_matches(path: str, chain: tuple[str, ...]) -> bool:
    anchored = path.startswith("/")
    segments = path.removeprefix("/").split("/")
    if len(segments) > len(chain) or (anchored and len(segments) != len(chain)):
        return False
    tail = chain[len(chain) - len(segments) :]
    return all(segment in ("*", name) for segment, name in zip(segments, tail, strict=True))
