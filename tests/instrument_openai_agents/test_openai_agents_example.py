"""The ``examples/abp_openai_agents`` script runs offline and prints the recorded span tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = (
    Path(__file__).resolve().parents[2] / "examples" / "abp_openai_agents" / "run_openai_agents.py"
)


def test_the_agents_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "answer: 15 cents." in out
    assert "  openai_agents.workflow [workflow, openai_agents]" in out
    assert "price_of [tool, openai_agents]" in out and "price_lookup [custom, openai_agents]" in out
    assert "usage: {'input_tokens': 120, 'output_tokens': 8, 'requests': 1}" in out
