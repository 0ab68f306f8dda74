"""The committed JSON schemas are the ones the models generate; record headers name them by id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _factories import trivial_run

from autobench.records import record_schemas, run_record_to_yaml
from autobench.records._schemas import autobench_version, ensure_schema_cache, schema_text

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


def test_header_names_the_schema_id_and_leaves_home_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOBENCH_HOME", str(tmp_path / "home"))
    text = run_record_to_yaml(trivial_run())
    first = text.splitlines()[0]
    assert first == f"# yaml-language-server: $schema={record_schemas()['run']['$id']}"
    assert first.endswith(f":schemas/{autobench_version()}/run.schema.json")
    assert first.startswith("# yaml-language-server: $schema=urn:autobench:")
    assert str(tmp_path) not in text and "file://" not in text
    assert not (tmp_path / "home").exists()  # writing a record never fills the cache


def test_every_record_schema_has_a_distinct_id() -> None:
    ids = [schema["$id"] for schema in record_schemas().values()]
    assert len(set(ids)) == len(ids)
    assert all(schema_id.startswith("urn:autobench:schemas/") for schema_id in ids)


def test_cache_follows_autobench_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOBENCH_HOME", str(tmp_path / "home"))
    directory = ensure_schema_cache()
    cached = tmp_path / "home" / autobench_version() / "schemas" / "run.schema.json"
    assert directory == cached.parent
    assert cached.read_text(encoding="utf-8") == schema_text(record_schemas()["run"])
    cached.write_text("{}")
    ensure_schema_cache()
    assert cached.read_text(encoding="utf-8") == "{}"  # never rewritten once present
