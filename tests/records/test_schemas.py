"""The committed JSON schemas are the ones the models generate, and the cache is filled lazily."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _factories import trivial_run

from autobench.records import record_schemas, run_record_to_yaml
from autobench.records._schemas import schema_text

REPOSITORY_SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.mark.parametrize("record_type", sorted(record_schemas()))
def test_committed_schema_is_current(record_type: str) -> None:
    committed = REPOSITORY_SCHEMAS / f"{record_type}.schema.json"
    assert committed.read_text(encoding="utf-8") == schema_text(record_schemas()[record_type]), (
        "schemas/ is stale: run `uv run python tools/generate_schemas.py`"
    )


def test_schema_describes_the_header_and_sections() -> None:
    schema = record_schemas()["run"]
    assert schema["properties"]["record"]["properties"]["type"] == {"const": "run"}
    assert schema["required"][:2] == ["record", "run"]
    assert {"run", "case", "variant", "trace", "scores"} <= set(schema["properties"])
    json.dumps(schema)


def test_cache_follows_autobench_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOBENCH_HOME", str(tmp_path / "home"))
    text = run_record_to_yaml(trivial_run())
    cached = tmp_path / "home" / "0.1.0" / "schemas" / "run.schema.json"
    assert text.startswith(f"# yaml-language-server: $schema={cached.as_uri()}\n")
    assert cached.read_text(encoding="utf-8") == schema_text(record_schemas()["run"])
    cached.write_text("{}")
    run_record_to_yaml(trivial_run())
    assert cached.read_text(encoding="utf-8") == "{}"  # never rewritten once present
