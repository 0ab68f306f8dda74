"""Pricing files: read and write the "Exported Pricing YAML" shape.

A pricing file::

    record:                 # optional when written by hand
      type: pricing
      version: 1

    pricing:
      provider: openrouter
      source: genai-prices
      updated_at: "2026-05-07"
      models:
        google/gemini-3-flash-preview:
          name: Gemini 3 Flash Preview
          aliases: [google:gemini-3-flash-preview]
          input: {unit: mtok, price: 0.3, tiers: [{up_to: 1000000, price: 0.3}, {price: 0.6}]}
          output: {unit: mtok, price: 2.5}

Prices are written as YAML numbers when a float reads back as the same
decimal, and as quoted decimal strings otherwise, so a table round-trips
exactly. Files are read and written through :mod:`autobench.records`' YAML
helpers (safe loading only).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from autobench.abp import AutobenchError
from autobench.core.pricing._located import pricing_problem
from autobench.core.pricing._table import PricingTable
from autobench.records import RecordFormatError, load_input, render_input_sections

PRICING_RECORD_TYPE = "pricing"
PRICING_RECORD_VERSION = 1


class PricingError(AutobenchError, ValueError):
    """A pricing file is missing, malformed or invalid; the message names the file and the
    field at fault (``models.gpt-4o.input.price``)."""


class PricingRecordHeader(BaseModel):
    """The ``record:`` header of a pricing file."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: Literal["pricing"]
    version: Literal[1]


class PricingDocument(BaseModel):
    """A whole pricing file: the optional header and the ``pricing`` table."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    record: PricingRecordHeader | None = None
    pricing: PricingTable


def pricing_table_from_document(data: Any, *, source: Path | str = "<pricing>") -> PricingTable:
    """The table of a parsed pricing file; raises :class:`PricingError` naming ``source``."""
    return _validated(data, source, None)


def _validated(data: Any, source: Path | str, text: str | None) -> PricingTable:
    try:
        return PricingDocument.model_validate(data).pricing
    except ValidationError as exc:
        raise PricingError(pricing_problem(exc, PricingDocument, source, text)) from None


def load_pricing_table(path: Path | str) -> PricingTable:
    """Read the pricing file at ``path`` (a local file; see the module docstring).

    Raises :class:`PricingError` when the file does not exist, is not valid
    YAML, or does not hold a valid table (then naming the line and column of the
    field at fault, and the closest valid spelling of an unknown key).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PricingError(f"{path}: cannot read pricing file: {exc.strerror or exc}") from None
    try:
        data = load_input(text, source=path)
    except RecordFormatError as exc:
        raise PricingError(str(exc)) from None
    return _validated(data, path, text)


def _number(value: Decimal) -> int | float | str:
    if value == value.to_integral_value() and abs(value) < 10**15:
        return int(value)
    as_float = float(value)
    return as_float if Decimal(repr(as_float)) == value else format(value, "f")


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return _number(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items() if item not in ((), [], {})}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def pricing_table_to_document(table: PricingTable) -> dict[str, Any]:
    """The document of :func:`dump_pricing_table` (header and ``pricing`` section)."""
    body = table.model_dump(mode="python", exclude_none=True)
    return {
        "record": {"type": PRICING_RECORD_TYPE, "version": PRICING_RECORD_VERSION},
        "pricing": _plain(body),
    }


def dump_pricing_table(table: PricingTable, path: Path | str) -> Path:
    """Write ``table`` to ``path`` as a pricing record (header, then ``pricing:``); returns
    the path. :func:`load_pricing_table` reads it back equal to ``table``."""
    path = Path(path)
    text = render_input_sections(pricing_table_to_document(table)).lstrip("\n")
    path.write_text(text, encoding="utf-8")
    return path


class StaticPriceSource:
    """A pricing file kept with the benchmark: ``StaticPriceSource(path).load()``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"StaticPriceSource({str(self.path)!r})"

    def load(self) -> PricingTable:
        """The table in the file (:func:`load_pricing_table`, same errors)."""
        return load_pricing_table(self.path)
