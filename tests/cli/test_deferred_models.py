"""The pydantic models only some commands need (derived record files, run diffs, pairwise
summaries, pricing, the judge's and the post-derivers' specs) are built on first use
(``defer_build``), not when their module is imported: a fresh interpreter records the basic
example, reports it, and lists which of Autobench's model classes got their validators.
A report does not import the direct run-text writer either."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
import pydantic
from autobench.cli import cli
for args in (sys.argv[1:5], sys.argv[5:]):
    try:
        cli.main(list(args), prog_name="autobench")
    except SystemExit as end:
        assert not end.code, end.code
seen, stack = {}, [pydantic.BaseModel]
while stack:
    for sub in stack.pop().__subclasses__():
        stack.append(sub)
        if sub.__module__.startswith("autobench."):
            seen[sub.__qualname__] = bool(sub.__dict__.get("__pydantic_complete__"))
print(json.dumps(seen))
"""

BUILT_ON_FIRST_USE = (
    "ExtractionRecord",
    "DerivedRunRecord",
    "RescoreRecord",
    "RescoredRunRecord",
    "PairwiseRecord",
    "PostDerivedRecord",
    "LabelsFile",
    "RunDiff",
    "PairwiseSummary",
    "ExperimentComparison",
    "PricingTable",
    "TokenCostDeriverSpec",
    "PairedBaselineDeriverSpec",
    "JudgeScorer",
)


def test_run_and_report_never_build_the_models_they_do_not_use(tmp_path: Path) -> None:
    spec = ROOT / "examples" / "basic" / "autobench.yaml"
    record = tmp_path / "record"
    run = ["run", str(spec), "--record", str(record)]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *run, "report", str(record)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    built = json.loads(done.stdout.rstrip("\n").rsplit("\n", 1)[-1])
    assert (record / "experiment.yaml").is_file()
    assert [name for name in BUILT_ON_FIRST_USE if name not in built] == []  # all imported
    assert [name for name in BUILT_ON_FIRST_USE if built[name]] == []
    # what the commands use was built as before
    assert built["RunRecord"] and built["ExperimentRecord"] and built["Report"]


READ = """
import sys
from autobench.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="autobench")
except SystemExit as end:
    assert not end.code, end.code
print("autobench.records._span_text" in sys.modules)
"""


def test_a_report_never_imports_the_run_text_writer(tmp_path: Path) -> None:
    """The direct ``run.yaml`` writer (its patterns take some 10 ms to compile) is imported
    by what writes records, not by a command that reads them."""
    spec = ROOT / "examples" / "basic" / "autobench.yaml"
    record = tmp_path / "record"
    wrote = [sys.executable, "-c", READ, "run", str(spec), "--record", str(record)]
    read = [sys.executable, "-c", READ, "report", str(record)]
    ran = subprocess.run(wrote, capture_output=True, text=True, check=True, cwd=tmp_path)
    reported = subprocess.run(read, capture_output=True, text=True, check=True, cwd=tmp_path)
    assert ran.stdout.rstrip("\n").rsplit("\n", 1)[-1] == "True"
    assert reported.stdout.rstrip("\n").rsplit("\n", 1)[-1] == "False"
    assert "support-routing" in reported.stdout
