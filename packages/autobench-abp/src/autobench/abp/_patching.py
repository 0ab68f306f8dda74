"""Replacing a method on a class and putting the exact original back.

A :class:`MethodPatch` remembers what ``cls.__dict__[name]`` held before it
(or that the name was inherited and absent), installs a wrapper of the same
descriptor kind (plain function, :class:`staticmethod`, :class:`classmethod`)
and restores the original object on :meth:`MethodPatch.restore`.

Several owners may patch the same attribute: each new patch wraps the
current one. Closing a patch that is not on top only disables it (its wrapper
calls straight through) until the patches above it are closed; the attribute
is restored to the state before the lowest closed patch once the top ones
are gone. When something outside this module replaced the attribute, the
foreign object is left in place and a ``conflicting`` diagnostic is returned.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from autobench.abp._instrumentor import Compatibility

_MISSING: Any = object()
_lock = threading.RLock()
# (class, attribute) -> the live patches, lowest first
_stacks: dict[tuple[type, str], list[MethodPatch]] = {}

WrapperFactory = Callable[[Callable[..., Any], str, "MethodPatch"], Callable[..., Any]]
"""Builds the wrapper of a plain function: ``(function, descriptor_kind, patch)``."""


def lookup_descriptor(cls: type, name: str) -> Any:
    """The raw class attribute ``name`` (from the MRO), without invoking descriptors."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise AttributeError(f"{cls.__qualname__} has no attribute {name!r}")


def _split(descriptor: Any, cls: type, name: str) -> tuple[Callable[..., Any], str]:
    if isinstance(descriptor, staticmethod):
        return descriptor.__func__, "static"
    if isinstance(descriptor, classmethod):
        return descriptor.__func__, "class"
    if callable(descriptor) and hasattr(descriptor, "__get__") and hasattr(descriptor, "__code__"):
        return descriptor, "instance"
    raise TypeError(
        f"{cls.__qualname__}.{name} is a {type(descriptor).__name__}; only functions, "
        "static methods and class methods can be instrumented"
    )


def _rewrap(function: Callable[..., Any], kind: str) -> Any:
    if kind == "static":
        return staticmethod(function)
    if kind == "class":
        return classmethod(function)
    return function


class MethodPatch:
    """One owner's wrapper installed on ``cls.name``."""

    __slots__ = ("active", "cls", "installed", "kind", "name", "original", "target")

    def __init__(self, cls: type, name: str, make_wrapper: WrapperFactory) -> None:
        self.cls = cls
        self.name = name
        with _lock:
            descriptor = lookup_descriptor(cls, name)
            self.target, self.kind = _split(descriptor, cls, name)
            self.original = cls.__dict__.get(name, _MISSING)
            self.active = True
            self.installed = _rewrap(make_wrapper(self.target, self.kind, self), self.kind)
            setattr(cls, name, self.installed)
            _stacks.setdefault((cls, name), []).append(self)

    @property
    def inherited(self) -> bool:
        """Whether ``name`` was inherited (absent from ``cls.__dict__``) before patching."""
        return self.original is _MISSING

    def restore(self) -> Compatibility | None:
        """Disable this patch and put back the original when no live patch sits above it.

        Returns a ``conflicting`` :class:`Compatibility` when a foreign object
        replaced the wrapper; that object is then left in place.
        """
        with _lock:
            if not self.active:
                return None
            self.active = False
            key = (self.cls, self.name)
            stack = _stacks.get(key, [])
            if stack and stack[-1] is self:
                current = self.cls.__dict__.get(self.name, _MISSING)
                if current is not self.installed:
                    del stack[stack.index(self)]
                    if not stack:
                        _stacks.pop(key, None)
                    return Compatibility.conflicting(
                        f"{self.cls.__qualname__}.{self.name} was replaced by another wrapper "
                        f"({type(current).__name__}); it was left in place",
                        instrumentor="autobench.method",
                    )
                while stack and not stack[-1].active:
                    restored = stack.pop().original
                    if restored is _MISSING:
                        delattr(self.cls, self.name)
                    else:
                        setattr(self.cls, self.name, restored)
                if not stack:
                    _stacks.pop(key, None)
            return None
