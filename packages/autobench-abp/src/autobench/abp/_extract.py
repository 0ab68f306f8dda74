"""What an instrumented call exposes to extraction, and the metric/factor specs.

``value_path`` is a dotted path walked over mapping keys, attributes, sequence
indexes and zero-argument accessors; it is never evaluated as an expression.
Its first segment is a field of :class:`InstrumentCall` (``result``,
``args``, ``kwargs``, ``self``/``instance``, ``error``, ``item_count``,
``last_item``). ``value_factory`` is the typed alternative: a callable
receiving the :class:`InstrumentCall`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autobench.abp._errors import AutobenchError

_ROOTS = frozenset(
    {"result", "args", "kwargs", "self", "instance", "error", "item_count", "last_item"}
)


class ValuePathError(AutobenchError, LookupError):
    """A ``value_path`` segment could not be resolved."""


@dataclass(slots=True)
class InstrumentCall:
    """One call of an instrumented method, as extraction sees it.

    ``instance`` is the bound object (the class for a class method, ``None``
    for a static method); ``args`` excludes it. For a stream, ``result`` is
    the stream object, ``item_count`` the number of items produced and
    ``last_item`` the latest one; for a context manager ``result`` is the value
    ``__enter__`` returned.
    """

    method: str
    instance: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result: Any = None
    error: BaseException | None = None
    item_count: int = 0
    last_item: Any = None
    end_reason: str | None = field(default=None)

    @property
    def stream_item_count(self) -> int:
        """Alias of :attr:`item_count`."""
        return self.item_count


def _check_path(path: str) -> tuple[str, ...]:
    segments = tuple(path.split("."))
    if not path or any(not segment for segment in segments):
        raise ValueError(f"value_path {path!r} has an empty segment")
    if segments[0] not in _ROOTS:
        raise ValueError(f"value_path {path!r} must start with one of {', '.join(sorted(_ROOTS))}")
    return segments


def _step(current: Any, segment: str, path: str) -> Any:
    call_it = segment.endswith("()")
    name = segment[:-2] if call_it else segment
    if isinstance(current, Mapping) and name in current:
        value = current[name]
    elif name.lstrip("-").isdigit() and isinstance(current, Sequence):
        try:
            value = current[int(name)]
        except IndexError:
            raise ValuePathError(f"{path}: index {name} is out of range") from None
    elif name.startswith("_"):
        raise ValuePathError(f"{path}: private attribute {name!r} is not reachable")
    else:
        try:
            value = getattr(current, name)
        except AttributeError:
            raise ValuePathError(
                f"{path}: {type(current).__name__} has no key or attribute {name!r}"
            ) from None
    if call_it or inspect.ismethod(value):
        if not callable(value):
            raise ValuePathError(f"{path}: {name!r} is not callable")
        value = value()
    return value


def resolve_value_path(call: InstrumentCall, path: str) -> Any:
    """Walk ``path`` over ``call``; raise :class:`ValuePathError` when a segment is missing."""
    segments = _check_path(path)
    root = "instance" if segments[0] == "self" else segments[0]
    current = getattr(call, root)
    for segment in segments[1:]:
        current = _step(current, segment, path)
    return current


ValueFactory = Callable[[InstrumentCall], Any]


def _check_source(name: str, value_path: str | None, value_factory: ValueFactory | None) -> None:
    if (value_path is None) == (value_factory is None):
        raise ValueError(f"{name!r}: give exactly one of value_path and value_factory")
    if value_path is not None:
        _check_path(value_path)


@dataclass(frozen=True, slots=True)
class InstrumentMetricSpec:
    """A metric to extract from every instrumented call, linked to its span."""

    name: str
    semantic_type: str | None
    unit: str | None = None
    value_path: str | None = None
    value_factory: ValueFactory | None = None
    role: str | None = None
    direction: str | None = None

    def __post_init__(self) -> None:
        _check_source(self.name, self.value_path, self.value_factory)

    def extract(self, call: InstrumentCall) -> Any:
        """The value for ``call`` (exceptions propagate to the caller, which reports them)."""
        return _extract(call, self.value_path, self.value_factory)


@dataclass(frozen=True, slots=True)
class InstrumentFactorSpec:
    """A factor (for example the model a provider answered with) to extract from every call."""

    name: str
    semantic_type: str | None = None
    value_path: str | None = None
    value_factory: ValueFactory | None = None

    def __post_init__(self) -> None:
        _check_source(self.name, self.value_path, self.value_factory)

    def extract(self, call: InstrumentCall) -> Any:
        """The value for ``call`` (exceptions propagate to the caller, which reports them)."""
        return _extract(call, self.value_path, self.value_factory)


def _extract(call: InstrumentCall, path: str | None, factory: ValueFactory | None) -> Any:
    if factory is not None:
        return factory(call)
    assert path is not None
    return resolve_value_path(call, path)
