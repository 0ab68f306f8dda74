"""The headline first in ``run``, ``report``, ``compare`` (two variants and two experiments)
and the Markdown export, in the words of the report model; and the terminal layout of a
realistic three-variant experiment: at 100 columns every table whole (no halves), no spread
beside values that never vary, and no verdict broken across lines.

The experiment is recorded through the real CLI (a separate process): three models, five
cases, ``repeat: 3``, the default leaderboard (pass rate, an objective, latency median and
p95, input and output tokens, cost mean and total) and two configured comparisons. Tokens
and cost are the same in every repeat of a case; latency varies.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import replay_experiment
from autobench.report import build_report, compare_experiments, compare_variants_with_headline
from autobench.report._export_markdown import inline, render_markdown
from autobench.report._headline_text import comparison_level, comparison_title, item_text
from autobench.report._model import Headline

TASK = """
def run_case(ctx, case):
    model = ctx.factor("model")
    index = case.input["index"]
    repeat = int(ctx.run_id.rsplit("_r", 1)[1]) if "_r" in ctx.run_id[-4:] else 1
    correct = model != "gpt-4o-mini" or index % 2 == 0
    ctx.metric("correctness", 1.0 if correct else 0.0, semantic_type="quality.correctness",
               direction="maximize", role="objective")
    price = {"gpt-4o-mini": 0.00019, "gpt-4.1": 0.0020, "o4-mini-high": 0.0031}[model]
    ctx.metric("cost", price * (1 + index / 10), semantic_type="money.cost", unit="usd")
    base = {"gpt-4o-mini": 420, "gpt-4.1": 910, "o4-mini-high": 2600}[model]
    ctx.metric("latency", base + 37 * ((index * 7 + repeat * 13) % 9), semantic_type="time.latency",
               unit="ms")
    ctx.metric("prompt", 812 + 20 * index, semantic_type="llm.tokens.input", unit="tokens")
    output = {"gpt-4o-mini": 61, "gpt-4.1": 88, "o4-mini-high": 410}[model] + index
    ctx.metric("completion", output, semantic_type="llm.tokens.output", unit="tokens")
    return {}
"""

SPEC = """\
benchmark:
  triage:
    cases:
      - {id: refund-request, input: {index: 0}}
      - {id: outage-billing-page, input: {index: 1}}
      - {id: password-reset, input: {index: 2}}
      - {id: invoice-dispute, input: {index: 3}}
      - {id: data-export, input: {index: 4}}
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

VERDICTS = (
    "improved",
    "regressed",
    "no detectable difference",
    "too few cases",
    "changed",
    "no change",
)
_UNVARYING = re.compile(r"\u00b1[0.]+(?![\d.])")


def _cli(args: list[str], width: int) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autobench.cli", *args],
        env={**os.environ, "COLUMNS": str(width), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "\x1b[" not in done.stdout
    return done.stdout


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("headline-layout")
    (root / "triage_task.py").write_text(TASK, encoding="utf-8")
    (root / "autobench.yaml").write_text(SPEC, encoding="utf-8")
    record = root / "record"
    command = ["run", "autobench.yaml", "--record", str(record), "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "autobench.cli", *command],
        cwd=root,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return record, done.stdout


def _headline_words(headline: Headline) -> list[list[str]]:
    """The words of each line the headline holds, from the model's own wording."""
    lines: list[list[str]] = []
    for comparison in headline.comparisons:
        lines.append(comparison_title(comparison, comparison_level(comparison)).split())
        lines += [item_text(item).split() for item in comparison.items]
    return lines


def _assert_headline_first(text: str, headline: Headline) -> None:
    """The block opens the output and holds the model's wording, word for word, in order (a
    long item's note continues on the lines below it)."""
    lines = text.splitlines()
    assert lines[0] == "Headline"
    expected = [word for line in _headline_words(headline) for word in line]
    assert expected  # the experiment has comparisons: the headline is not empty
    shown = [word for line in lines[1:] for word in line.split()]
    assert shown[: len(expected)] == expected


def test_report_and_run_show_the_headline_first(recorded: tuple[Path, str]) -> None:
    record, run_output = recorded
    headline = build_report(replay_experiment(record)).headline
    assert [c.candidate for c in headline.comparisons] == ["gpt-4.1", "o4-mini-high"]
    report = _cli(["report", str(record)], 100)
    _assert_headline_first(report, headline)
    _assert_headline_first(run_output, headline)
    assert headline.pareto is not None
    pareto = " ".join(report.split("\n\n", 1)[0].splitlines()[1 + len(_headline_words(headline)) :])
    assert pareto.split() == [
        "Pareto",
        "front",
        "(quality.correctness,",
        "cost,",
        "latency):",
        "gpt-4o-mini,",
        "gpt-4.1;",
        "o4-mini-high",
        "is",
        "beaten",
        "by",
        "gpt-4.1",
    ]


def test_compare_shows_the_headline_first(recorded: tuple[Path, str]) -> None:
    record, _ = recorded
    result = replay_experiment(record, evidence_only=True)
    args = ["compare", str(record), "--baseline", "gpt-4o-mini", "--candidate", "o4-mini-high"]
    _, headline = compare_variants_with_headline(result, "gpt-4o-mini", "o4-mini-high")
    (only,) = headline.comparisons
    assert [item.kind for item in only.items] == ["quality", "cost", "latency"]
    _assert_headline_first(_cli(args, 100), headline)
    across = compare_experiments(result, result)
    _assert_headline_first(_cli(["compare", str(record), str(record)], 100), across.headline)


def test_markdown_starts_with_the_headline(recorded: tuple[Path, str]) -> None:
    record, _ = recorded
    report = build_report(replay_experiment(record))
    text = render_markdown(report)
    assert text.index("## Headline") < text.index("## Status")
    for comparison in report.headline.comparisons:
        for item in comparison.items:
            assert f"- {inline(item_text(item))}\n" in text
    assert "\\$" in text  # a pair of dollars is not read as mathematics


@pytest.mark.parametrize("width", [100, 80])
def test_values_that_never_vary_show_no_spread(recorded: tuple[Path, str], width: int) -> None:
    record, _ = recorded
    text = CliRunner(env={"COLUMNS": str(width)}).invoke(cli, ["report", str(record)]).output
    assert not _UNVARYING.findall(text)
    # the leaderboard's row (the first): latency varies between repeats, its spread is shown
    latency = next(line for line in text.splitlines() if line.startswith("latency"))
    assert "\u00b1" in latency
    tokens = next(line for line in text.splitlines() if line.startswith("input tokens mean"))
    assert tokens.split() == ["input", "tokens", "mean", "852", "852", "852"]


@pytest.mark.parametrize(
    "args",
    [
        ["report"],
        ["report", "--runs", "all"],
        ["compare", "--baseline", "gpt-4o-mini", "--candidate", "o4-mini-high"],
    ],
    ids=["report", "report-all-runs", "compare"],
)
def test_three_variants_fit_100_columns_whole(recorded: tuple[Path, str], args: list[str]) -> None:
    record, _ = recorded
    text = _cli([args[0], str(record), *args[1:]], 100)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert not [line for line in lines if re.search(r"\(\d+/\d+\)$", line)]  # no halves
    for header in ("Leaderboard", "Statistics (5 paired cases, tests at 0.05)"):
        assert header in lines or (args[0] == "compare" and header == "Leaderboard")


@pytest.mark.parametrize("width", [100, 80, 60])
def test_verdicts_are_never_broken(recorded: tuple[Path, str], width: int) -> None:
    record, _ = recorded
    report = build_report(replay_experiment(record))
    text = _cli(["report", str(record)], width)
    tested = [
        metric.statistics.verdict.value
        for comparison in report.comparisons
        for metric in comparison.metrics
        if metric.statistics is not None
    ]
    headline = [
        item.verdict.value
        for comparison in report.headline.comparisons
        for item in comparison.items
        if item.verdict is not None
    ]
    panels = re.compile(r"^[\u2500-\u257f]")  # the comparison panel's "changed factors"
    shown = [
        verdict
        for line in text.splitlines()
        if not panels.match(line)
        for verdict in VERDICTS
        if verdict in line
    ]
    # each verdict whole on a line: once in the headline, once per statistics row (every
    # row has statistics of its own)
    assert len(shown) == len(headline) + len(tested), shown
    assert set(shown) <= set(tested)


_BOX = re.compile(r"[\u2500-\u257f]")
_NUMBER = re.compile(r"[-+$x]*\d[\d.,/]*%?")


@pytest.mark.parametrize(
    "args",
    [
        ["report", "--runs", "all"],
        ["compare", "--baseline", "gpt-4o-mini", "--candidate", "gpt-4.1"],
        ["compare", "SECOND"],
    ],
    ids=["report", "compare", "compare-experiments"],
)
def test_nothing_is_lost_at_80_columns(recorded: tuple[Path, str], args: list[str]) -> None:
    record, _ = recorded
    full = [args[0], str(record), *(str(record) if arg == "SECOND" else arg for arg in args[1:])]
    narrow, wide = _cli(full, 80), _cli(full, 250)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert "\u2026" not in narrow

    def words(text: str) -> list[str]:
        return [word for word in text.split() if not _BOX.search(word) and word != str(record)]

    assert set(words(wide)) <= set(words(narrow)), set(words(wide)) - set(words(narrow))
    numbers = Counter(_NUMBER.findall(" ".join(words(narrow))))
    wide_numbers = Counter(_NUMBER.findall(" ".join(words(wide))))
    assert not wide_numbers - numbers, wide_numbers - numbers
