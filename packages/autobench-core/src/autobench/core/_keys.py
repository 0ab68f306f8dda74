"""The keys a pydantic model accepts, the closest spelling of an unknown one, and the
validation error to report first.

Shared by the spec loader and the pricing file reader, so an unknown key anywhere
in a YAML file is named with the closest valid spelling.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails


def did_you_mean(word: object, names: Iterable[object]) -> str:
    """``" (did you mean 'x'?)"`` for the name of ``names`` closest to ``word`` (by
    :func:`difflib.get_close_matches`, similarity at least 0.6), else ``""``."""
    if not isinstance(word, str):
        return ""
    found = difflib.get_close_matches(word, [str(name) for name in names], n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


def model_keys(model: type[BaseModel], *, exclude: Iterable[str] = ()) -> frozenset[str]:
    """The keys a model accepts: field names and their aliases, minus ``exclude``."""
    keys = {
        alias
        for name, field in model.model_fields.items()
        for alias in (name, field.alias)
        if alias
    }
    return frozenset(keys - set(exclude))


def first_error(exc: ValidationError) -> ErrorDetails:
    """The error of ``exc`` to report: the first unknown key when there is one (a
    misspelled key also reads as its field missing), else the first error."""
    errors = exc.errors(include_url=False)
    return next((error for error in errors if error["type"] == "extra_forbidden"), errors[0])


def _members(annotation: Any) -> list[Any]:
    """``annotation`` with unions and ``Annotated`` unwrapped into its member types."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [member for arg in typing.get_args(annotation) for member in _members(arg)]
    return [annotation]


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _tags(model: type[BaseModel]) -> set[object]:
    """The names pydantic uses for ``model`` as a union member: its class name and the
    defaults of its literal fields (a discriminator's tag)."""
    tags: set[object] = {model.__name__}
    for field in model.model_fields.values():
        if typing.get_origin(field.annotation) is typing.Literal:
            tags.add(field.default)
    return tags


def _step(annotation: Any, step: str | int) -> list[Any]:
    """The types one ``loc`` step below ``annotation``."""
    if _is_model(annotation):
        if step in _tags(annotation):
            return [annotation]
        return [
            field.annotation
            for name, field in annotation.model_fields.items()
            if step in (name, field.alias)
        ]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if isinstance(origin, type) and issubclass(origin, Mapping) and len(args) == 2:
        return [args[1]]
    if isinstance(origin, type) and issubclass(origin, Sequence) and args and isinstance(step, int):
        return [args[0]]
    return []


def keys_at(model: type[BaseModel], loc: Sequence[str | int]) -> frozenset[str]:
    """The keys accepted by the mapping at ``loc`` (a pydantic error path) inside
    ``model``; empty when the path cannot be followed to a model."""
    current: list[Any] = [model]
    for step in loc:
        current = [
            found for kind in current for member in _members(kind) for found in _step(member, step)
        ]
    for member in (member for kind in current for member in _members(kind)):
        if _is_model(member):
            return model_keys(member)
    return frozenset()
