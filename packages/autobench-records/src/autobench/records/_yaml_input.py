"""Reading the YAML people type (specs, datasets, pricing files): the text they wrote stays.

The same parser and constructor as records (:mod:`autobench.records._yaml`), with three
differences, each because a person typed the file:

- **The core schema, exactly.** YAML 1.2's core schema has no timestamp type, so an
  unquoted ``2024-02-01`` is the string written (a date meant as a date says so with the
  explicit tag ``!!timestamp 2024-02-01``), and ``1_000`` or ``0b101`` are strings too.
- **Keys and ids are text.** A plain mapping key, and the plain value of an ``id`` key, are
  the characters written (``007:`` and ``id: 007`` are ``"007"``, never the integer 7):
  they name things, and a name is what was typed.
- **Numbers that lose their text are remembered.** A plain scalar the core schema reads
  as a number whose canonical text differs from what was written (``007`` is 7, ``2.10``
  is 2.1, ``1e3`` is 1000.0, ``0o17`` is 15, ``1_000`` is 1000, ``.5`` is 0.5) keeps its
  number, as YAML 1.2 says, and is listed in :attr:`InputDocument.reshaped` with its node,
  so a caller can tell the user (and keep the text) where the text matters.
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.composer import Composer
from ruamel.yaml.cyaml import CEmitter, CParser
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import Reader
from ruamel.yaml.scanner import Scanner

from autobench.records._yaml import (
    _BOOL,
    _FLOAT,
    _INT,
    _MERGE,
    _NULL,
    _Builder,
    _Constructor,
    _float_text,
    _PureLoader,
    _Representer,
    _Resolver,
    compose_with,
    load_document,
    render_sections,
)
from autobench.records._yaml_limits import MAX_INPUT_NESTING

_CORE_SCHEMA: tuple[tuple[Any, str, str], ...] = (
    (_NULL, r"^(?:~|null|Null|NULL|)$", "~nN"),
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        _FLOAT,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
    (_MERGE, r"^<<$", "<"),
)
"""The YAML 1.2 core schema's implicit types, exactly (YAML 1.2.2, section 10.3.2): no
timestamps, no ``1_000``, no ``0b1``; the empty plain scalar is null. The merge key ``<<``
(a YAML 1.1 type most tools keep) still merges."""


class _InputResolver(_Resolver):
    """The YAML 1.2 core-schema resolver, exactly (:data:`_CORE_SCHEMA`)."""

    _implicit: dict[str, tuple[tuple[Any, re.Pattern[str]], ...]] | None = None

    def _implicit_table(self) -> dict[str, tuple[tuple[Any, re.Pattern[str]], ...]]:
        table = _InputResolver._implicit
        if table is None:
            entries: dict[str, list[tuple[Any, re.Pattern[str]]]] = {}
            for tag, pattern, firsts in _CORE_SCHEMA:
                compiled = re.compile(pattern)
                for first in (*firsts, ""):
                    entries.setdefault(first, []).append((tag, compiled))
            table = {first: tuple(found) for first, found in entries.items()}
            _InputResolver._implicit = table
        return table


class _InputDumper(CEmitter, _Representer, _InputResolver):
    """The record dumper, resolving as :func:`compose_input` reads: a date gets its explicit
    ``!!timestamp`` tag, a string that looks like a date is written plain."""

    def __init__(self, stream: Any) -> None:
        CEmitter.__init__(self, stream, width=1 << 30, allow_unicode=True)
        self._emitter = self._serializer = self._representer = self
        _Representer.__init__(self, default_flow_style=False)
        _InputResolver.__init__(self, loadumper=self)


class _InputLoader(CParser, _Constructor, _InputResolver):
    def __init__(self, stream: Any) -> None:
        CParser.__init__(self, stream)
        self._parser = self._composer = self
        _Constructor.__init__(self, loader=self)
        _InputResolver.__init__(self, loadumper=self)


class _InputPureLoader(Reader, Scanner, Parser, Composer, _Constructor, _InputResolver):
    __init__ = _PureLoader.__init__
    processing_version = (1, 2)


def _canonical(value: Any) -> str:
    return _float_text(value) if type(value) is float else str(value)


class _InputBuilder(_Builder):
    """The constructor's fast building, with keys and ids kept as text and reshaped
    numbers remembered (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.reshaped: list[tuple[Any, Any]] = []

    names_as_text = True

    def _build(self, node: Any) -> Any:
        value = super()._build(node)
        if type(node) is ScalarNode:
            kind = type(value)
            if (
                (kind is int or kind is float)
                and not node.style
                and _canonical(value) != node.value
            ):
                self.reshaped.append((node, value))
        return value


class InputDocument:
    """One document people typed: ``root`` (the node tree, ``None`` when empty), ``data``
    (plain values) and ``reshaped`` (``[(node, number)]``: the plain scalars read as
    numbers whose canonical text differs from the written ``node.value``, in file order)."""

    __slots__ = ("data", "reshaped", "root")

    def __init__(self, root: Any, data: Any, reshaped: list[tuple[Any, Any]]) -> None:
        self.root = root
        self.data = data
        self.reshaped = reshaped


def compose_input(text: str) -> Any:
    """:func:`~autobench.records.compose_yaml` for a file people typed: the same parsers,
    a resolver without timestamps, collections nested at most
    :data:`~autobench.records._yaml_limits.MAX_INPUT_NESTING` levels (what a record
    keeps of a value). Raises what ``compose_yaml`` raises."""
    return compose_with(text, _InputLoader, _InputPureLoader, max_nesting=MAX_INPUT_NESTING)


def construct_input(root: Any) -> InputDocument:
    """The :class:`InputDocument` of a node tree from :func:`compose_input`. Raises
    ``ruamel.yaml``'s ``ConstructorError`` (located) for a duplicate key or an unknown tag."""
    if root is None:
        return InputDocument(None, None, [])
    builder = _InputBuilder()
    data = builder.construct_document(root)
    return InputDocument(root, data, builder.reshaped)


def load_input(text: str, *, source: Any = None) -> Any:
    """The plain data of a file people typed (a pricing file, say): :func:`construct_input`
    of :func:`compose_input`. Raises :class:`~autobench.records.RecordFormatError` naming
    ``source`` (with line:column when located), as :func:`~autobench.records.load_document`
    does."""
    return load_document(text, source=source, compose=compose_input, construct=_input_data)


def _input_data(root: Any) -> Any:
    return construct_input(root).data


def render_input_sections(sections: dict[str, Any]) -> str:
    """:func:`~autobench.records.render_sections` for a file people will read back with
    :func:`compose_input` (an exported spec): the same text, but dates carry ``!!timestamp``
    so they stay dates there."""
    return render_sections(sections, dumper=_InputDumper)
