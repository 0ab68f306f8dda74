"""The post-deriver contract: cross-run derivation over a finished experiment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, model_serializer

from autobench.records import Observation, RunRecord, SemanticRegistry


class PostDeriverSpec(BaseModel):
    """Base of post-deriver models (``post_derive:`` entries), selected by ``kind``.

    Post-derivers run once, after every run of the experiment finished and
    before the summary, and see all run records. Subclasses set a ``kind``
    literal and implement :meth:`derive`; plugins contribute them through the
    ``autobench_post_derivers`` hook.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str

    @model_serializer(mode="wrap")
    def _always_kind(self, handler: Any) -> Any:
        """Keep ``kind`` in every dump (``exclude_defaults`` included): it selects the model."""
        data = handler(self)
        if isinstance(data, dict) and "kind" not in data:
            data = {"kind": self.kind, **data}
        return data

    def output_semantic_types(self) -> tuple[str, ...]:
        """Semantic types this post-deriver emits (policies cannot read them per run)."""
        return ()

    def output_names(self) -> tuple[str, ...]:
        """Observation names this post-deriver emits (unique across a spec)."""
        return ()

    def derive(
        self, runs: Sequence[RunRecord], registry: SemanticRegistry
    ) -> Mapping[str, Sequence[Observation]]:
        """New observations keyed by run id (source ``derived``). Runs are in plan order."""
        raise NotImplementedError
