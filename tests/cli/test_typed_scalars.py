"""Values YAML would change behind the user's back: what is typed is what the task sees, what
the record says and what replay and exports give back."""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import json
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench.cli import cli
from autobench.core.pricing import load_pricing_table
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import RecordDirectoryWriter, compose_input, construct_input, load_document
from autobench.records.replay import replay_experiment

TASK = """\
import json


def run(ctx, case):
    seen = {
        name: [type(ctx.factor(name)).__name__, str(ctx.factor(name))]
        for name in ("api_version", "release", "size", "build", "day")
    }
    data = {key: [type(value).__name__, str(value)] for key, value in case.input.items()}
    return {"factors": json.dumps(seen), "input": json.dumps(data), "case": case.id,
            "big": case.input.get("big"), "when": case.input.get("when")}
"""

SPEC = """\
benchmark:
  typed:
    cases: cases.yaml
    run: {python: "typed_task:run"}
    variants:
      007:
        factors:
          api_version: 2024-02-01
          release: 2.10
          size: 1e3
          build: "0042"
          day: !!timestamp 2024-02-01
"""

CASES = """\
cases:
  - id: 007
    input: {when: 2024-02-01, code: 0042, big: 123456789012345678901234567890}
"""


def _write(tmp_path: Path, spec: str = SPEC) -> Path:
    (tmp_path / "typed_task.py").write_text(TASK)
    (tmp_path / "cases.yaml").write_text(CASES)
    path = tmp_path / "autobench.yaml"
    path.write_text(spec)
    return path


def test_validate_notes_each_number_that_loses_its_text_and_shows_factors_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["validate", "autobench.yaml"])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: `2.10` at autobench.yaml:9:20 is read as the number 2.1; quote it to keep the text",
        "note: `1e3` at autobench.yaml:10:17 is read as the number 1000.0; quote it to keep the text",
        "note: `0042` at cases.yaml:3:37 is read as the number 42; quote it to keep the text",
    ]
    # factors as a person writes them, ids as typed: no Python reprs
    assert "api_version=2024-02-01, release=2.10, size=1e3, build=0042, day=2024-02-01" in (
        result.output
    )
    assert "datetime" not in result.output
    assert "│ 007 " in result.output


def test_strict_scalars_turns_the_first_note_into_a_located_error(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    runner = CliRunner(env={"COLUMNS": "200"})
    for command in (["validate", str(spec), "--strict-scalars"], ["run", str(spec), "--no-record"]):
        if command[0] == "run":
            spec.write_text(SPEC.replace("  typed:\n", "  typed:\n    strict_scalars: true\n"))
        result = runner.invoke(cli, command)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        line = 10 if command[0] == "run" else 9
        # The panel wraps the message where the temporary path's length puts it.
        message = " ".join(row.strip("│ ") for row in result.output.splitlines())
        assert f"autobench.yaml:{line}:20: `2.10` is read as the number 2.1" in message
        assert "(2 more such value(s))" in message
    quoted = SPEC.replace("2.10", '"2.10"').replace("1e3", '"1e3"')
    spec.write_text(quoted)
    (tmp_path / "cases.yaml").write_text(CASES.replace("0042", '"0042"'))
    assert runner.invoke(cli, ["validate", str(spec), "--strict-scalars"]).exit_code == 0


def test_the_task_the_record_replay_and_exports_agree_with_what_was_typed(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    record = tmp_path / "rec"
    runner = CliRunner(env={"COLUMNS": "200"})
    ran = runner.invoke(cli, ["run", str(spec), "--record", str(record), "--no-progress"])
    assert ran.exit_code == 0, ran.output

    run_file = record / "cases" / "007" / "007" / "run.yaml"  # ids as typed, also in paths
    document = load_document(run_file.read_text())
    output = document["output"]
    seen = json.loads(output["factors"])
    assert seen == {
        "api_version": ["str", "2024-02-01"],  # YAML 1.2 has no timestamps: the text stays
        "release": ["float", "2.1"],  # a number, as YAML 1.2 says (noted)
        "size": ["float", "1000.0"],
        "build": ["str", "0042"],
        "day": ["date", "2024-02-01"],  # typed on purpose: a date, no time, no zone
    }
    assert json.loads(output["input"]) == {
        "when": ["str", "2024-02-01"],
        "code": ["int", "42"],
        "big": ["int", "123456789012345678901234567890"],
    }
    assert output["case"] == "007" and output["when"] == "2024-02-01"
    assert output["big"] == 123456789012345678901234567890  # exact, any size
    factors = document["variant"]["factors"]
    assert factors["api_version"] == "2024-02-01"
    assert factors["release"] == {"value": 2.1, "text": "2.10"}  # the written text kept
    assert factors["size"] == {"value": 1000.0, "text": "1e3"}
    assert factors["day"] == dt.date(2024, 2, 1)
    assert document["case"]["id"] == "007" and document["variant"]["id"] == "007"

    replayed = replay_experiment(record).runs[0]
    assert replayed.case.id == "007" and replayed.variant.id == "007"
    by_name = {factor.name: factor for factor in replayed.variant.factors}
    assert by_name["api_version"].value == "2024-02-01"
    assert (by_name["release"].value, by_name["release"].text) == (2.1, "2.10")
    assert by_name["day"].value == dt.date(2024, 2, 1)
    assert replayed.output["big"] == 123456789012345678901234567890
    assert replayed.case.input["when"] == "2024-02-01"

    table = tmp_path / "runs.csv"
    assert (
        runner.invoke(
            cli, ["export", str(record), "--format", "csv", "--path", str(table)]
        ).exit_code
        == 0
    )
    rows = list(csv.DictReader(table.read_text().splitlines()))
    assert rows[0]["case"] == "007" and rows[0]["variant"] == "007"
    summary = tmp_path / "exported.yaml"
    exported = runner.invoke(
        cli, ["export", str(record), "--format", "yaml", "--path", str(summary)]
    )
    assert exported.exit_code == 0, exported.output
    assert "007" in load_document(summary.read_text()).__repr__()
    assert "'007'" in summary.read_text() or '"007"' in summary.read_text()


def test_a_pricing_file_keeps_date_like_and_numeric_names_as_text(tmp_path: Path) -> None:
    path = tmp_path / "pricing.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            pricing:
              provider: openai
              models:
                gpt-4o-2024-05-13:
                  aliases: [2024-05-13, "4.10"]
                  input: {unit: mtok, price: 2.50}
                  output: {unit: mtok, price: 10}
            """
        )
    )
    table = load_pricing_table(path)
    for name in ("gpt-4o-2024-05-13", "2024-05-13", "4.10"):  # never a date, never 4.1
        assert table.resolve(name) is not None, name
    assert table.resolve("4.1") is None


def _plain_is_the_same_string(text: str) -> bool:
    try:
        node = compose_input(f"k: {text}\n")
        data = construct_input(node).data
    except Exception:
        return False
    return isinstance(data, dict) and data.get("k") == text


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=30), st.booleans())
def test_any_string_factor_reaches_the_task_and_the_record_unchanged(
    tmp_path: Path, value: str, plain: bool
) -> None:
    """Written plain where YAML reads the plain text back as that string, else quoted (JSON
    escapes): the task's ``ctx.factor`` and the replayed record give back the same string."""
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    (base / "echo_task.py").write_text(
        "def run(ctx, case):\n    return {'seen': ctx.factor('label')}\n"
    )
    written = value if plain and _plain_is_the_same_string(value) else json.dumps(value)
    (base / "autobench.yaml").write_text(
        "benchmark:\n  echo:\n    cases: [{id: c1}]\n    run: {python: 'echo_task:run'}\n"
        f"    variants:\n      v1:\n        factors:\n          label: {written}\n"
    )
    spec = load_benchmark_spec(base / "autobench.yaml")
    assert spec.variants[0].factors[0].value == value
    record = base / "rec"
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(record)))
    replayed: Any = replay_experiment(record).runs[0]
    assert replayed.output == {"seen": value}
    assert replayed.variant.factors[0].value == value


@pytest.mark.parametrize(
    ("written", "value", "noted"),
    [
        ("2.10", 2.1, True),  # trailing fractional zero
        ("007", 7, True),  # leading zeros
        ("0777", 777, True),  # a YAML 1.1 octal is a decimal in 1.2
        ("0o17", 15, True),  # a YAML 1.2 octal
        ("0x1F", 31, True),
        ("1e3", 1000.0, True),  # an exponent
        ("+5", 5, True),
        (".5", 0.5, True),
        ("1.5", 1.5, False),  # the number's own text: nothing to say
        ("42", 42, False),
        ("1_000", "1_000", False),  # not a YAML 1.2 number: the text
        ("1:30", "1:30", False),  # YAML 1.1 sexagesimal: the text in 1.2
        ("2024-02-01", "2024-02-01", False),  # YAML 1.2 has no timestamps
        ("2024-02-01T10:00:00Z", "2024-02-01T10:00:00Z", False),
        ("yes", "yes", False),  # a YAML 1.1 boolean is a string in 1.2
    ],
)
def test_each_shape_in_a_factor_and_in_case_data(
    tmp_path: Path, written: str, value: Any, noted: bool
) -> None:
    (tmp_path / "autobench.yaml").write_text(
        "benchmark:\n  shapes:\n"
        f"    cases: [{{id: c1, input: {{x: {written}}}}}]\n"
        "    run: {python: 'task:run'}\n"
        f"    variants:\n      v1: {{factors: {{x: {written}}}}}\n"
    )
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")
    factor = spec.variants[0].factors[0]
    case_value = spec.dataset.cases[0].input["x"]
    assert (factor.value, case_value) == (value, value)
    assert type(factor.value) is type(value) and type(case_value) is type(value)
    assert factor.text == (written if noted else None)
    assert len(spec.scalar_notes) == (2 if noted else 0)
    if noted:
        assert spec.scalar_notes[0].startswith(f"`{written}` at ")
        assert "autobench.yaml:3:" in spec.scalar_notes[0]
