"""A failing task is easy to trace: real ``autobench run`` and ``autobench report`` of a spec
and task module written to tmp_path, judged by what they print and what the records hold.

* "Why runs did not pass" names the innermost frame of the user's code (``file:line in
  function``: a helper of the task module, or the task's own line that called a library)
  and, with a record, the run file and key of the full traceback; paths relative to the
  current directory when under it;
* ``run.yaml`` keeps that frame as the error's ``location``; a record written before the
  field existed is located from its traceback;
* ``run --no-record`` prints the first errored run's traceback once, after the report, and
  counts the others;
* a secret in the exception's message never reaches the terminal.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from autobench.cli import cli

SECRET_KEY = "sk-proj-" + "Zq8vT3kLm9Xw2Rb7Nc4Hd6Jf1Gs5Ya0E"
SECRET_QUERY = "Wm4nB8vC2xZ6lK0j"

TASKS = f"""
import json

import yaml


def _parse(text):
    number = int(text)
    raise ValueError(
        f"cannot use {{number}}: {SECRET_KEY} at https://api.example.test/v1?api_key={SECRET_QUERY}"
    )


def task(ctx, case):
    return {{"value": _parse(case.input["text"])}}


def json_task(ctx, case):
    return json.loads(case.input["text"])


def yaml_task(ctx, case):
    return yaml.safe_load(case.input["text"])
"""


def _line(fragment: str) -> int:
    """The 1-based line of TASKS holding ``fragment`` (once)."""
    lines = [n for n, text in enumerate(TASKS.splitlines(), 1) if fragment in text]
    assert len(lines) == 1, fragment
    return lines[0]


RAISE_LINE = _line("raise ValueError(")
JSON_LINE = _line("return json.loads(")
YAML_LINE = _line("return yaml.safe_load(")


def _spec(directory: Path, task: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "trace_tasks.py").write_text(TASKS)
    spec = directory / "autobench.yaml"
    spec.write_text(
        "benchmark:\n"
        "  tracing:\n"
        "    cases:\n"
        '      - {id: a, input: {text: "1"}}\n'
        '      - {id: b, input: {text: "{oops"}}\n'
        '      - {id: c, input: {text: "3"}}\n'
        f'    run: {{python: "trace_tasks:{task}"}}\n'
        "    variants: {v1: {factors: {f: 1}}}\n"
    )
    return spec


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1"}).invoke(cli, list(args))
    return result.exit_code, result.output


def _reason_lines(output: str) -> list[str]:
    """The lines of the "Why runs did not pass" table, stripped."""
    start = output.index("Why runs did not pass")
    lines = []
    for line in output[start:].splitlines()[1:]:
        if not line.strip() or line.startswith("Traceback of run"):
            break
        lines.append(" ".join(line.split()))
    return lines


def _assert_no_secret(output: str) -> None:
    assert SECRET_KEY not in output
    assert SECRET_QUERY not in output
    assert "[redacted]" in output


def test_run_names_the_helper_line_and_where_each_traceback_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path / "bench", "task")

    code, output = _cli("run", str(spec), "--record", "rec")

    assert code == 0, output
    why = _reason_lines(output)
    for case in ("a", "c"):
        assert f"at bench/trace_tasks.py:{RAISE_LINE} in _parse" in why
        assert f"traceback: rec/cases/{case}/v1/run.yaml errors[0].traceback" in why
    # case b fails in int() (a builtin): the innermost frame of the user's code is int()'s caller
    assert f"at bench/trace_tasks.py:{RAISE_LINE - 1} in _parse" in why
    assert "Traceback (most recent call last)" not in output  # recorded, not printed
    _assert_no_secret(output)

    record = yaml.safe_load((tmp_path / "rec/cases/a/v1/run.yaml").read_text())
    error = record["errors"][0]
    # Records name the file relative to the spec's directory, wherever the command ran.
    assert error["location"] == {"file": "trace_tasks.py", "line": RAISE_LINE, "function": "_parse"}
    assert f'File "trace_tasks.py", line {RAISE_LINE}, in _parse' in error["traceback"]
    assert SECRET_KEY not in (tmp_path / "rec/cases/a/v1/run.yaml").read_text()


def test_no_record_prints_the_first_traceback_once_and_counts_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path / "bench", "task")

    code, output = _cli("run", str(spec), "--no-record")

    assert code == 0, output
    assert f"at bench/trace_tasks.py:{RAISE_LINE} in _parse" in _reason_lines(output)
    assert "traceback: " not in output  # no record to point to
    assert output.count("Traceback (most recent call last)") == 1
    printed = output[output.index("Traceback of run") :]
    assert output.index("Why runs did not pass") < output.index("Traceback of run")
    assert printed.startswith("Traceback of run run_0000_a_v1 (case a, variant v1; task error)")
    assert f'File "bench/trace_tasks.py", line {_line("def task(") + 1}, in task' in printed
    assert f'File "bench/trace_tasks.py", line {RAISE_LINE}, in _parse' in printed
    assert "ValueError: cannot use 1:" in printed
    assert "2 more runs did not pass because of an error" in printed
    assert not (tmp_path / ".autobench").exists()
    _assert_no_secret(output)


@pytest.mark.parametrize(
    ("task", "line", "error"),
    [("json_task", JSON_LINE, "JSONDecodeError"), ("yaml_task", YAML_LINE, "ParserError")],
)
def test_a_library_failure_is_located_at_the_tasks_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, line: int, error: str
) -> None:
    """json (the standard library) and yaml (site-packages) raise in their own frames; the
    innermost frame of the user's code is the task's line that called them."""
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path, task)

    code, output = _cli("run", str(spec), "--record", "rec")

    assert code == 0, output
    why = _reason_lines(output)
    assert any(error in line_text for line_text in why), why
    assert f"at trace_tasks.py:{line} in {task}" in why
    record = yaml.safe_load((tmp_path / "rec/cases/b/v1/run.yaml").read_text())
    assert record["errors"][0]["location"] == {
        "file": "trace_tasks.py",
        "line": line,
        "function": task,
    }
    assert "<site-packages>/" in record["errors"][0]["traceback"] or task == "json_task"


def test_report_locates_from_the_records_relative_to_where_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tmp_path / "bench", "task")
    monkeypatch.chdir(tmp_path)
    assert _cli("run", str(spec), "--record", "rec")[0] == 0

    monkeypatch.chdir(tmp_path / "bench")
    code, output = _cli("report", str(tmp_path / "rec"))

    assert code == 0, output
    why = _reason_lines(output)
    # The spec's directory is the current one: its file is named as recorded; the record
    # directory is not under it: absolute.
    assert f"at trace_tasks.py:{RAISE_LINE} in _parse" in why
    record = tmp_path / "rec" / "cases" / "c" / "v1" / "run.yaml"
    assert f"traceback: {record} errors[0].traceback" in why
    _assert_no_secret(output)


def test_report_finds_the_spec_above_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record inside the spec's directory, ``report`` run from above both: the spec's
    directory is found from the record's recorded files, and named from where ``report`` runs."""
    spec = _spec(tmp_path / "bench", "task")
    monkeypatch.chdir(tmp_path / "bench")
    assert _cli("run", "autobench.yaml", "--record", "rec")[0] == 0
    monkeypatch.chdir(tmp_path)

    code, output = _cli("report", "bench/rec")

    assert code == 0, output
    why = _reason_lines(output)
    assert f"at bench/trace_tasks.py:{RAISE_LINE} in _parse" in why
    assert "traceback: bench/rec/cases/a/v1/run.yaml errors[0].traceback" in why
    assert spec.is_file()


def test_a_record_written_before_locations_is_located_from_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path, "task")
    assert _cli("run", str(spec), "--record", "rec")[0] == 0
    for path in (tmp_path / "rec" / "cases").rglob("run.yaml"):
        text = path.read_text()
        lines = text.splitlines(keepends=True)
        start = next(i for i, line in enumerate(lines) if line.strip() == "location:")
        del lines[start : start + 4]  # location: + file, line, function
        path.write_text("".join(lines))
        assert "location" not in path.read_text()

    code, output = _cli("report", "rec")

    assert code == 0, output
    assert f"at trace_tasks.py:{RAISE_LINE} in _parse" in _reason_lines(output)


def test_a_spec_outside_the_current_directory_names_its_files_absolutely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tmp_path / "bench", "task")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    code, output = _cli("run", str(spec), "--no-record")

    assert code == 0, output
    tasks = os.path.join(tmp_path, "bench", "trace_tasks.py")
    assert f"at {tasks}:{RAISE_LINE} in _parse" in _reason_lines(output)
    assert f'File "{tasks}", line {RAISE_LINE}, in _parse' in output
