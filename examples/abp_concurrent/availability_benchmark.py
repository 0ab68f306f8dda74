"""The benchmark task: can an order be filled? Asks several warehouses at once.

The task opens one workflow span and fans out one ``warehouse.stock_level`` span per
warehouse with ``asyncio.gather``. Each worker span nests under the workflow span of its
own run, even with several runs in flight (``--concurrency 2``): the span context is
task-local, and tasks created inside a span inherit it.
"""

from __future__ import annotations

import asyncio

from inventory_app.warehouses import StockLevel, WarehouseClient, warehouses_for

from autobench import Case, RunContext, SpanKind


async def _fetch(ctx: RunContext, client: WarehouseClient, warehouse: str, sku: str) -> StockLevel:
    with ctx.span(
        "warehouse.stock_level", kind=SpanKind.TOOL, attributes={"warehouse": warehouse}
    ) as span:
        level = await client.stock_level(warehouse, sku)
        span.set_output({"units": level.units})
        return level


async def check_availability(ctx: RunContext, case: Case) -> dict[str, object]:
    sku, quantity = case.input["sku"], case.input["quantity"]
    warehouses = warehouses_for(case.input["region"], ctx.factor("strategy"))
    client = WarehouseClient()
    with ctx.span("check_availability", kind=SpanKind.WORKFLOW, input=case.input) as workflow:
        levels = await asyncio.gather(*(_fetch(ctx, client, name, sku) for name in warehouses))
        available = sum(level.units for level in levels)
        workflow.set_output({"available": available, "warehouses": len(levels)})
    ctx.metric("warehouses_queried", len(levels), semantic_type="workload.size")
    return {
        "available": available,
        "fillable": available >= quantity,
        "stock": {level.warehouse: level.units for level in levels},
    }
