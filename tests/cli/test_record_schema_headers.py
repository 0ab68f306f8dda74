"""Every YAML file of a record directory names, by a path relative to itself, the record
directory's own copy of its JSON schema, so yaml-language-server finds it with no settings,
also after the directory is copied; the schema accepts the file and rejects a broken one."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.records._schemas import autobench_version, record_schema_text, schema_id

HEADER = "# yaml-language-server: $schema="

TASK = """\
def run(ctx, case):
    with ctx.span("work", kind="tool"):
        for index in range(case.input["spans"]):
            with ctx.span(f"step {index}", kind="tool"):
                pass
    ctx.artifact("notes", {"case": case.id, "lines": ["a", "b"]})
    return {"ok": True}
"""

SPEC = """\
benchmark:
  headers:
    cases:
      - {id: small, input: {spans: 1}}
      - {id: large, input: {spans: 1500}}
    run: {python: "task:run"}
    variants: {only: {}}
    score:
      ok: {pass: output.ok}
"""


def _plain(value: Any) -> Any:
    """The document as an editor's YAML parser sees it: timestamps as the text written."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dt.datetime):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def _document(path: Path) -> dict[str, Any]:
    loaded = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return _plain(loaded)


@pytest.fixture
def record(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "task.py").write_text(TASK)
    (tmp_path / "autobench.yaml").write_text(SPEC)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("AUTOBENCH_HOME", str(tmp_path / "home"))
    target = tmp_path / "records"
    args = ["run", str(tmp_path / "autobench.yaml"), "--record", str(target), "--no-progress"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    copied = tmp_path / "elsewhere" / "copy"
    shutil.copytree(target, copied)
    shutil.rmtree(target)
    return copied


def test_every_record_file_names_its_schema_by_a_path_that_resolves(record: Path) -> None:
    files = sorted(record.rglob("*.yaml"))
    seen: set[str] = set()
    for path in files:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        assert first.startswith(HEADER), path
        reference = first.removeprefix(HEADER)
        assert not reference.startswith(("/", "urn:", "file:")), (path, reference)
        schema_path = (path.parent / reference).resolve()
        assert schema_path.parent == record / "schemas" / autobench_version()
        record_type = _document(path)["record"]["type"]
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        assert schema["$id"] == schema_id(record_type)
        assert schema_path.read_text(encoding="utf-8") == record_schema_text(record_type)
        Draft202012Validator(schema).validate(_document(path))
        seen.add(record_type)
    assert {"experiment", "summary", "run", "trace", "artifact_payload"} <= seen
    written = {path.name for path in (record / "schemas" / autobench_version()).iterdir()}
    assert written == {f"{name}.schema.json" for name in seen}  # only the types in use
    assert not (record.parent.parent / "home").exists()  # the home cache is left alone


def test_the_schema_a_record_names_rejects_a_broken_record(record: Path) -> None:
    path = next(record.glob("cases/*/*/run.yaml"))
    text = path.read_text(encoding="utf-8")
    broken = text.replace("\n  status: passed\n", "\n  status: 42\n", 1)
    assert broken != text
    path.write_text(broken, encoding="utf-8")
    reference = text.split("\n", 1)[0].removeprefix(HEADER)
    schema = json.loads((path.parent / reference).read_text(encoding="utf-8"))
    errors = list(Draft202012Validator(schema).iter_errors(_document(path)))
    assert errors and {tuple(error.absolute_path) for error in errors} == {("run", "status")}


def test_a_resumed_record_keeps_one_copy_of_each_schema(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "task.py").write_text(
        textwrap.dedent(
            """
            import os

            def run(ctx, case):
                if case.id == "late" and os.environ.get("STOP_LATE"):
                    raise KeyboardInterrupt
                return {"ok": True}
            """
        )
    )
    (tmp_path / "autobench.yaml").write_text(
        SPEC.replace("{id: small, input: {spans: 1}}", "{id: early}").replace(
            "{id: large, input: {spans: 1500}}", "{id: late}"
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    target = tmp_path / "records"
    spec = str(tmp_path / "autobench.yaml")
    monkeypatch.setenv("STOP_LATE", "1")
    first = runner.invoke(cli, ["run", spec, "--record", str(target), "--no-progress"])
    assert first.exit_code == 130, first.output
    monkeypatch.delenv("STOP_LATE")
    second = runner.invoke(cli, ["run", spec, "--resume", str(target), "--no-progress"])
    assert second.exit_code == 0, second.output
    schemas = target / "schemas" / autobench_version()
    assert sorted(path.name for path in schemas.iterdir()) == [
        "experiment.schema.json",
        "run.schema.json",
        "summary.schema.json",
    ]
    for path in target.rglob("*.yaml"):
        reference = path.read_text(encoding="utf-8").split("\n", 1)[0].removeprefix(HEADER)
        assert (path.parent / reference).is_file(), path


def test_a_derived_record_names_a_schema_copy_under_derived(
    runner: CliRunner, record: Path
) -> None:
    before = {path for path in record.rglob("*") if path.is_file()}
    result = runner.invoke(cli, ["replay", str(record), "--extract", "span"])
    assert result.exit_code == 0, result.output
    added = {path for path in record.rglob("*") if path.is_file()} - before
    assert added and all(path.relative_to(record).parts[0] == "derived" for path in added)
    derived = sorted(path for path in added if path.name == "extraction.yaml")
    assert len(derived) == 2
    for path in derived:
        reference = path.read_text(encoding="utf-8").split("\n", 1)[0].removeprefix(HEADER)
        schema_path = (path.parent / reference).resolve()
        assert schema_path == record / "derived/span/1/schemas" / autobench_version() / (
            "extraction.schema.json"
        ), schema_path
        Draft202012Validator(json.loads(schema_path.read_text())).validate(_document(path))
