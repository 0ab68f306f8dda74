"""Import llm-prices data (https://www.llm-prices.com, ``simonw/llm-prices``) into a table.

A vendor file reads ``{"vendor": "openai", "models": [{"id", "name", "price_history":
[{"input", "output", "input_cached", "from_date", "to_date"}]}]}``. Prices are USD
per million tokens; ``from_date`` is inclusive, ``to_date`` exclusive and
``null`` open-ended, so the current price is the entry whose ``to_date`` is
null (with ``at``: the entry whose date range contains that day). ``input``
becomes the ``input`` rate, ``output`` the ``output`` rate and
``input_cached`` (when not null) the ``cache_read`` rate. The vendor is the
provider. Only local files are read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from autobench.core.pricing._io import PricingError
from autobench.core.pricing._rates import TokenRate
from autobench.core.pricing._table import ModelPrice, PricingTable, ProviderPrices


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(path.glob("*.json"))
    return [path]


def _current(history: Iterable[Mapping[str, Any]], at: date | None) -> Mapping[str, Any] | None:
    chosen: Mapping[str, Any] | None = None
    for entry in history:
        start, end = entry.get("from_date"), entry.get("to_date")
        if at is None:
            if end is None and (
                chosen is None or str(start or "") > str(chosen.get("from_date") or "")
            ):
                chosen = entry
        elif (start is None or date.fromisoformat(start) <= at) and (
            end is None or at < date.fromisoformat(end)
        ):
            chosen = entry
    return chosen


def _rate(value: Any) -> TokenRate | None:
    return None if value is None else TokenRate(unit="mtok", price=Decimal(str(value)))


def from_llm_prices(path_or_dir: Path | str, *, at: date | None = None) -> PricingTable:
    """A :class:`PricingTable` of every vendor file at ``path_or_dir`` (a ``.json`` file or a
    directory of them), one provider per vendor.

    Models without a price for the day (``at``, default: the current, open
    entry) are left out. Raises :class:`PricingError` for unreadable or
    malformed files.
    """
    providers: dict[str, ProviderPrices] = {}
    for file in _files(Path(path_or_dir)):
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            vendor = str(data["vendor"])
            models: dict[str, ModelPrice] = {}
            for model in data["models"]:
                entry = _current(model.get("price_history") or (), at)
                if entry is None:
                    continue
                rates = {
                    "input": _rate(entry.get("input")),
                    "output": _rate(entry.get("output")),
                    "cache_read": _rate(entry.get("input_cached")),
                }
                if any(rate is not None for rate in rates.values()):
                    models[str(model["id"])] = ModelPrice(name=model.get("name"), **rates)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise PricingError(f"{file}: not an llm-prices vendor file: {exc}") from None
        group = providers.setdefault(vendor, ProviderPrices())
        providers[vendor] = ProviderPrices(models={**group.models, **models})
    return PricingTable(source="llm-prices", providers=providers)


class LLMPricesSource:
    """llm-prices vendor files as a price source: ``LLMPricesSource(path).load()``.

    ``path`` is one vendor ``.json`` file or a directory of them; ``at`` is the day
    whose prices apply (default: the current ones). ``load`` raises
    :class:`PricingError` like :func:`from_llm_prices`.
    """

    def __init__(self, path: Path | str, *, at: date | None = None) -> None:
        self.path = Path(path)
        self.at = at

    def __repr__(self) -> str:
        return f"LLMPricesSource({str(self.path)!r})"

    def load(self) -> PricingTable:
        """The table of the source's files (see :func:`from_llm_prices`)."""
        return from_llm_prices(self.path, at=self.at)
