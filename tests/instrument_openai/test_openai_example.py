"""The ``examples/abp_openai`` script runs offline and prints the recorded span tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "abp_openai" / "run_openai_streaming.py"


def test_the_streaming_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "answer: Streaming works offline." in out
    assert "  openai.chat.completions [llm, openai]" in out
    assert "end reason: completed" in out and "first chunk after" in out
    assert "'input_tokens': 1000, 'output_tokens': 200, 'cache_read_tokens': 800" in out
