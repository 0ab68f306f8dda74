"""Shared pydantic configuration of the evidence models."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, PrivateAttr


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


class StoredRecordModel(RecordModel):
    """A derived record file's content that can know where it is stored (``path``, relative
    to the experiment directory; never written into the file): extraction, re-scoring and
    pairwise records."""

    _path: str | None = PrivateAttr(default=None)

    @property
    def path(self) -> str | None:
        """Where the record is stored, relative to the experiment directory (not written)."""
        return self._path

    def stored_at(self, path: str) -> Self:
        """This record, knowing it is stored at ``path`` (relative to the experiment dir)."""
        copy = self.model_copy()
        copy._path = path
        return copy
