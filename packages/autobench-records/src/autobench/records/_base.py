"""Shared pydantic configuration of the evidence models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RecordModel(BaseModel):
    """Base of every evidence model: immutable, strict about unknown fields.

    Fields that appear in YAML under a short name (``semantic``, ``span``,
    ``media``) declare it as an alias; both names are accepted on input and the
    alias is used on output.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )
