"""Shared ``$defs`` for the editor schemas, filled from pydantic models."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

_REF = "#/$defs/{model}"


class Definitions:
    """Collects model schemas (by alias, validation mode) under one ``$defs`` table.

    :meth:`model` returns the model's own schema (its nested models become
    ``$ref`` entries into the table); :meth:`ref` stores the model itself in
    the table and returns a ``$ref`` to it. Raises ``ValueError`` when two
    different schemas claim the same definition name.
    """

    def __init__(self) -> None:
        self.table: dict[str, dict[str, Any]] = {}

    def _add(self, name: str, schema: dict[str, Any]) -> None:
        known = self.table.setdefault(name, schema)
        if known != schema:
            raise ValueError(f"two different schemas are both named {name!r}")

    def model(self, model: type[BaseModel]) -> dict[str, Any]:
        """The JSON schema of ``model`` with its nested definitions moved to the table."""
        schema = copy.deepcopy(model.model_json_schema(by_alias=True, ref_template=_REF))
        for name, definition in schema.pop("$defs", {}).items():
            self._add(name, definition)
        return schema

    def ref(self, model: type[BaseModel]) -> dict[str, Any]:
        """``{"$ref": ...}`` to ``model``'s schema, stored in the table under its class name."""
        self._add(model.__name__, self.model(model))
        return {"$ref": _REF.format(model=model.__name__)}

    def named(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Store a hand-built ``schema`` under ``name``; return a ``$ref`` to it."""
        self._add(name, schema)
        return {"$ref": _REF.format(model=name)}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null`` (the loader reads a null section as an absent one)."""
    return {"anyOf": [schema, {"type": "null"}]}


def closed(
    properties: dict[str, Any], *, required: tuple[str, ...] = (), description: str | None = None
) -> dict[str, Any]:
    """An object schema with exactly ``properties`` (unknown keys are flagged)."""
    schema: dict[str, Any] = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = properties
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


def document(
    title: str, description: str, body: dict[str, Any], defs: Definitions
) -> dict[str, Any]:
    """A complete draft 2020-12 schema document around ``body`` with the collected ``$defs``."""
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": description,
        **body,
    }
    if defs.table:
        schema["$defs"] = dict(sorted(defs.table.items()))
    return schema
