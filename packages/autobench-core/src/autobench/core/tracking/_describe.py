"""Canonical, structural descriptions of tracked objects (callables, classes, values).

A description is a JSON-compatible mapping whose content hash is the asset version.
Annotations are described by structure, not spelling: type aliases and forward
references are resolved and expanded, ``Literal`` choices, unions and generic
arguments are written out, and every structured class an annotation refers to
(pydantic model, dataclass, enum, typed dict, annotated class) is described in
the ``types`` section, so a change to any of them changes the hash even when the
alias or class name stays the same.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ForwardRef, Literal, TypeVar, Union

_HASH_PREFIX = 12
_DATACLASS_OPTIONS = ("init", "repr", "eq", "order", "unsafe_hash", "frozen")
_PLAIN_MODULES = frozenset({"builtins", "typing", "typing_extensions", "collections.abc"})


def canonical_json(state: Any) -> str:
    """The canonical JSON text of a description (sorted keys, no whitespace)."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(state: Any) -> str:
    """The sha256 hex digest of :func:`canonical_json` of ``state``."""
    return hashlib.sha256(canonical_json(state).encode("utf-8")).hexdigest()


def short_hash(digest: str) -> str:
    """A version: the first 12 hex digits of a sha256 digest."""
    return digest[:_HASH_PREFIX]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def jsonable(value: Any) -> Any:
    """``value`` as JSON-compatible data (models dumped, containers converted, others ``repr``)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(item) for item in value), key=canonical_json)
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return jsonable(dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, type) or callable(value):
        return qualified_name(value)
    return repr(value)


def qualified_name(obj: Any) -> str:
    """``module.qualname`` of a class or function (just the qualname for builtins)."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if module in (None, "builtins"):
        return str(name)
    return f"{module}.{name}"


def type_hints(obj: Any) -> dict[str, Any]:
    """Resolved annotations of ``obj`` (``Annotated`` kept); the raw ones when resolution fails."""
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception:
        return dict(getattr(obj, "__annotations__", {}) or {})


def _is_structured(cls: type) -> bool:
    if cls.__module__ in _PLAIN_MODULES:
        return False
    if dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum) or typing.is_typeddict(cls):
        return True
    if _is_pydantic_model(cls):
        return True
    return bool(inspect.get_annotations(cls))


def _is_pydantic_model(cls: type) -> bool:
    return isinstance(getattr(cls, "model_fields", None), dict) and hasattr(
        cls, "model_json_schema"
    )


class Describer:
    """Describes annotations and classes, collecting referenced structured types in ``types``."""

    def __init__(self) -> None:
        self.types: dict[str, Any] = {}

    def annotation(self, annotation: Any) -> str:
        """A readable, structural spelling of ``annotation``."""
        if annotation is None or annotation is type(None):
            return "None"
        if annotation is Any:
            return "Any"
        if isinstance(annotation, str):
            return annotation
        if isinstance(annotation, ForwardRef):
            return annotation.__forward_arg__
        if isinstance(annotation, TypeVar):
            return annotation.__name__
        if annotation is Ellipsis:
            return "..."
        if isinstance(annotation, list):
            return "[" + ", ".join(self.annotation(item) for item in annotation) + "]"
        if type(annotation).__name__ == "TypeAliasType" and hasattr(annotation, "__value__"):
            return self.annotation(annotation.__value__)
        origin = typing.get_origin(annotation)
        arguments = typing.get_args(annotation)
        if origin is Literal:
            return "Literal[" + ", ".join(_literal(value) for value in arguments) + "]"
        if origin is Union or origin is types.UnionType:
            return " | ".join(self.annotation(argument) for argument in arguments)
        if origin is typing.Annotated:
            metadata = ", ".join(repr(item) for item in arguments[1:])
            return f"Annotated[{self.annotation(arguments[0])}, {metadata}]"
        if origin is not None:
            name = self._class_name(origin) if isinstance(origin, type) else repr(origin)
            if not arguments:
                return name
            return f"{name}[{', '.join(self.annotation(argument) for argument in arguments)}]"
        if isinstance(annotation, type):
            return self._class_name(annotation)
        return repr(annotation).replace("typing.", "")

    def _class_name(self, cls: type) -> str:
        if cls.__module__ in ("builtins", "collections.abc"):
            return cls.__qualname__
        if cls.__module__ in ("typing", "typing_extensions"):
            return cls.__qualname__
        if _is_structured(cls):
            key = qualified_name(cls)
            if key not in self.types:
                self.types[key] = None  # placeholder: recursive references stop here
                self.types[key] = self.cls(cls)
            return cls.__qualname__
        return qualified_name(cls)

    def cls(self, cls: type) -> dict[str, Any]:
        """The structure of a class: fields (with resolved annotations), options, schema."""
        description: dict[str, Any] = {"qualname": qualified_name(cls)}
        doc = cls.__dict__.get("__doc__")
        if _is_pydantic_model(cls):
            description["model"] = "pydantic"
            description["fields"] = self._pydantic_fields(cls)
            try:
                description["schema"] = jsonable(cls.model_json_schema())  # type: ignore[attr-defined]
            except Exception as error:  # arbitrary types without a schema
                description["schema_error"] = type(error).__name__
        elif dataclasses.is_dataclass(cls):
            description["model"] = "dataclass"
            description["fields"] = self._dataclass_fields(cls)
            params = getattr(cls, "__dataclass_params__", None)
            description["options"] = {
                option: getattr(params, option)
                for option in _DATACLASS_OPTIONS
                if hasattr(params, option)
            }
            if isinstance(doc, str) and doc.startswith(f"{cls.__name__}("):
                doc = None  # generated by dataclasses from the annotations
        elif issubclass(cls, enum.Enum):
            description["model"] = "enum"
            description["members"] = {member.name: jsonable(member.value) for member in cls}
        elif typing.is_typeddict(cls):
            description["model"] = "typeddict"
            required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
            description["fields"] = {
                name: {"type": self.annotation(annotation), "required": name in required}
                for name, annotation in type_hints(cls).items()
            }
        else:
            description["model"] = "class"
            fields: dict[str, Any] = {}
            for name, annotation in type_hints(cls).items():
                entry: dict[str, Any] = {"type": self.annotation(annotation)}
                if name in cls.__dict__:
                    entry["default"] = jsonable(cls.__dict__[name])
                fields[name] = entry
            description["fields"] = fields
            init = cls.__dict__.get("__init__")
            if init is not None and callable(init):
                description["init"] = self.signature(init, skip_first=True)
        if isinstance(doc, str) and doc.strip():
            description["doc"] = inspect.cleandoc(doc)
        return description

    def _pydantic_fields(self, cls: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            entry: dict[str, Any] = {"type": self.annotation(field.annotation)}
            entry["required"] = field.is_required()
            if not field.is_required():
                if field.default_factory is not None:
                    entry["default_factory"] = qualified_name(field.default_factory)
                else:
                    entry["default"] = jsonable(field.default)
            if field.description:
                entry["description"] = field.description
            if field.examples:
                entry["examples"] = jsonable(field.examples)
            if field.alias and field.alias != name:
                entry["alias"] = field.alias
            if field.metadata:
                entry["constraints"] = [repr(item) for item in field.metadata]
            fields[name] = entry
        return fields

    def _dataclass_fields(self, cls: Any) -> dict[str, Any]:
        hints = type_hints(cls)
        fields: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            entry: dict[str, Any] = {"type": self.annotation(hints.get(field.name, field.type))}
            has_default = field.default is not dataclasses.MISSING
            has_factory = field.default_factory is not dataclasses.MISSING
            entry["required"] = not (has_default or has_factory)
            if has_default:
                entry["default"] = jsonable(field.default)
            if has_factory:
                entry["default_factory"] = qualified_name(field.default_factory)
            if not field.init:
                entry["init"] = False
            if field.metadata:
                entry["metadata"] = jsonable(dict(field.metadata))
            fields[field.name] = entry
        return fields

    def signature(
        self, function: Callable[..., Any], *, skip_first: bool = False
    ) -> dict[str, Any]:
        """Parameters (type, kind, required, default) and return type of ``function``."""
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            return {}
        hints = type_hints(function)
        params: dict[str, Any] = {}
        for index, parameter in enumerate(signature.parameters.values()):
            if skip_first and index == 0:
                continue
            entry: dict[str, Any] = {}
            annotation = hints.get(parameter.name, parameter.annotation)
            if annotation is not inspect.Parameter.empty:
                entry["type"] = self.annotation(annotation)
            variadic = parameter.kind in (
                inspect.Parameter.VAR_POSITIONAL,
                inspect.Parameter.VAR_KEYWORD,
            )
            entry["required"] = parameter.default is inspect.Parameter.empty and not variadic
            if parameter.default is not inspect.Parameter.empty:
                entry["default"] = jsonable(parameter.default)
            if parameter.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                entry["kind"] = parameter.kind.name.lower()
            params[parameter.name] = entry
        description: dict[str, Any] = {"params": params}
        returns = hints.get("return", signature.return_annotation)
        if returns is not inspect.Signature.empty:
            description["returns"] = {"type": self.annotation(returns)}
        return description


def _literal(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return f"{type(value).__qualname__}.{value.name}"
    if value is None or isinstance(value, bool | int | str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def source_of(obj: Any) -> tuple[str | None, str | None]:
    """``(source file, sha256 of the object's source text)``; ``None`` parts when unavailable."""
    try:
        path = inspect.getsourcefile(obj)
    except (TypeError, OSError):
        path = None
    try:
        text = inspect.getsource(obj)
    except (TypeError, OSError):
        return path, None
    return path, text_hash(text)


def describe_callable(function: Callable[..., Any]) -> dict[str, Any]:
    """The description of a function or other callable (without kind and name)."""
    describer = Describer()
    description: dict[str, Any] = {"qualname": qualified_name(function)}
    doc = inspect.getdoc(function)
    if doc:
        description["doc"] = doc
    description.update(describer.signature(function))
    if describer.types:
        description["types"] = describer.types
    _, source_hash = source_of(function)
    if source_hash is not None:
        description["source_hash"] = source_hash
    return description


def describe_class(cls: type) -> dict[str, Any]:
    """The description of a class (without kind and name); referenced types in ``types``."""
    describer = Describer()
    key = qualified_name(cls)
    describer.types[key] = None
    description = describer.cls(cls)
    describer.types.pop(key, None)
    if describer.types:
        description["types"] = describer.types
    return description
