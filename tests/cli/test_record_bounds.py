"""Every command that reads a record is bounded: a record file with an alias bomb or
thousands of nested levels (in a run file, in an offloaded trace, in experiment.yaml) is a
located error and exit 1 from replay, report, compare, every export and
``instrumentation trace``, never a traceback, a crash or a hang; and a value as deeply
nested as ``validate`` accepts is recorded whole by ``run``."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from record_tamper import invoke, readers, record, run_file

from autobench.records import MAX_INPUT_NESTING, MAX_RECORD_NESTING, replay_experiment

BOMB = "\n".join(
    ["bomb:", "  l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    + [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)]
)
"""A section whose aliases expand to a billion values (nine levels of ten): ``l5`` (on the
section's sixth line after its key) is the first past a million."""


def _flow(levels: int) -> str:
    return "[" * levels + "]" * levels


def _block(levels: int) -> str:
    """``levels`` nested block sequences on one line (``- - - x``)."""
    return "- " * levels + "x"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("made"))


@pytest.fixture
def rec(made: Path, tmp_path: Path) -> Path:
    """A fresh copy of the recorded experiment for one test to tamper with."""
    target = tmp_path / "rec"
    subprocess.run(["cp", "-r", str(made), str(target)], check=True)
    return target


def _append(path: Path, section: str) -> int:
    """Append a top-level ``section`` to ``path``; the line it starts on."""
    text = path.read_text()
    path.write_text(text + "\n" + section + "\n")
    return len(text.splitlines()) + 2


def _assert_located_refusal(record_dir: Path, tmp_path: Path, where: str, what: str) -> None:
    for name, args in readers(record_dir, tmp_path).items():
        result = invoke(*args)
        assert result.exit_code == 1, (name, result.output)
        assert "Traceback" not in result.output, (name, result.output)
        flat = " ".join(result.output.replace("│", " ").split())
        assert where in flat and what in flat, (name, flat)
    assert not any(tmp_path.glob("export.*"))  # nothing half written


def test_an_alias_bomb_in_a_run_file_is_refused_by_every_reader(rec: Path, tmp_path: Path) -> None:
    path = run_file(rec)
    line = _append(path, BOMB)
    _assert_located_refusal(
        rec, tmp_path, f"run.yaml:{line + 6}:7", "aliases expand this value to more than 1,000,000"
    )


@pytest.mark.parametrize("nested", [f"  {_flow(5000)}", _block(5000)], ids=["flow", "block"])
def test_5000_nested_levels_in_a_run_file_are_refused_by_every_reader(
    rec: Path, tmp_path: Path, nested: str
) -> None:
    path = run_file(rec, "small", "v2")
    line = _append(path, f"deep:\n{nested}")
    _assert_located_refusal(
        rec,
        tmp_path,
        f"run.yaml:{line + 1}:",
        f"collections nest more than {MAX_RECORD_NESTING} levels deep here",
    )


def test_5000_nested_levels_in_experiment_yaml_are_refused_by_every_reader(
    rec: Path, tmp_path: Path
) -> None:
    path = rec / "experiment.yaml"
    line = _append(path, f"deep: {_flow(5000)}")
    _assert_located_refusal(
        rec, tmp_path, f"experiment.yaml:{line}:", "collections nest more than 256 levels"
    )


def test_deep_nesting_in_an_offloaded_trace_is_refused_where_traces_are_read(
    rec: Path, tmp_path: Path
) -> None:
    run = run_file(rec, "big", "v1")
    assert "artifact:" in run.read_text()  # the 1,200-span trace lives beside the run
    (trace,) = rec.glob("artifacts/*big*v1*/trace.yaml")
    line = _append(trace, f"deep: {_flow(5000)}")
    # Whoever edits the trace can edit its digest too: the bound holds all the same.
    digest = hashlib.sha256(trace.read_bytes()).hexdigest()
    run.write_text(re.sub(r"sha256: [0-9a-f]{64}", f"sha256: {digest}", run.read_text()))
    commands = readers(rec, tmp_path)
    for name in ("replay", "instrumentation trace"):
        result = invoke(*commands[name])
        assert result.exit_code == 1, (name, result.output)
        flat = " ".join(result.output.replace("│", " ").split())
        assert f"trace.yaml:{line}:" in flat and "nest more than 256 levels" in flat, flat
        assert "Traceback" not in result.output
    # Reports read no trace: the record's evidence still reports.
    assert invoke(*commands["report"]).exit_code == 0


BOUNDED = """
import re, sys
from pathlib import Path
from click.testing import CliRunner
from autobench.cli import cli
result = CliRunner().invoke(cli, ["replay", sys.argv[1]])
# VmHWM: this process's peak resident memory (ru_maxrss keeps the parent's peak at fork)
peak = re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)
print(result.exit_code, peak, flush=True)
print(result.output)
"""


@pytest.mark.parametrize(
    "section",
    [BOMB, f"deep: {_flow(5000)}", f"deep: {_flow(100_000)}", f"deep:\n{_block(100_000)}"],
    ids=["alias-bomb", "5000-flow", "100000-flow", "100000-block"],
)
def test_replay_of_a_hostile_run_file_stays_under_200_mb(rec: Path, section: str) -> None:
    """In a process of its own, so its peak memory is the replay's; 100,000 levels would
    crash libyaml's composer (its recursion overflows the C stack)."""
    _append(run_file(rec), section)
    done = subprocess.run(
        [sys.executable, "-c", BOUNDED, str(rec)],
        capture_output=True,
        text=True,
        timeout=300,  # a guard against a hang, not a measurement
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    code, peak_kb = map(int, done.stdout.split("\n", 1)[0].split())
    assert code == 1, done.stdout
    assert "run.yaml:" in done.stdout and "Traceback" not in done.stdout
    assert peak_kb < 200 * 1024, peak_kb


def _nested(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def _deep_spec(directory: Path, levels: int) -> Path:
    (directory / "deep_task.py").write_text("def run(ctx, case):\n    return {'ok': True}\n")
    spec = directory / "autobench.yaml"
    spec.write_text(
        textwrap.dedent(
            f"""\
            benchmark:
              deep:
                cases: [{{id: c1, input: {{x: {_nested(levels)}}}}}]
                run: {{python: 'deep_task:run'}}
                variants: {{v1: {{factors: {{f: {_nested(levels)}}}}}}}
                score:
                  ok: {{pass: output.ok}}
            """
        )
    )
    return spec


def _depth(value: object) -> int:
    depth = 0
    while isinstance(value, list):
        (value,) = value
        depth += 1
    return depth


def test_the_deepest_input_validate_accepts_is_recorded_whole(tmp_path: Path) -> None:
    # root, benchmark, deep, cases, the case, input: six levels above x's lists
    levels = MAX_INPUT_NESTING - 6
    spec = _deep_spec(tmp_path, levels)
    assert invoke("validate", str(spec)).exit_code == 0
    ran = invoke("run", str(spec), "--record", str(tmp_path / "rec"))
    assert ran.exit_code == 0, ran.output
    result = replay_experiment(tmp_path / "rec")
    (run,) = result.runs
    assert _depth(run.case.input["x"]) == levels
    assert _depth(run.variant.factors[0].value) == levels
    assert json.dumps(run.case.input) == json.dumps({"x": json.loads(_nested(levels))})
    for name, args in readers(tmp_path / "rec", tmp_path).items():
        if name != "compare":  # one variant: nothing to compare
            assert invoke(*args).exit_code == 0, name


def test_an_input_deeper_than_validate_accepts_is_a_located_error_of_validate_and_run(
    tmp_path: Path,
) -> None:
    spec = _deep_spec(tmp_path, 270)
    column = len("    cases: [{id: c1, input: {x: ") + (MAX_INPUT_NESTING - 6) + 1
    for args in (["validate", str(spec)], ["run", str(spec), "--record", str(tmp_path / "r")]):
        result = invoke(*args)
        assert result.exit_code == 1, result.output
        flat = " ".join(result.output.replace("│", " ").split())
        assert f"autobench.yaml:3:{column}: collections nest more than 200 levels" in flat, flat
        assert "Traceback" not in result.output
    assert not (tmp_path / "r").exists()
