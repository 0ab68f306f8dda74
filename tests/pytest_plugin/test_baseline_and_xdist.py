"""The baseline gate (a statistically supported regression against a stored record), the
fixture form for builder benchmarks, and pytest-xdist: real records, pytester runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from plugin_support import write_benchmark

from autobench.records import load_experiment_record, replay_experiment


def test_a_regression_against_the_baseline_record_fails_the_baseline_item(
    pytester: pytest.Pytester,
) -> None:
    write_benchmark(pytester.path, cases=12)
    main = pytester.runpytest("--autobench", "--autobench-record-dir=main")
    main.assert_outcomes(passed=2)
    # the pull request lowers every quality score by 0.3
    write_benchmark(pytester.path, cases=12, shift=0.3)
    pr = pytester.runpytest(
        "--autobench", "--autobench-record-dir=pr", "--autobench-baseline=main", "-v"
    )
    pr.assert_outcomes(passed=2, failed=1)
    pr.stdout.fnmatch_lines(
        [
            "*::adder::baseline FAILED*",
            f"against {pytester.path / 'main' / 'adder'}: baseline/plain -> candidate/plain: "
            "quality.score regressed*",
            "",
            "baseline/plain -> candidate/plain (12 paired cases*",
            "  quality.score -0.30 on every case regressed",
            "*",
            f"record: {pytester.path / 'pr' / 'adder'}",
        ]
    )


def test_an_unchanged_benchmark_passes_and_a_new_one_skips_its_baseline_item(
    pytester: pytest.Pytester,
) -> None:
    write_benchmark(pytester.path / "old", "old", cases=6)
    assert pytester.runpytest("--autobench", "--autobench-record-dir=main").ret == 0
    write_benchmark(pytester.path / "new", "new", cases=6)
    result = pytester.runpytest(
        "--autobench", "--autobench-record-dir=pr", "--autobench-baseline=main", "-rs"
    )
    result.assert_outcomes(passed=5, skipped=1)
    result.stdout.fnmatch_lines(["*no baseline record of 'new' in *main*"])


BUILDER_TEST = """
import pytest

from autobench import Benchmark


def run_case(ctx, case):
    ok = case.input["x"] % 3 != 0
    ctx.metric("ok", ok, semantic_type="result.success", role="constraint")
    return {"ok": ok}


def builder(name):
    cases = [{"id": f"c{i}", "input": {"x": i}} for i in range(1, 7)]
    return Benchmark(name).dataset(cases).variants([{"id": "only"}]).task(run_case)


def test_builder_runs_and_returns_the_outcome(autobench):
    outcome = autobench.run(builder("lenient"))
    assert len(outcome.result.runs) == 6
    assert outcome.record_dir.name == "lenient"


@pytest.mark.autobench(fail_on="failed")
def test_marked_conditions_fail_the_test(autobench):
    autobench.run(builder("strict"))
"""


def test_the_autobench_fixture_runs_a_builder_benchmark_with_the_marks_conditions(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_builder=BUILDER_TEST)
    result = pytester.runpytest("--autobench-record-dir=records", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_marked_conditions_fail_the_test*",
            "2 run(s) failed",
            "",
            "strict: 6 runs, 4 passed, 2 failed, 0 errored, 0 skipped",
            "",
            "cases:",
            "  c3 / only: failed*",
            "  c6 / only: failed*",
            "",
            f"record: {pytester.path / 'records' / 'strict'}",
        ]
    )
    assert len(replay_experiment(pytester.path / "records" / "lenient").runs) == 6


@pytest.mark.parametrize("record_dir", ["records", None], ids=["given", "default"])
def test_under_xdist_each_experiment_is_recorded_once_for_every_worker(
    pytester: pytest.Pytester, record_dir: str | None
) -> None:
    for name in ("alpha", "beta", "gamma"):
        write_benchmark(pytester.path / name, name, modes=("plain", "broken"))
    where = [f"--autobench-record-dir={record_dir}"] if record_dir else []
    result = pytester.runpytest_subprocess(
        "--autobench", *where, "--autobench-fail-on=failed", "-n", "2", "-v"
    )
    # per benchmark: runs passes, policy[correct] and fail-on[failed] fail (case c2 of broken)
    result.assert_outcomes(passed=3, failed=6)
    # one shared record root: a second run of an experiment would have found its record
    # and errored ("records are never overwritten")
    assert "never overwritten" not in result.stdout.str()
    markers = sorted(pytester.path.rglob(".*.done"))
    assert [path.name.split(".")[1] for path in markers] == ["alpha", "beta", "gamma"]
    for marker in markers:
        record = marker.parent / marker.name.split(".")[1]
        assert len(replay_experiment(record).runs) == 8
        assert load_experiment_record(record).benchmark.id == record.name


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

DEAD_NETWORK = """

def _dead(request):
    raise RuntimeError("the network was used during a cassette replay")


def transport() -> httpx2.MockTransport:
    return httpx2.MockTransport(_dead)
"""


def test_cassettes_recorded_on_main_answer_the_pull_requests_runs_offline(
    pytester: pytest.Pytester,
) -> None:
    """examples/llm_native (the OpenAI client over an offline API): recorded with
    --autobench-cassette record, then run again with the network gone, replaying from the
    baseline's cassettes."""
    shutil.copytree(EXAMPLES / "llm_native", pytester.path, dirs_exist_ok=True)
    recorded = pytester.runpytest_subprocess(
        "--autobench", "--autobench-record-dir=main", "--autobench-cassette=record"
    )
    recorded.assert_outcomes(passed=1)
    api = pytester.path / "assistant_app" / "offline_api.py"
    api.write_text(api.read_text() + DEAD_NETWORK)
    replayed = pytester.runpytest_subprocess(
        "--autobench",
        "--autobench-record-dir=pr",
        "--autobench-baseline=main",
        "--autobench-cassette=replay",
        "-v",
    )
    replayed.assert_outcomes(passed=2)
    replayed.stdout.fnmatch_lines(["*::assistant::runs PASSED*", "*::assistant::baseline PASSED*"])
    experiment = load_experiment_record(pytester.path / "pr" / "assistant")
    assert experiment.cassette is not None and experiment.cassette.mode == "replay"
    runs = replay_experiment(pytester.path / "pr" / "assistant").runs
    assert len(runs) == 6 and not any(run.errors for run in runs)


def test_replaying_cassettes_needs_a_source(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--autobench", "--autobench-cassette=replay")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--autobench-cassette replay needs records to replay: --autobench-cassette-from DIR*"]
    )
