"""The terminal report and compare of real recorded examples stay whole at 80 columns: no
line wider than the console, no id or number cropped or shortened with an ellipsis, no
column dropped, and captions broken only between words.

Each example is recorded through the real CLI (a separate process, so its task modules
and instrumentation stay out of the test process). The 80-column output is checked
against the same command printed 250 columns wide: every word and every number of the
wide output must also appear whole in the narrow one."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.records import project_observations, replay_experiment, run_observations

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WIDTH = 80


def _record(root: Path, example: str, name: str, *, drop_report: bool = False) -> Path:
    spec_dir = root / name
    shutil.copytree(EXAMPLES / example, spec_dir)
    spec_file = spec_dir / "autobench.yaml"
    if drop_report:
        yaml = YAML()
        data = yaml.load(spec_file)
        for benchmark in data["benchmark"].values():
            benchmark.pop("report", None)
        yaml.dump(data, spec_file)
    record = root / f"{name}-record"
    command = ["run", str(spec_file), "--record", str(record), "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "autobench.cli", *command],
        cwd=spec_dir,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return record


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("report-width")
    yield {
        "basic": _record(root, "basic", "basic"),
        "basic-default": _record(root, "basic", "basic-default", drop_report=True),
        "pai": _record(root, "pydantic_ai", "pai"),
    }


COMMANDS = {
    "basic report": ("basic", ["report"]),
    "basic report all runs": ("basic", ["report", "--runs", "all"]),
    "basic default report": ("basic-default", ["report"]),
    "basic compare": ("basic", ["compare", "--baseline", "rules_v1", "--candidate", "rules_v2"]),
    "pai report": ("pai", ["report"]),
    "pai compare": ("pai", ["compare", "--baseline", "mini", "--candidate", "large-streamed"]),
}

WHOLE = {
    "basic": ("priority_accuracy", "p95_latency", "pass/fail/err", "latency (ms)"),
    "basic-default": ("latency p95", "latency median", "quality.correctness"),
    "pai": ("tokens.output", "tokens.input", "request.count", "tokens.cache_read"),
}
"""Headers of the wide tables, each expected on one line."""

_BOX = re.compile(r"[\u2500-\u257f]")
_NUMBER = re.compile(r"[-+]?\d[\d.,/]*%?")


def _invoke(args: list[str], width: int) -> str:
    shown = CliRunner(env={"COLUMNS": str(width)}).invoke(cli, args)
    assert shown.exit_code == 0, shown.output
    return shown.output


def _piped(args: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autobench.cli", *args],
        env={**os.environ, "COLUMNS": str(WIDTH), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "\x1b[" not in done.stdout
    return done.stdout


def _words(text: str) -> list[str]:
    return [word for word in text.split() if not _BOX.search(word)]


@pytest.mark.parametrize("how", ["cli-runner", "piped"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_is_whole_at_80_columns(records: dict[str, Path], command: str, how: str) -> None:
    name, args = COMMANDS[command]
    record = records[name]
    full = [args[0], str(record), *args[1:]]
    text = _invoke(full, WIDTH) if how == "cli-runner" else _piped(full)
    lines = text.splitlines()
    too_wide = [line for line in lines if len(line) > WIDTH]
    assert not too_wide, "\n".join(too_wide)
    assert "…" not in text
    assert "..." not in text.replace("... and", "")

    wide = _invoke(full, 250)
    words = set(_words(text))
    # the record directory is a path, free text that may fold inside the overview panel
    missing = sorted(set(_words(wide)) - words - {str(record)})
    assert not missing, missing
    numbers = Counter(_NUMBER.findall(" ".join(_words(text))))
    wide_numbers = Counter(_NUMBER.findall(" ".join(_words(wide))))
    assert not wide_numbers - numbers, wide_numbers - numbers

    result = replay_experiment(record)
    shown_runs = set(_words(text))
    for variant in {run.variant_id for run in result.runs}:
        assert variant in shown_runs, variant
    if args[0] == "report":
        for header in WHOLE[name]:
            assert any(header in line for line in lines), header
        cases = {run.case_id for run in result.runs}
        assert all(case in words for case in cases if case in wide), cases
    else:
        assert any("delta %" in line for line in lines)


def test_every_case_and_per_run_value_is_shown(records: dict[str, Path]) -> None:
    record = records["pai"]
    text = _invoke(["report", str(record), "--runs", "all"], WIDTH)
    result = replay_experiment(record)
    rows = [line.split() for line in text.splitlines()]
    for run in result.runs:
        output = project_observations(run_observations(run), result.registry)[
            "llm.tokens.output"
        ].value
        key = [run.case_id, run.variant_id, run.status.value]
        assert any(row[:3] == key and str(output) in row[3:] for row in rows), (key, output)
    basic = _invoke(["report", str(records["basic"]), "--runs", "all"], WIDTH)
    words = set(basic.split())
    for run in replay_experiment(records["basic"]).runs:
        assert run.case_id in words, run.case_id
    assert "enterprise-outage-billing-page" in words


def test_a_metric_reads_the_same_in_the_leaderboard_and_in_compare(
    records: dict[str, Path],
) -> None:
    record = str(records["basic-default"])
    report = _invoke(["report", record, "--runs", "none"], WIDTH)
    compared = _invoke(
        ["compare", record, "--baseline", "rules_v1", "--candidate", "rules_v2"], 200
    )
    for label in ("latency median (ms)", "latency p95 (ms)", "mean quality.correctness"):
        rows = [
            [
                _NUMBER.findall(line[len(label) :])
                for line in text.splitlines()
                if line.startswith(label)
            ]
            for text in (report, compared)
        ]
        # the leaderboard, the report's comparison and compare's (statistics rows follow)
        (board, in_report, *_), (alone, *_) = rows
        assert board == in_report[:2] == alone[:2], (label, rows)
        decimals = {len(number.partition(".")[2]) for number in [*board, in_report[2]]}
        assert len(decimals) == 1, (label, rows)  # the delta too
