"""Derive trace evidence from a recorded experiment, without running anything again.

    uv run python examples/abp_replay/replay_and_extract.py RECORD_DIR

For every recorded run, the signal, span and usage extractors read the stored ABP trace and
write an immutable derived record under ``RECORD_DIR/derived/``. The original files are not
touched, and neither the benchmark's task nor any provider SDK is imported. Running it a
second time with the same extractor versions is refused: derived records are never
overwritten.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from autobench.records import (
    CompositeExtractor,
    SignalExtractor,
    SpanExtractor,
    UsageExtractor,
    replay_experiment,
    replay_experiment_extraction,
)

# (column heading, semantic type) of the derived values shown per run
COLUMNS = (
    ("spans", "operation.count"),
    ("depth", "operation.depth.max"),
    ("fan-out", "operation.fanout.max"),
    ("makespan", "time.critical_path"),
    ("parallelism", "operation.parallelism"),
)


def _format(value: object, unit: str | None) -> str:
    if value is None:
        return "-"
    if unit == "s" and isinstance(value, float):
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Derive trace evidence from a recorded experiment."
    )
    parser.add_argument("record_dir", type=Path, help="a directory written by autobench run")
    args = parser.parse_args(argv)

    extractor = CompositeExtractor(SignalExtractor(), SpanExtractor(), UsageExtractor())
    derived = replay_experiment_extraction(args.record_dir, extractor)
    runs = {run.run_id: run for run in replay_experiment(args.record_dir).runs}

    table = Table(title=f"{extractor.name} {extractor.version}", box=box.SIMPLE)
    for heading in ("case", "variant", "obs", *(heading for heading, _ in COLUMNS)):
        table.add_column(heading, justify="left" if heading in ("case", "variant") else "right")
    for record in derived:
        run = runs[record.run_id]
        by_semantic = {str(item.semantic_type): item for item in record.observations}
        shown = [by_semantic.get(semantic) for _, semantic in COLUMNS]
        table.add_row(
            run.case_id,
            run.variant_id,
            str(len(record.observations)),
            *(_format(item.value, item.unit) if item else "-" for item in shown),
        )
    console = Console()
    console.print(table)
    console.print(f"{len(derived)} derived records under {args.record_dir / 'derived'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
