"""Spec files as pytest items, run through pytest's own ``pytester``: real YAML benchmarks
and task modules in the pytester directory, recorded for real."""

from __future__ import annotations

import pytest
from plugin_support import write_benchmark

from autobench.records import replay_experiment


def test_nothing_is_collected_without_the_option(pytester: pytest.Pytester) -> None:
    write_benchmark(pytester.path)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_passing_benchmark_passes_its_runs_and_policy_items(pytester: pytest.Pytester) -> None:
    write_benchmark(pytester.path)
    result = pytester.runpytest("--autobench", "--autobench-record-dir=records", "-v")
    result.stdout.fnmatch_lines(
        [
            "autobench.yaml::adder::runs PASSED*",
            "autobench.yaml::adder::policy[[]correct[]] PASSED*",
        ]
    )
    assert result.ret == pytest.ExitCode.OK
    recorded = replay_experiment(pytester.path / "records" / "adder")
    assert len(recorded.runs) == 4


def test_a_failing_policy_prints_the_headline_the_failing_cases_and_the_record(
    pytester: pytest.Pytester,
) -> None:
    write_benchmark(pytester.path, modes=("plain", "broken"))
    result = pytester.runpytest("--autobench", "--autobench-record-dir=records", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "autobench.yaml::adder::runs PASSED*",
            "autobench.yaml::adder::policy[[]correct[]] FAILED*",
            "*_ adder::policy[[]correct[]] _*",
            "policy correct failed on 1 of 4 runs of broken",
            "",
            "adder: 8 runs, 7 passed, 1 failed, 0 errored, 0 skipped",
            "plain -> broken (4 paired cases, 95% intervals)",
            "*",
            "cases:",
            "  c2 / broken: failed: constraint correct failed*",
            "",
            f"record: {pytester.path / 'records' / 'adder'}",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_an_errored_run_fails_the_runs_item_and_a_spec_that_cannot_run_errors_every_item(
    pytester: pytest.Pytester,
) -> None:
    write_benchmark(pytester.path / "crash", "crasher", modes=("crash",))
    broken = write_benchmark(pytester.path / "gone", "gone")
    broken.write_text(broken.read_text().replace("gone_task:run_case", "missing_module:run_case"))
    result = pytester.runpytest("--autobench", "--autobench-record-dir=records", "-v")
    result.assert_outcomes(failed=1, passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "crash/autobench.yaml::crasher::runs FAILED*",
            "crash/autobench.yaml::crasher::policy[[]correct[]] PASSED*",
            "gone/autobench.yaml::gone::runs ERROR*",
            "gone/autobench.yaml::gone::policy[[]correct[]] ERROR*",
        ]
    )
    text = result.stdout.str()
    assert "1 run(s) errored" in text
    assert "c2 / crash: errored: RuntimeError: the adder crashed on c2" in text
    assert "TaskResolutionError: " in text and "missing_module" in text
    # the spec that could not run was tried once: both items show the same error
    assert text.count("ERROR at setup of gone::") == 2


def test_an_invalid_spec_is_a_collection_error_with_its_location(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "autobench.yaml").write_text("benchmark:\n  bad:\n    variants: 3\n")
    result = pytester.runpytest("--autobench")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting autobench.yaml*", "*autobench.yaml:*"])


def test_k_selects_items_and_x_stops_at_the_first_failure(pytester: pytest.Pytester) -> None:
    write_benchmark(pytester.path / "a", "first", modes=("broken",))
    write_benchmark(pytester.path / "b", "second", modes=("broken",))
    selected = pytester.runpytest("--autobench", "--autobench-record-dir=r1", "-k", "policy")
    selected.assert_outcomes(failed=2, deselected=2)
    stopped = pytester.runpytest("--autobench", "--autobench-record-dir=r2", "-x")
    stopped.assert_outcomes(passed=1, failed=1)
    assert not (pytester.path / "r2" / "second").exists()  # never run


def test_fail_on_conditions_are_items_of_their_own(pytester: pytest.Pytester) -> None:
    write_benchmark(pytester.path, modes=("plain", "broken"))
    result = pytester.runpytest(
        "--autobench",
        "--autobench-record-dir=records",
        "--autobench-fail-on=failed, pass^k<0.5",
        "--autobench-repeat=2",
        "-v",
    )
    result.stdout.fnmatch_lines(
        [
            "*::adder::runs PASSED*",
            "*::adder::policy[[]correct[]] FAILED*",
            "*::adder::fail-on[[]failed[]] FAILED*",
            "*::adder::fail-on[[]pass^k<0.5[]] PASSED*",
        ]
    )
    assert "2 run(s) failed" in result.stdout.str()
    assert len(replay_experiment(pytester.path / "records" / "adder").runs) == 16


def test_an_unknown_fail_on_condition_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--autobench", "--autobench-fail-on=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--autobench-fail-on 'sometimes': unknown status sometimes*"])


def test_the_ini_glob_turns_collection_on_for_its_patterns(pytester: pytest.Pytester) -> None:
    write_benchmark(pytester.path / "bench", "wanted", file_name="autobench-smoke.yaml")
    write_benchmark(pytester.path / "examples", "example")
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "autobench_glob = bench/autobench*.yaml\n"
    )
    result = pytester.runpytest("--autobench-record-dir=records", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["bench/autobench-smoke.yaml::wanted::runs", "*2 tests collected*"])
    assert "example" not in result.stdout.str()


def test_an_existing_record_is_never_overwritten(pytester: pytest.Pytester) -> None:
    write_benchmark(pytester.path)
    assert pytester.runpytest("--autobench", "--autobench-record-dir=records").ret == 0
    again = pytester.runpytest("--autobench", "--autobench-record-dir=records")
    again.assert_outcomes(errors=2)
    again.stdout.fnmatch_lines(["*records/adder exists: records are never overwritten*"])


def test_a_session_without_the_option_imports_nothing_of_autobench_but_the_plugin(
    pytester: pytest.Pytester,
) -> None:
    write_benchmark(pytester.path)
    pytester.makepyfile(
        test_imports="""
        import sys

        def test_imports():
            loaded = sorted(m for m in sys.modules if m.startswith(("autobench", "click")))
            assert loaded == [
                "autobench",
                "autobench.pytest_plugin",
                "autobench.pytest_plugin._plugin",
                "autobench.pytest_plugin._settings",
            ]
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:logfire")
    result.assert_outcomes(passed=1)
