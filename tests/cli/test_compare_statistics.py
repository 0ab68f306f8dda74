"""compare with statistics: two variants of one experiment and two recorded experiments,
verdicts, cases needed and --fail-on regressed, on real record directories."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import RecordDirectoryWriter, replay_experiment
from autobench.report import Verdict, compare_experiments, compare_variants

# The task reads mode.txt beside it: "good" passes every case; "bad" fails 25 of 30 and
# is slower; "noise" passes every case with latency jittered around the good one.
TASK = textwrap.dedent(
    """
    from pathlib import Path

    MODE = Path(__file__).with_name("mode.txt")


    def run(ctx, case):
        mode = MODE.read_text().strip()
        x = case.input["x"]
        if mode == "crash" and x == 3:
            raise RuntimeError("the service is down")
        ok = mode != "bad" or x % 6 == 0
        latency = 100.0 + x
        if mode == "bad" or ctx.factor("speed") == "slow":
            latency += 40.0 + (x % 3)
        if mode == "noise":
            latency += 0.5 if x % 2 else -0.5
        ctx.metric("work_time", latency, semantic_type="time.latency", unit="ms")
        return {"ok": ok}
    """
)


def _spec(cases: int, variants: str = "fast: {factors: {speed: fast}}") -> str:
    rows = "\n".join(
        f"      - {{id: c{i:02d}, input: {{x: {i}}}, expected: {{ok: true}}}}"
        for i in range(1, cases + 1)
    )
    return (
        "benchmark:\n  stats-demo:\n    dataset:\n      cases:\n"
        f"{rows}\n"
        "    run: {python: 'stats_task:run'}\n"
        f"    variants:\n      {variants}\n"
        "    score:\n      correct:\n"
        "        exact: {actual: output.ok, expected: case.expected.ok}\n"
        "        semantic: quality.correctness\n        role: constraint\n"
    )


def _record(base: Path, name: str, mode: str, cases: int = 30, variants: str | None = None) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    (base / "stats_task.py").write_text(TASK)
    (base / "mode.txt").write_text(mode)
    spec_text = _spec(cases) if variants is None else _spec(cases, variants)
    (base / "autobench.yaml").write_text(spec_text)
    record = base / name
    spec = load_benchmark_spec(base / "autobench.yaml")
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(record)))
    return record


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def weeks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("weeks")
    return {
        "good": _record(base, "good", "good"),
        "bad": _record(base, "bad", "bad"),
        "noise": _record(base, "noise", "noise"),
    }


def _verdicts(comparison_metrics: tuple) -> dict[str, Verdict]:  # type: ignore[type-arg]
    return {
        metric.semantic_type: metric.statistics.verdict
        for metric in comparison_metrics
        if metric.statistics is not None
    }


def test_two_experiments_with_a_clear_regression(weeks: dict[str, Path]) -> None:
    across = compare_experiments(replay_experiment(weeks["good"]), replay_experiment(weeks["bad"]))
    assert across.changed == ()  # same spec, dataset and task source: only mode.txt differs
    assert [item.baseline for item in across.comparisons] == ["baseline/fast"]
    comparison = across.comparisons[0]
    assert len(comparison.paired_cases) == 30
    verdicts = _verdicts(comparison.metrics)
    assert verdicts["quality.correctness"] is Verdict.REGRESSED
    assert verdicts["time.latency"] is Verdict.REGRESSED
    correctness = next(m for m in comparison.metrics if m.semantic_type == "quality.correctness")
    stats = correctness.statistics
    assert stats is not None and stats.test == "mcnemar-exact" and stats.informative == 25
    assert stats.ci_high is not None and stats.ci_high < 0
    assert stats.p_adjusted is not None and stats.p_adjusted >= stats.p_value  # type: ignore[operator]


def test_noise_is_no_detectable_difference(weeks: dict[str, Path]) -> None:
    across = compare_experiments(
        replay_experiment(weeks["good"]), replay_experiment(weeks["noise"])
    )
    verdicts = _verdicts(across.comparisons[0].metrics)
    assert verdicts["time.latency"] is Verdict.NO_DIFFERENCE
    # Every case passes on both sides: a delta of 0 on every case is no change, observed.
    assert verdicts["quality.correctness"] is Verdict.NO_CHANGE


def test_cli_two_directories_and_fail_on_regressed(
    runner: CliRunner, weeks: dict[str, Path]
) -> None:
    shown = runner.invoke(cli, ["compare", str(weeks["good"]), str(weeks["bad"])])
    assert shown.exit_code == 0, shown.output
    for text in ("Compare experiments", "spec, dataset and sources unchanged", "regressed"):
        assert text in shown.output
    # pass/fail: McNemar; the latency median and p95 rows: a bootstrap of their own aggregate
    assert "mcnemar-exact" in shown.output and "bootstrap" in shown.output
    gated = runner.invoke(
        cli, ["compare", str(weeks["good"]), str(weeks["bad"]), "--fail-on", "regressed"]
    )
    assert gated.exit_code == 3
    assert "--fail-on: baseline/fast -> candidate/fast" in gated.output
    improved = runner.invoke(
        cli, ["compare", str(weeks["bad"]), str(weeks["good"]), "--fail-on", "regressed"]
    )
    assert improved.exit_code == 0, improved.output
    assert "improved" in improved.output
    noise = runner.invoke(
        cli, ["compare", str(weeks["good"]), str(weeks["noise"]), "--fail-on", "regressed"]
    )
    assert noise.exit_code == 0, noise.output
    assert "no detectable difference" in noise.output


def test_cli_usage_errors_and_help(runner: CliRunner, weeks: dict[str, Path]) -> None:
    both = runner.invoke(
        cli, ["compare", str(weeks["good"]), str(weeks["bad"]), "--baseline", "fast"]
    )
    assert both.exit_code == 2 and "every variant both" in both.output
    alone = runner.invoke(cli, ["compare", str(weeks["good"])])
    assert alone.exit_code == 2 and "--baseline and --candidate" in alone.output
    helped = runner.invoke(cli, ["compare", "--help"])
    assert helped.exit_code == 0
    assert "Exit codes:" in helped.output and "3 with --fail-on regressed" in helped.output


def test_changed_inputs_and_cases_only_in_one(tmp_path: Path, runner: CliRunner) -> None:
    before = _record(tmp_path / "main", "rec", "good", cases=8)
    after = _record(
        tmp_path / "branch",
        "rec",
        "good",
        cases=10,
        variants="fast: {factors: {speed: fast}}\n      slow: {factors: {speed: slow}}",
    )
    (tmp_path / "branch" / "stats_task.py").write_text(TASK + "\n# changed\n")
    across = compare_experiments(replay_experiment(before), replay_experiment(after))
    assert "spec" in across.changed and "dataset" in across.changed
    assert across.variants_only_in_candidate == ("slow",)
    assert across.cases_only_in_candidate == ("c09", "c10")
    assert [u.reason for u in across.comparisons[0].unpaired] == ["missing in baseline"] * 2
    shown = runner.invoke(cli, ["compare", str(before), str(after)])
    assert shown.exit_code == 0, shown.output
    assert "spec hash changed" in shown.output and "dataset hash changed" in shown.output
    assert "variants only in candidate" in shown.output and "c09, c10" in shown.output


def test_an_errored_run_of_either_experiment_leaves_its_case_unpaired(
    tmp_path: Path, runner: CliRunner
) -> None:
    """Two experiments compared have a run table each: a case whose run errored in the
    candidate's experiment is unpaired, whether or not the baseline's has errored runs
    (positions of one table were looked up among the other's, so the candidate's errored
    run was paired when the baseline had none)."""
    good = _record(tmp_path / "main", "rec", "good", cases=8)
    crashed = _record(tmp_path / "branch", "rec", "crash", cases=8)
    forward = compare_experiments(replay_experiment(good), replay_experiment(crashed))
    assert [(u.case, u.reason) for u in forward.comparisons[0].unpaired] == [
        ("c03", "errored in candidate")
    ]
    backward = compare_experiments(replay_experiment(crashed), replay_experiment(good))
    assert [(u.case, u.reason) for u in backward.comparisons[0].unpaired] == [
        ("c03", "errored in baseline")
    ]
    shown = runner.invoke(cli, ["compare", str(good), str(crashed)])
    assert shown.exit_code == 0, shown.output
    assert "errored in candidate" in shown.output and "c03" in shown.output


def test_one_experiment_two_variants_with_three_cases_is_too_few(
    tmp_path: Path, runner: CliRunner
) -> None:
    record = _record(
        tmp_path,
        "rec",
        "good",
        cases=3,
        variants="fast: {factors: {speed: fast}}\n      slow: {factors: {speed: slow}}",
    )
    comparison = compare_variants(replay_experiment(record), "fast", "slow")
    latency = next(m for m in comparison.metrics if m.semantic_type == "time.latency")
    assert latency.statistics is not None
    assert latency.statistics.verdict is Verdict.TOO_FEW_CASES
    # at least 7: the comparison tests more than one metric, and Holm's level for the
    # smallest of them takes 1 + log2(family / 0.05) pairs
    assert latency.statistics.cases_needed == 7
    shown = runner.invoke(
        cli,
        ["compare", str(record), "--baseline", "fast", "--candidate", "slow"],
        catch_exceptions=False,
    )
    assert shown.exit_code == 0, shown.output
    # the statistics table's verdict cell: the verdict, and under it what it rests on, a
    # line each (the case count, the cases needed), aligned with the verdict
    lines = shown.output.splitlines()
    cells = [
        (line.index("too few cases"), below.find("n=3"), further.find("about 7 needed"))
        for line, below, further in zip(lines, lines[1:], lines[2:], strict=False)
        if "too few cases" in line and "n=3" in below and "about 7 needed" in further
    ]
    assert cells and all(len(set(cell)) == 1 for cell in cells), cells
    gated = runner.invoke(
        cli,
        [
            "compare",
            str(record),
            "--baseline",
            "fast",
            "--candidate",
            "slow",
            "--fail-on",
            "regressed",
        ],
    )
    assert gated.exit_code == 0  # not supported by the data: never a gate failure


def test_report_fail_on_regressed_reads_the_report_comparisons(
    tmp_path: Path, runner: CliRunner
) -> None:
    record = _record(
        tmp_path,
        "rec",
        "good",
        cases=30,
        variants="fast: {factors: {speed: fast}}\n      slow: {factors: {speed: slow}}",
    )
    gated = runner.invoke(cli, ["report", str(record), "--fail-on", "regressed"])
    assert gated.exit_code == 3, gated.output
    assert "fast -> slow: " in gated.output and "regressed" in gated.output
    reversed_ = runner.invoke(
        cli, ["compare", str(record), "--baseline", "slow", "--candidate", "fast"]
    )
    assert reversed_.exit_code == 0 and "improved" in reversed_.output


def test_repeats_pair_per_case_means(tmp_path: Path) -> None:
    """With repeat: 3 every case has three runs per variant: it is still one pair."""
    base = tmp_path / "repeats"
    base.mkdir()
    (base / "stats_task.py").write_text(TASK)
    (base / "mode.txt").write_text("noise")
    text = _spec(8, "fast: {factors: {speed: fast}}\n      slow: {factors: {speed: slow}}")
    (base / "autobench.yaml").write_text(
        text.replace("    run: {python", "    repeat: 3\n    run: {python", 1)
    )
    record = base / "rec"
    spec = load_benchmark_spec(base / "autobench.yaml")
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(record)))
    result = replay_experiment(record)
    assert len(result.runs) == 8 * 2 * 3
    comparison = compare_variants(result, "fast", "slow")
    latency = next(m for m in comparison.metrics if m.semantic_type == "time.latency")
    assert latency.statistics is not None
    assert latency.statistics.n == 8
    assert latency.statistics.verdict is Verdict.REGRESSED
