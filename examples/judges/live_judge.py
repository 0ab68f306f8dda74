"""The support benchmark graded by a real OpenAI judge instead of the offline one.

    export OPENAI_API_KEY=...
    export SUPPORT_JUDGE_MODEL=openai:gpt-4o-mini     # optional, the default
    uv run python examples/judges/live_judge.py /tmp/autobench-judges-live

Without ``OPENAI_API_KEY`` the script says so and exits (status 0) without running
anything. With it, it sets ``SUPPORT_JUDGE_MODEL`` (which ``support_judge.model`` reads),
runs ``autobench.yaml`` into the record directory given (a temporary one by default),
calibrates the judge against ``labels.yaml``, has the ``prefer`` judge of
``autobench.pairwise.yaml`` compare the ``canned`` and ``grounded`` answers in both orders
(``autobench judge pairwise``), then reports the record, whose headline shows that
comparison. The judges' calls are priced by ``judge_pricing.yaml`` (gpt-4o-mini) and
reported as judge cost.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from autobench.cli import cli

HERE = Path(__file__).resolve().parent
DEFAULT_MODEL = "openai:gpt-4o-mini"


def main(argv: list[str]) -> int:
    if not os.environ.get("OPENAI_API_KEY"):
        print("live_judge.py: OPENAI_API_KEY is not set; nothing was run (the offline judge")
        print("of autobench.yaml needs no key: autobench run examples/judges/autobench.yaml)")
        return 0
    os.environ.setdefault("SUPPORT_JUDGE_MODEL", DEFAULT_MODEL)
    record = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="autobench-judges-")) / "run"
    spec = str(HERE / "autobench.yaml")
    pair = ["--judge", "prefer", "--baseline", "canned", "--candidate", "grounded"]
    for args in (
        ["run", spec, "--record", str(record), "--no-progress", "--concurrency", "4"],
        ["judge", "calibrate", str(record), "--labels", str(HERE / "labels.yaml")],
        ["judge", "pairwise", str(record), *pair, "--spec", str(HERE / "autobench.pairwise.yaml")],
        ["report", str(record)],
    ):
        try:
            cli.main(args, standalone_mode=False)
        except SystemExit as stop:  # a --fail-on gate or a failed run
            if stop.code:
                return int(stop.code)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
