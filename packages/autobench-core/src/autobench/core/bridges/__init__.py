"""Bridges from other libraries' data to canonical Autobench evidence (no library imported)."""

from autobench.core.bridges._pydantic_ai import PydanticAIUsage, record_pydantic_ai_usage

__all__ = ["PydanticAIUsage", "record_pydantic_ai_usage"]
