"""Shared fields-sets: one ``set`` for all frozen models given the same fields.

Each pydantic model carries the set of the fields it was given (``model_fields_set``): a
``set`` of up to a dozen names, about 200 to 700 bytes, often more than the model's values.
A frozen model never adds to it, and ``model_copy`` copies it before adding to it, so the
models of one shape can share one set (as the ABP collector does for spans and the
records for trusted observations): what an experiment holds per run (its records, the
report's rows) shrinks by that much.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
"""One shared ``set`` per distinct fields-set met (a few dozen shapes in a process)."""

_set = object.__setattr__


def shared_fields_set(fields: set[str] | frozenset[str]) -> set[str]:
    """The shared set equal to ``fields`` (never to be changed)."""
    key = frozenset(fields)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS.setdefault(key, set(key))
    return shared


def share_fields_sets(value: Any) -> None:
    """Give ``value`` (a frozen model, or a tuple, list or dict of them) and the frozen
    models inside it shared fields-sets; anything else (a model that can be changed, whose
    set grows when it is) is left alone. The models are changed in place, and stay equal."""
    if isinstance(value, BaseModel) and value.model_config.get("frozen"):
        fields = value.__pydantic_fields_set__
        shared = shared_fields_set(fields)
        if fields is not shared:
            _set(value, "__pydantic_fields_set__", shared)
        for inner in value.__dict__.values():
            if isinstance(inner, BaseModel | tuple | list | dict):
                share_fields_sets(inner)
    elif isinstance(value, tuple | list):
        for item in value:
            if isinstance(item, BaseModel):
                share_fields_sets(item)
    elif isinstance(value, dict):
        for item in value.values():
            if isinstance(item, BaseModel):
                share_fields_sets(item)


def share_flat_fields_sets(models: Iterable[BaseModel]) -> None:
    """:func:`share_fields_sets` for frozen models whose fields hold no model (a plan's
    planned runs, a report's run rows without an error location): no walk into their
    values, and the shared set found once per change of fields (cheaper over many models
    of one shape)."""
    shared: set[str] | None = None
    for model in models:
        if not model.model_config.get("frozen"):
            continue  # its set grows when it is changed
        fields = model.__pydantic_fields_set__
        if shared is None or fields != shared:
            shared = shared_fields_set(fields)
        if fields is not shared:
            _set(model, "__pydantic_fields_set__", shared)
