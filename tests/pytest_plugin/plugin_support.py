"""Real small benchmarks for the pytest plugin's tests: a spec file and its task module,
written into a pytester directory."""

from __future__ import annotations

from pathlib import Path

TASK = """
SHIFT = {shift}


def run_case(ctx, case):
    mode = ctx.factor("mode")
    if mode == "crash" and case.id == "c2":
        raise RuntimeError("the adder crashed on c2")
    total = case.input["a"] + case.input["b"]
    if mode == "broken" and case.id == "c2":
        total += 1
    ctx.metric("correct", total == case.expected["sum"], semantic_type="result.success")
    quality = 0.9 - SHIFT + case.input["a"] / 100
    ctx.metric("quality", quality, semantic_type="quality.score", role="objective")
    ctx.metric("latency", 10 + case.input["a"], semantic_type="time.latency", unit="ms")
    return {{"sum": total}}
"""

SPEC = """\
benchmark:
  {name}:
    cases:
{cases}
    run:
      python: {module}:run_case
    variants:
{variants}
    policies:
      - name: correct
        metric: result.success
        must_equal: true
"""


def write_benchmark(
    where: Path,
    name: str = "adder",
    *,
    modes: tuple[str, ...] = ("plain",),
    shift: float = 0.0,
    cases: int = 4,
    file_name: str = "autobench.yaml",
) -> Path:
    """``where/file_name`` (a benchmark ``name`` with one variant per mode: ``plain``,
    ``broken`` gets case c2 wrong, ``crash`` raises on c2) and its task module; ``shift``
    lowers every quality score. Returns the spec's path."""
    where.mkdir(parents=True, exist_ok=True)
    module = f"{name.replace('-', '_')}_task"
    (where / f"{module}.py").write_text(TASK.format(shift=shift))
    case_lines = "\n".join(
        f"      - {{id: c{i}, input: {{a: {i}, b: 2}}, expected: {{sum: {i + 2}}}}}"
        for i in range(cases)
    )
    variant_lines = "\n".join(f"      {mode}: {{factors: {{mode: {mode}}}}}" for mode in modes)
    spec = where / file_name
    spec.write_text(SPEC.format(name=name, cases=case_lines, module=module, variants=variant_lines))
    return spec
