"""``WarehouseClient``: an offline stand-in for a per-warehouse stock API.

Every lookup awaits a short simulated network delay (deterministic per warehouse), so a
caller that fans out with ``asyncio.gather`` really has several requests in flight.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

WAREHOUSES: dict[str, str] = {
    "berlin": "eu",
    "lyon": "eu",
    "madrid": "eu",
    "austin": "us",
    "toronto": "us",
}

_STOCK: dict[str, dict[str, int]] = {
    "berlin": {"desk-lamp": 4, "monitor-arm": 0, "standing-desk": 1},
    "lyon": {"desk-lamp": 2, "monitor-arm": 3, "standing-desk": 0},
    "madrid": {"desk-lamp": 0, "monitor-arm": 1, "standing-desk": 0},
    "austin": {"desk-lamp": 9, "monitor-arm": 5, "standing-desk": 6},
    "toronto": {"desk-lamp": 1, "monitor-arm": 0, "standing-desk": 2},
}

_LATENCY_S: dict[str, float] = {
    "berlin": 0.004,
    "lyon": 0.006,
    "madrid": 0.005,
    "austin": 0.012,
    "toronto": 0.009,
}


@dataclass(frozen=True, slots=True)
class StockLevel:
    warehouse: str
    sku: str
    units: int


class WarehouseClient:
    """Looks up stock levels, one request per warehouse."""

    async def stock_level(self, warehouse: str, sku: str) -> StockLevel:
        await asyncio.sleep(_LATENCY_S[warehouse])
        return StockLevel(warehouse, sku, _STOCK[warehouse].get(sku, 0))


def warehouses_for(region: str, strategy: str) -> list[str]:
    """``regional``: the customer's region only; ``global``: every warehouse."""
    if strategy == "global":
        return list(WAREHOUSES)
    return [name for name, home in WAREHOUSES.items() if home == region]
