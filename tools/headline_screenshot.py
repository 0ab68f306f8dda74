"""Regenerate docs/img/headline.svg: the top of ``autobench report`` for three models.

    uv run python tools/headline_screenshot.py            # writes docs/img/headline.svg
    uv run python tools/headline_screenshot.py --print    # prints it to this terminal too

Records a small offline experiment through the real CLI (three models answering 12 support
tickets, ``repeat: 3``; the task writes the correctness, cost, latency and token counts each
model would have had, no network), builds its report and saves the headline and the
leaderboard as Rich renders them 100 columns wide (``Console(record=True).save_svg``).
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console, Group

from autobench.records import replay_experiment
from autobench.report import build_report, render_headline
from autobench.report._render_summary import render_leaderboard

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "img" / "headline.svg"

TASK = """
def run_case(ctx, case):
    model = ctx.factor("model")
    index = case.input["index"]
    repeat = int(ctx.run_id.rsplit("_r", 1)[1]) if "_r" in ctx.run_id[-4:] else 1
    missed = {"gpt-4o-mini": (1, 4, 6, 9, 11), "gpt-4.1": (4,), "o4-mini-high": (6, 9)}[model]
    ctx.metric("correctness", 0.0 if index in missed else 1.0,
               semantic_type="quality.correctness", direction="maximize", role="objective")
    price = {"gpt-4o-mini": 0.00019, "gpt-4.1": 0.0020, "o4-mini-high": 0.0031}[model]
    ctx.metric("cost", price * (1 + index / 10), semantic_type="money.cost", unit="usd")
    base = {"gpt-4o-mini": 620, "gpt-4.1": 640, "o4-mini-high": 2600}[model]
    jitter = 45 * ((index * 7 + repeat * 13 + len(model) * index) % 9) - 180
    ctx.metric("latency", base + jitter, semantic_type="time.latency", unit="ms")
    ctx.metric("prompt", 812 + 20 * index, semantic_type="llm.tokens.input", unit="tokens")
    output = {"gpt-4o-mini": 61, "gpt-4.1": 88, "o4-mini-high": 410}[model] + index
    ctx.metric("completion", output, semantic_type="llm.tokens.output", unit="tokens")
    return {}
"""

TICKETS = [
    "refund-request",
    "outage-billing-page",
    "password-reset",
    "invoice-dispute",
    "data-export",
    "sso-login-loop",
    "api-rate-limit",
    "plan-downgrade",
    "gdpr-erasure",
    "webhook-retries",
    "seat-transfer",
    "tax-exemption",
]

SPEC = (
    "benchmark:\n  support-triage:\n    cases:\n"
    + "".join(f"      - {{id: {name}, input: {{index: {i}}}}}\n" for i, name in enumerate(TICKETS))
    + """\
    run:
      python: triage_task:run_case
    variants:
      gpt-4o-mini: {factors: {model: gpt-4o-mini}}
      gpt-4.1: {factors: {model: gpt-4.1}}
      o4-mini-high: {factors: {model: o4-mini-high}}
    repeat: 3
    report:
      compare:
        gpt-4o-mini -> gpt-4.1: {}
        gpt-4o-mini -> o4-mini-high: {}
"""
)


def record(directory: Path) -> Path:
    (directory / "triage_task.py").write_text(TASK, encoding="utf-8")
    (directory / "autobench.yaml").write_text(SPEC, encoding="utf-8")
    out = directory / "record"
    command = ["run", "autobench.yaml", "--record", str(out), "--no-progress", "--runs", "none"]
    subprocess.run(
        [sys.executable, "-m", "autobench.cli", *command],
        cwd=directory,
        check=True,
        capture_output=True,
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", action="store_true", help="print the report here too")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        report = build_report(replay_experiment(record(Path(name))))
    headline = render_headline(report.headline)
    assert headline is not None
    console = Console(
        record=True, width=100, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    console.print(Group(headline, render_leaderboard(report.leaderboard)))
    if arguments.print:
        print(console.export_text(clear=False))
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    console.save_svg(str(arguments.output), title="autobench report runs/support-triage")
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    main()
