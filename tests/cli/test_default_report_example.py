"""The default report and compare of a real recorded experiment: the reply-quality example
(three model tiers with tokens, derived cost and latency) run without its `report` section.
Expected values are computed here from the run records themselves."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.records import RunStatus, convert_unit, replay_experiment

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mid"
VARIANTS = ("mini", "standard", "large")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("default-report")
    spec_dir = root / "mid"
    shutil.copytree(EXAMPLE, spec_dir)
    yaml = YAML()
    spec_file = spec_dir / "autobench.yaml"
    data = yaml.load(spec_file)
    for benchmark in data["benchmark"].values():
        benchmark.pop("report", None)
    yaml.dump(data, spec_file)
    record = root / "rec"
    ran = CliRunner(env={"COLUMNS": "80"}).invoke(
        cli, ["run", str(spec_file), "--record", str(record), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    yield record
    sys.modules.pop("reply_benchmark", None)


def _per_run(record: Path, semantic: str, unit: str) -> dict[str, list[float]]:
    """Per variant, each run's total of ``semantic`` (converted to ``unit``)."""
    result = replay_experiment(record)
    values: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    for run in result.runs:
        found = [
            convert_unit(o.value, o.unit or unit, unit)
            for o in run.observations
            if o.semantic_type == semantic
        ]
        if found:
            values[run.variant_id].append(sum(found))
    return values


def _pass_rates(record: Path) -> dict[str, float]:
    result = replay_experiment(record)
    return {
        variant: sum(run.status is RunStatus.PASSED for run in result.runs_for(variant_id=variant))
        / len(result.runs_for(variant_id=variant))
        for variant in VARIANTS
    }


def _row(text: str, label: str) -> list[tuple[bool, str]]:
    (line,) = [line for line in text.splitlines() if line.strip().startswith(label)]
    cells = re.findall(r"(\* )?([-+]?\d+(?:\.\d+)?)", line.strip()[len(label) :])
    return [(bool(mark), number) for mark, number in cells]


def _matches(shown: str, expected: float) -> bool:
    """``shown`` is ``expected`` rounded to the decimals shown."""
    decimals = len(shown.partition(".")[2])
    return abs(float(shown) - expected) <= 0.5 * 10**-decimals + 1e-12


def _check_row(text: str, label: str, expected: dict[str, float], best: str) -> None:
    cells = _row(text, label)
    assert len(cells) == len(VARIANTS), (label, cells)
    for variant, (marked, shown) in zip(VARIANTS, cells, strict=True):
        assert _matches(shown, expected[variant]), (label, variant, shown, expected[variant])
        assert marked == (variant == best), (label, variant, cells)


def test_default_report_answers_the_first_questions(recorded: Path) -> None:
    shown = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["report", str(recorded)])
    assert shown.exit_code == 0, shown.output
    text = shown.output
    rates = _pass_rates(recorded)
    _check_row(
        text,
        "pass rate (%)",
        {v: rate * 100 for v, rate in rates.items()},
        max(rates, key=rates.__getitem__),
    )
    latency = _per_run(recorded, "time.latency", "s")
    medians = {v: statistics.median(values) for v, values in latency.items()}
    p95 = {
        v: statistics.quantiles(values, n=20, method="inclusive")[18]
        for v, values in latency.items()
    }
    unit = "ms" if max(p95.values()) < 1 else "s"
    scale = 1000 if unit == "ms" else 1
    fastest = min(medians, key=medians.__getitem__)
    _check_row(
        text, f"latency median ({unit})", {v: x * scale for v, x in medians.items()}, fastest
    )
    _check_row(
        text,
        f"latency p95 ({unit})",
        {v: x * scale for v, x in p95.items()},
        min(p95, key=p95.__getitem__),
    )
    output = {
        v: statistics.fmean(x) for v, x in _per_run(recorded, "llm.tokens.output", "tokens").items()
    }
    _check_row(text, "output tokens mean", output, min(output, key=output.__getitem__))
    cost = _per_run(recorded, "money.cost", "usd")
    mean_cost = {v: statistics.fmean(values) for v, values in cost.items()}
    cheapest = min(mean_cost, key=mean_cost.__getitem__)
    _check_row(text, "cost mean (USD)", mean_cost, cheapest)
    _check_row(text, "cost total (USD)", {v: sum(x) for v, x in cost.items()}, cheapest)
    assert "* best variant per metric; higher is better: pass rate" in text
    assert not re.search(r"\de[-+]\d", text)  # no scientific notation beside fixed notation


def test_compare_gives_relative_deltas_with_their_sign(recorded: Path) -> None:
    cost = {v: statistics.fmean(x) for v, x in _per_run(recorded, "money.cost", "usd").items()}
    for baseline, candidate in (("mini", "standard"), ("large", "standard")):
        shown = CliRunner(env={"COLUMNS": "80"}).invoke(
            cli, ["compare", str(recorded), "--baseline", baseline, "--candidate", candidate]
        )
        assert shown.exit_code == 0, shown.output
        change = (cost[candidate] - cost[baseline]) / cost[baseline] * 100
        # the first such line is the delta table's; the statistics table below repeats the label
        line, *_ = [line for line in shown.output.splitlines() if "cost mean (USD)" in line]
        assert f"{change:+.1f}%" in line
        assert line.split()[-2].startswith("+" if change > 0 else "-")
        assert "latency median" in shown.output and "cost total (USD)" in shown.output


WHOLE_WORDS = (
    "result.success",
    "quality.score",
    "request.count",
    "tokens.output",
    "tokens.input",
    "pass/fail/err",
    "enterprise-outage",
    "cancel-subscription",
)


@pytest.mark.parametrize("how", ["cli-runner", "piped"])
def test_the_report_fits_80_columns_without_splitting_words(recorded: Path, how: str) -> None:
    if how == "piped":
        env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
        done = subprocess.run(
            [sys.executable, "-m", "autobench.cli", "report", str(recorded), "--runs", "all"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        text = done.stdout
        assert "\x1b[" not in text
    else:
        shown = CliRunner(env={"COLUMNS": "80"}).invoke(
            cli, ["report", str(recorded), "--runs", "all"]
        )
        assert shown.exit_code == 0, shown.output
        text = shown.output
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    words = set(text.split())
    for word in WHOLE_WORDS:
        assert word in words, word
    assert "* best variant per metric;" in text
    compared = CliRunner(env={"COLUMNS": "80"}).invoke(
        cli, ["compare", str(recorded), "--baseline", "mini", "--candidate", "large"]
    )
    assert max(len(line) for line in compared.output.splitlines()) <= 80
    compared_words = set(compared.output.split())
    assert {"result.success", "quality.score", "(USD)", "delta"} <= compared_words
