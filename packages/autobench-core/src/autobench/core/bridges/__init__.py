"""Bridges from other libraries' data to canonical Autobench evidence (no library imported)."""

from autobench.core.bridges._pydantic_ai import PydanticAIUsage, record_pydantic_ai_usage
from autobench.core.bridges._pydantic_evals import (
    PydanticEvalsBridge,
    PydanticEvalsCasePayload,
    PydanticEvalsDatasetPayload,
    PydanticEvalsUnavailableError,
)

__all__ = [
    "PydanticAIUsage",
    "PydanticEvalsBridge",
    "PydanticEvalsCasePayload",
    "PydanticEvalsDatasetPayload",
    "PydanticEvalsUnavailableError",
    "record_pydantic_ai_usage",
]
