"""Running a corpus application (``corpus_runner`` in a fresh interpreter) and the figures
a report must show for a ledger: token totals, request count and cost."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

PRICES = {"input": 2.0, "cache_read": 0.5, "output": 8.0}
"""US dollars per million tokens, the same for every model of the corpus."""

PRICING = """\
pricing:
  provider: openai
  models:
{models}
"""

MODEL = """\
    {name}:
      aliases: ["{name}-2026-01-01"]
      input: {{unit: mtok, price: {input}}}
      cache_read: {{unit: mtok, price: {cache_read}}}
      output: {{unit: mtok, price: {output}}}
"""

MODELS = ("gpt-5.2", "gpt-5-mini", "gpt-test")


def combinations(layers: Sequence[str], *, pairs: bool = True) -> list[list[str]]:
    """Each layer alone, every pair of them (``pairs``), and all of them together."""
    found = [[layer] for layer in layers]
    if pairs:
        found += [list(pair) for pair in itertools.combinations(layers, 2)]
    if len(layers) > 2 or not pairs:
        found.append(list(layers))
    return found


def run_app(
    tmp_path: Path,
    task: str,
    cases: Iterable[dict[str, Any]],
    combos: Iterable[Sequence[str]],
) -> dict[str, dict[str, Any]]:
    """Run ``task`` (``module:function`` of this directory) over ``cases`` once per
    combination, in one fresh interpreter; the reports keyed ``"a+b"`` then by case id."""
    models = "".join(MODEL.format(name=name, **PRICES) for name in MODELS)
    (tmp_path / "pricing.yaml").write_text(PRICING.format(models=models))
    request = {
        "name": task.split(":")[1].replace("_", "-"),
        "task": task,
        "cases": list(cases),
        "combinations": [list(combo) for combo in combos],
        "base_dir": str(tmp_path),
        "paths": [str(HERE)],
    }
    (tmp_path / "request.json").write_text(json.dumps(request))
    # the examples build their default models at import, which needs a key (never used)
    env = {**os.environ, "OPENAI_API_KEY": "sk-offline"}
    done = subprocess.run(
        [sys.executable, str(HERE / "corpus_runner.py"), "request.json", "result.json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, dict[str, Any]] = json.loads((tmp_path / "result.json").read_text())
    return result


def ledger_totals(ledger: list[dict[str, int] | None]) -> dict[str, Any]:
    """What a report must show for the usage served: token sums, requests, cost in dollars."""
    served = [entry for entry in ledger if entry is not None]
    sums = {key: sum(entry[key] for entry in served) for key in PRICES | {"reasoning": 0}}
    uncached = sums["input"] - sums["cache_read"]
    cost = (
        uncached * PRICES["input"]
        + sums["cache_read"] * PRICES["cache_read"]
        + sums["output"] * PRICES["output"]
    ) / 1e6
    return {**sums, "requests": len(ledger), "cost": cost}


def reported(report: dict[str, Any]) -> dict[str, Any]:
    """The totals of a run's report, one value each (``None`` when not reported)."""
    found: dict[str, Any] = {}
    for key, values in report["totals"].items():
        assert len(values) <= 1, (key, values)
        found[key] = values[0] if values else None
    return found
