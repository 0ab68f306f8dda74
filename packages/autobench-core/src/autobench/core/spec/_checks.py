"""Shape checks on located YAML values, and pydantic validation with located errors."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from autobench.core._keys import first_error, keys_at, model_keys
from autobench.core.spec._errors import SpecError, did_you_mean, one_of
from autobench.core.spec._yaml import Located, kind_of

M = TypeVar("M", bound=BaseModel)

__all__ = [
    "expect_keys",
    "expect_list",
    "expect_mapping",
    "expect_string",
    "located_validation_error",
    "model_keys",
    "validate_model",
]


def expect_mapping(item: Located, what: str) -> dict[Any, Any]:
    """The mapping ``item`` holds (``{}`` for null); raises :class:`SpecError` for anything else."""
    if item.value is None:
        return {}
    if not isinstance(item.value, dict):
        raise SpecError(
            item.location,
            f"{what} must be a mapping, not {kind_of(item.value)}",
            expected="a mapping",
        )
    return item.value


def expect_list(item: Located, what: str) -> list[Any]:
    """The list ``item`` holds (``[]`` for null); raises :class:`SpecError` for anything else."""
    if item.value is None:
        return []
    if not isinstance(item.value, list):
        raise SpecError(
            item.location, f"{what} must be a list, not {kind_of(item.value)}", expected="a list"
        )
    return item.value


def expect_string(item: Located, what: str) -> str:
    """The non-empty string ``item`` holds; raises :class:`SpecError` for anything else."""
    if not isinstance(item.value, str) or not item.value:
        raise SpecError(
            item.location,
            f"{what} must be a non-empty string, not {kind_of(item.value)}",
            expected="a string",
        )
    return item.value


def expect_keys(item: Located, allowed: Iterable[str], what: str) -> None:
    """Raise :class:`SpecError` at the first key of mapping ``item`` not in ``allowed``."""
    names = frozenset(allowed)
    for key, child in item.items():
        if key not in names:
            raise SpecError(
                child.key_location,
                f"unknown key {key!r} in {what}{did_you_mean(key, names)}",
                expected=one_of(names),
            )


def validate_model(
    model: type[M], data: Any, item: Located, what: str, *, context: Any = None
) -> M:
    """``model.model_validate(data, context=context)``, with any failure raised as a
    :class:`SpecError`.

    ``data`` must mirror the shape of ``item`` closely enough for the error's
    field path to be followed into the YAML: the error points at the deepest
    value along that path (at the key, for an unknown key).
    """
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise located_validation_error(exc, item, what, model_keys(model), model=model) from None
    except (ValueError, TypeError) as exc:
        raise SpecError(item.location, f"invalid {what}: {exc}") from None


_FRIENDLY = (
    ("a valid tuple", "a list"),
    ("a valid list", "a list"),
    ("a valid dictionary", "a mapping"),
)


def located_validation_error(
    exc: ValidationError,
    item: Located,
    what: str,
    keys: Iterable[str] = (),
    *,
    model: type[BaseModel] | None = None,
) -> SpecError:
    """An error of ``exc`` as a :class:`SpecError` located through ``item``: the first
    unknown key when there is one (at its key, with the closest valid spelling), else
    the first error.

    ``keys`` (the validated model's keys) is the expected choice for an unknown key
    at the top level of the model; ``model`` (the validated model) gives the keys of
    the nested mappings.
    """
    error = first_error(exc)
    loc = tuple(step for step in error["loc"] if isinstance(step, str | int))
    target = item.descend(loc)
    field = ".".join(str(step) for step in loc)
    if error["type"] == "extra_forbidden" and loc:
        names = frozenset(keys) if keys and len(loc) == 1 else frozenset()
        if not names and model is not None:
            names = keys_at(model, loc[:-1])
        return SpecError(
            target.key_location,
            f"unknown key {loc[-1]!r} in {what}"
            + (f" at '{field}'" if len(loc) > 1 else "")
            + did_you_mean(loc[-1], names),
            expected=one_of(names) if names else None,
        )
    where = f"'{field}' of {what}" if field else what
    choices = (error.get("ctx") or {}).get("expected")
    if choices is not None:
        return SpecError(
            target.location,
            f"invalid {where}: {error['input']!r} is not allowed",
            expected=str(choices),
        )
    message = str(error["msg"]).removeprefix("Value error, ")
    for pydantic_name, yaml_name in _FRIENDLY:
        message = message.replace(pydantic_name, yaml_name)
    if error["type"].endswith("_type"):
        message = f"{message}, not {kind_of(error['input'])}"
    return SpecError(target.location, f"invalid {where}: {message}")


def kind_error(entry: Located, what: str, kinds: Collection[str]) -> SpecError:
    """The located error of ``entry`` (a ``{kind, ...}`` mapping) whose ``kind`` is missing or
    not one of ``kinds``: a misspelt ``kind`` key (``knd:``) or value (``token_cots``) is
    named where it is written, with the closest valid spelling."""
    kind = entry.get("kind")
    if kind is None:
        for key, value in entry.items():
            if isinstance(key, str) and did_you_mean(key, ["kind"]):
                return SpecError(
                    value.key_location,
                    f"unknown key {key!r} in {what} (did you mean 'kind'?)",
                    expected=f"kind: one of {', '.join(sorted(kinds))}",
                )
        return SpecError(entry.location, f"{what} has no 'kind'", expected=one_of(kinds))
    return SpecError(
        kind.location,
        f"{what} has unknown kind {kind.value!r}{did_you_mean(kind.value, kinds)}",
        expected=one_of(kinds),
    )
