"""Figures for reading record files: the fast reader of the writer's layout against the YAML
parser, per run file (whole, and without the sections a report skips) and for experiment.yaml.

    uv run python tools/bench_records_read.py                  # records 2,000 runs first
    uv run python tools/bench_records_read.py --record DIR     # an existing record directory

Both readers return the same documents (checked here on every file read); the figures are
microseconds per file, best of three passes, in this process. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import EXACT_SCORE, QUALITY_SCORE, ab_spec  # tools/bench.py, beside this script

from autobench.records._canonical import NOT_CANONICAL, read_canonical
from autobench.records._codec import EVIDENCE_ONLY, without_sections
from autobench.records._yaml import load_document

TASK = """
def run_case(ctx, case):
    n = case.input["n"]
    with ctx.span("plan", kind="agent"):
        with ctx.span("generate", kind="llm"):
            pass
    ctx.metric("latency", 5 + n % 100, semantic_type="time.latency", unit="ms")
    return {"value": n * 2, "quality": (n % 10) / 10}
"""


def best_per_item(read: Callable[[str], Any], texts: list[str]) -> float:
    """Microseconds per text, best of three passes."""
    passes = []
    for _ in range(3):
        started = time.perf_counter()
        for text in texts:
            read(text)
        passes.append(time.perf_counter() - started)
    return min(passes) / len(texts) * 1e6


def measure(record: Path) -> None:
    texts = [path.read_text(encoding="utf-8") for path in sorted(record.glob("cases/**/run.yaml"))]
    evidence = [without_sections(text, EVIDENCE_ONLY) for text in texts]
    declined = sum(read_canonical(text) is NOT_CANONICAL for text in texts)
    assert all(read_canonical(text) == load_document(text) for text in texts[:500])
    print(f"{len(texts):,} run files, {declined} outside the layout (read by the parser)")
    for name, batch in (("whole run.yaml", texts), ("evidence sections", evidence)):
        parser = best_per_item(load_document, batch)
        fast = best_per_item(read_canonical, batch)
        print(f"{name}: parser {parser:.0f} us, fast reader {fast:.0f} us ({parser / fast:.1f}x)")
    experiment = (record / "experiment.yaml").read_text(encoding="utf-8")
    parser = best_per_item(load_document, [experiment]) / 1e3
    fast = best_per_item(read_canonical, [experiment]) / 1e3
    print(f"experiment.yaml: parser {parser:.0f} ms, fast reader {fast:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="an existing record directory")
    parser.add_argument("--runs", type=int, default=2000, help="runs to record (even)")
    options = parser.parse_args()
    if options.record is not None:
        measure(options.record)
        return
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        spec = ab_spec(tmp, "read-bench", TASK, options.runs // 2, (*EXACT_SCORE, *QUALITY_SCORE))
        record = tmp / "record"
        autobench = Path(sys.executable).parent / "autobench"
        subprocess.run(
            [str(autobench), "run", str(spec), "--record", str(record), "--no-progress"],
            check=True,
            capture_output=True,
        )
        measure(record)


if __name__ == "__main__":
    main()
