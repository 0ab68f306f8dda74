"""What the index tests share: the task every test benchmark runs, its cases, the type of
the ``record`` fixture."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

TASK = """
def run(ctx, case):
    data = case.input
    if data.get("boom"):
        raise RuntimeError("boom " + str(data["n"]))
    if data.get("llm"):
        with ctx.span("chat", kind="llm", attributes={"model": "gpt-test", "provider": "openai"},
                      usage={"input_tokens": data["n"] + 10, "output_tokens": 3}):
            pass
    with ctx.span("work", kind="tool"):
        pass
    ctx.metric("size", data["value"], semantic_type=data.get("semantic", "workload.size"),
               unit=data.get("unit"))
    ctx.check("small", data["n"] % 3 != 0)
    return {"value": data["n"] * 2, "quality": (data["n"] % 10) / 10}
"""

SCORING = [
    {
        "kind": "exact",
        "name": "correct",
        "actual": "output.value",
        "expected": "case.expected.value",
        "semantic": "quality.correctness",
    },
    {"kind": "output", "name": "quality", "path": "output.quality", "semantic": "quality.score"},
]


Record = Callable[..., Path]
"""``record(cases, name=..., benchmark=..., variants=..., repeats=...)`` (the fixture)."""


def case(n: int, value: Any = None, **extra: Any) -> dict[str, Any]:
    """A case of :data:`TASK`: input ``n`` (expected ``2n``), metric ``value``."""
    return {
        "id": f"case-{n}",
        "input": {"n": n, "value": n if value is None else value, **extra},
        "expected": {"value": n * 2 if n % 4 else -1},
    }
