"""Task for the minimal example: compute ``a op b`` with the variant's algorithm."""

from __future__ import annotations

from autobench import Case, RunContext


def _multiply_by_addition(a: int, b: int) -> int:
    total = 0
    for _ in range(b):
        total += a
    return total


def run_case(ctx: RunContext, case: Case) -> dict[str, int]:
    op, a, b = case.input["op"], case.input["a"], case.input["b"]
    algorithm = ctx.factor("algorithm")
    if op == "add":
        result = a + b
    elif algorithm == "builtin":
        result = a * b
    else:
        result = _multiply_by_addition(a, b)
    return {"result": result}
