"""What a deriver writes: the name and metadata of a derived metric observation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from autobench.records import Direction, ObservationRole, SemanticType


class DerivedMetricOutput(BaseModel):
    """The observation a deriver or post-deriver emits.

    ``name`` is the observation name (``speedup``), ``semantic_type`` its
    semantic type (``performance.speedup``), ``unit`` its unit (``None``: the
    deriver's default, documented per deriver), ``direction`` whether larger
    (``maximize``) or smaller (``minimize``) values are better and ``role``
    how it takes part in evaluation (default ``objective``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = Field(min_length=1)
    semantic_type: SemanticType = Field(min_length=1)
    unit: str | None = None
    direction: Direction | None = None
    role: ObservationRole = ObservationRole.OBJECTIVE
