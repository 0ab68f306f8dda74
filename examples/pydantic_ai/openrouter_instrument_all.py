"""The shopping assistant against a live model on OpenRouter, instrumented by discovery.

    export OPENROUTER_API_KEY=...
    export OPENROUTER_MODEL=openrouter:openai/gpt-4.1-mini    # optional
    uv run python examples/pydantic_ai/openrouter_instrument_all.py --record /tmp/autobench-openrouter

Without ``OPENROUTER_API_KEY`` the script says so and exits (status 0) without running
anything; ``--offline`` runs the same benchmark against the offline API of
``shop_app/offline_api.py`` instead (no key, no network). The benchmark opts in once:
``.instrument(PydanticAI(assets=[INSTRUCTIONS]))`` binds the tracked instructions to
every agent span, and ``.instrument_all()`` adds every other installed integration (the
OpenAI client and HTTPX beneath Pydantic AI's OpenAI-compatible model); discovery sees
the explicit Pydantic AI instrumentor and does not install a second one. The task holds
no ``ctx.span()`` or ``ctx.metric()``. The run is recorded under ``--record`` and
reported from the record.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from shop_app.agent import INSTRUCTIONS, build_agent, recommend  # noqa: E402
from shop_benchmark import offline_model  # noqa: E402

from autobench import Benchmark, PassFailScorer  # noqa: E402
from autobench.cli import cli  # noqa: E402
from autobench.instrument.pydantic_ai import PydanticAI  # noqa: E402
from autobench.records import RecordDirectoryWriter  # noqa: E402

DEFAULT_MODEL = "openrouter:openai/gpt-4.1-mini"
OFFLINE_MODEL = "acme-mini"

CASES = [
    {"id": "lamp", "input": {"need": "lamp"}, "expected": {"sku": "SKU-LAMP-7"}},
    {"id": "chair", "input": {"need": "chair"}, "expected": {"sku": "SKU-CHAIR-2"}},
]


async def task(ctx, case):
    name = ctx.factor("model")
    model = offline_model(name) if name == OFFLINE_MODEL else name
    answer = await recommend(build_agent(model), case.input["need"], stream=True)
    return {"sku": answer.sku, "correct": answer.sku == case.expected["sku"]}


def benchmark(model: str) -> Benchmark:
    return (
        Benchmark("openrouter-shopping-agent")
        .dataset(CASES)
        .variants([{"id": "live", "factors": {"model": model}}])
        .task(task)
        .scoring(
            [
                PassFailScorer(
                    name="right_product", path="output.correct", semantic_type="result.success"
                )
            ]
        )
        .instrument(PydanticAI(assets=[INSTRUCTIONS]))
        .instrument_all()
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", type=Path, help="record directory (default: a temporary one)")
    parser.add_argument("--offline", action="store_true", help="use the offline API, no key")
    args = parser.parse_args()
    if args.offline:
        model = OFFLINE_MODEL
    elif not os.environ.get("OPENROUTER_API_KEY"):
        print(
            "skipped: OPENROUTER_API_KEY is not set, so the live OpenRouter benchmark did not "
            "run (set it, or pass --offline to run against the offline API)."
        )
        return 0
    else:
        model = os.environ.get("OPENROUTER_MODEL", DEFAULT_MODEL)
    with tempfile.TemporaryDirectory() as scratch:
        record = args.record or Path(scratch) / "record"
        result = benchmark(model).run(sink=RecordDirectoryWriter(record))
        cli.main(["report", str(record)], standalone_mode=False)
        failed = [run.case_id for run in result.runs if run.status.value != "passed"]
    if failed:
        print(f"runs that did not pass: {', '.join(failed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
