"""Import genai-prices data (https://github.com/pydantic/genai-prices) into a table.

Sources, local only: the data module of the installed ``genai-prices``
package (``genai_prices.data.providers``, the default), a JSON file in the
project's ``data.json`` shape, or provider objects/mappings already in hand.
The network is never used.

Mapping: each genai-prices provider becomes a provider of the table; each
model keeps its ``id`` and ``name``; the ``equals`` clauses of its ``match``
logic become aliases (other clauses, such as ``starts_with``, cannot be
listed and are dropped; an alias already taken by another model of the
provider is dropped too). ``input_mtok``, ``output_mtok``,
``cache_read_mtok`` and ``cache_write_mtok`` become the four rates (unit
``mtok``); other prices (audio, requests, web searches) are not modelled.
A ``TieredPrices(base, tiers=[Tier(start, price)])`` becomes tiers
``[{up_to: start_1, price: base}, ..., {price: last}]``: genai-prices applies a
tier when the total input tokens exceed ``start``, which is exactly our rule
that a request with ``<= up_to`` tokens is in the lower tier. When a model has
conditional prices, the one in force on ``at`` (default: today) is used: the
last whose ``start_date`` is on or before ``at``; time-of-day prices
(off-peak discounts) are ignored.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from autobench.core.pricing._io import PricingError
from autobench.core.pricing._rates import PriceTier, TokenRate
from autobench.core.pricing._table import ModelPrice, PricingTable, ProviderPrices

_RATE_KEYS = {
    "input": "input_mtok",
    "output": "output_mtok",
    "cache_read": "cache_read_mtok",
    "cache_write": "cache_write_mtok",
}


def _get(obj: Any, name: str) -> Any:
    """A field of a genai-prices object or of its JSON mapping (``or_`` is ``or`` in JSON)."""
    if isinstance(obj, Mapping):
        return obj.get(name.rstrip("_"))
    return getattr(obj, name, None)


def _decimal(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _rate(value: Any) -> TokenRate | None:
    if value is None:
        return None
    base = _get(value, "base")
    if base is None:
        return TokenRate(unit="mtok", price=_decimal(value))
    tiers = sorted(_get(value, "tiers") or (), key=lambda tier: int(_get(tier, "start")))
    bounds = [int(_get(tier, "start")) for tier in tiers]
    prices = [_decimal(base), *(_decimal(_get(tier, "price")) for tier in tiers)]
    return TokenRate(
        unit="mtok",
        tiers=tuple(
            PriceTier(up_to=bounds[i] if i < len(bounds) else None, price=price)
            for i, price in enumerate(prices)
        ),
    )


def _start(constraint: Any) -> date | None:
    start = _get(constraint, "start_date")
    if start is None or isinstance(start, date):
        return start
    return date.fromisoformat(str(start))


def _prices_on(prices: Any, at: date) -> Any:
    if not isinstance(prices, list | tuple):
        return prices
    chosen = None
    for conditional in prices:
        constraint = _get(conditional, "constraint")
        if constraint is not None and _get(constraint, "start_time") is not None:
            continue
        start = None if constraint is None else _start(constraint)
        if start is None or start <= at:
            chosen = _get(conditional, "prices")
    return chosen


def _equals(clause: Any) -> list[str]:
    if clause is None:
        return []
    if (value := _get(clause, "equals")) is not None:
        return [str(value)]
    found: list[str] = []
    for key in ("or_", "and_"):
        for child in _get(clause, key) or ():
            found.extend(_equals(child) if key == "or_" else [])
    return found


def _provider(provider: Any, at: date) -> ProviderPrices:
    models: dict[str, ModelPrice] = {}
    taken: set[str] = set()
    for model in _get(provider, "models") or ():
        model_id = str(_get(model, "id"))
        prices = _prices_on(_get(model, "prices"), at)
        rates = {name: _rate(_get(prices, key)) for name, key in _RATE_KEYS.items()}
        if prices is None or all(rate is None for rate in rates.values()):
            continue
        taken.add(model_id.casefold())
        aliases = []
        for alias in _equals(_get(model, "match")):
            if alias.casefold() not in taken:
                taken.add(alias.casefold())
                aliases.append(alias)
        models[model_id] = ModelPrice(name=_get(model, "name"), aliases=tuple(aliases), **rates)
    ids = {model_id.casefold() for model_id in models}
    models = {
        model_id: price.model_copy(
            update={"aliases": tuple(a for a in price.aliases if a.casefold() not in ids)}
        )
        for model_id, price in models.items()
    }
    return ProviderPrices(name=_get(provider, "name"), models=models)


def _installed_providers() -> list[Any]:
    try:
        data = importlib.import_module("genai_prices.data")
    except ModuleNotFoundError as exc:
        raise PricingError(
            "the genai-prices package is not installed; install it with: pip install genai-prices"
        ) from exc
    return list(data.providers)


def from_genai_prices(
    source: Path | str | Iterable[Any] | None = None,
    *,
    providers: Iterable[str] | None = None,
    at: date | None = None,
) -> PricingTable:
    """A :class:`PricingTable` from genai-prices data (see the module docstring).

    ``source`` is ``None`` (the installed package's data), the path of a
    genai-prices JSON file, or an iterable of provider objects or mappings.
    ``providers`` keeps only those provider ids. Raises :class:`PricingError`
    when the package is missing or the file cannot be read.
    """
    day = at or date.today()
    if source is None:
        items = _installed_providers()
    elif isinstance(source, str | Path):
        try:
            loaded = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise PricingError(f"{source}: not a genai-prices JSON file: {exc}") from None
        items = list(loaded["providers"] if isinstance(loaded, Mapping) else loaded)
    else:
        items = list(source)
    wanted = None if providers is None else {p.casefold() for p in providers}
    table: dict[str, ProviderPrices] = {}
    for provider in items:
        provider_id = str(_get(provider, "id"))
        if wanted is None or provider_id.casefold() in wanted:
            table[provider_id] = _provider(provider, day)
    return PricingTable(source="genai-prices", updated_at=day.isoformat(), providers=table)


class GenAIPricesSource:
    """genai-prices data as a price source: ``GenAIPricesSource(path).load()``.

    ``path`` is a genai-prices JSON file, or ``None`` for the data of the installed
    ``genai-prices`` package; ``providers`` and ``at`` are those of
    :func:`from_genai_prices`, whose :class:`PricingError` ``load`` raises.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        providers: Iterable[str] | None = None,
        at: date | None = None,
    ) -> None:
        self.path = None if path is None else Path(path)
        self.providers = None if providers is None else tuple(providers)
        self.at = at

    def __repr__(self) -> str:
        return f"GenAIPricesSource({None if self.path is None else str(self.path)!r})"

    def load(self) -> PricingTable:
        """The table of the source's data (see :func:`from_genai_prices`)."""
        return from_genai_prices(self.path, providers=self.providers, at=self.at)
