"""Every example YAML file names its editor schema in a first-line header that resolves
inside the checkout, and is valid against that schema; a misspelt key is flagged."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from autobench.core.plugins import new_plugin_manager
from autobench.core.schemas import editor_schemas, schema_version
from autobench.core.spec._yaml import parse_yaml, read_yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HEADER = re.compile(r"# yaml-language-server: \$schema=(?P<path>\S+)\n")
FILES = sorted(
    path for path in EXAMPLES.rglob("*.yaml") if not any(p.startswith(".") for p in path.parts)
)


def _expected_schema(path: Path) -> str:
    if path.name.startswith("autobench.") and path.suffix == ".yaml":
        return "benchmark_schema.json"
    if "pricing" in path.relative_to(EXAMPLES).as_posix():
        return "pricing_schema.json"
    if path.name == "labels.yaml":
        return "../labels.schema.json"  # a record file's schema, beside the versioned ones
    return "dataset_schema.json"


def _with_plugins(path: Path, schema: dict[str, Any]) -> dict[str, Any]:
    """The editor schema with the installed plugins' kinds for a spec that uses one (the
    checked-in schema lists the built-in kinds only: a `judge:` scorer is autobench-judge's)."""
    if path.relative_to(EXAMPLES).parts[0] != "judges" or not path.name.startswith("autobench."):
        return schema
    return editor_schemas(new_plugin_manager())["benchmark_schema.json"]


def _schema_of(path: Path) -> tuple[Path, dict[str, Any]]:
    match = HEADER.match(path.read_text(encoding="utf-8"))
    assert match is not None, f"{path} does not begin with a yaml-language-server header"
    target = (path.parent / match["path"]).resolve()
    assert not Path(match["path"]).is_absolute(), f"{path}: the schema path must be relative"
    assert target.is_relative_to(ROOT), f"{path}: {match['path']} leaves the checkout"
    assert target.is_file(), f"{path}: {match['path']} does not exist"
    return target, json.loads(target.read_text(encoding="utf-8"))


def test_the_examples_hold_specs_datasets_and_pricing() -> None:
    kinds = {_expected_schema(path) for path in FILES}
    assert kinds == {
        "benchmark_schema.json",
        "dataset_schema.json",
        "pricing_schema.json",
        "../labels.schema.json",
    }


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(EXAMPLES).as_posix())
def test_example_header_resolves_and_the_file_is_valid(path: Path) -> None:
    target, schema = _schema_of(path)
    assert target == (ROOT / "schemas" / schema_version() / _expected_schema(path)).resolve()
    schema = _with_plugins(path, schema)
    data = read_yaml(path, path).located.value
    errors = [
        f"{list(e.absolute_path)}: {e.message}"
        for e in Draft202012Validator(schema).iter_errors(data)
    ]
    assert errors == []


@pytest.mark.parametrize(
    ("example", "original", "typo"),
    [
        ("mid/autobench.yaml", "    score:\n", "    scroe:\n"),
        (
            "mid/autobench.yaml",
            "        pass: output.complete\n",
            "        exactly: output.complete\n",
        ),
        ("mid/datasets/messages.yaml", "version:", "verison:"),
        ("mid/pricing/models.yaml", "  models:\n", "  modles:\n"),
    ],
)
def test_a_misspelt_key_in_an_example_is_flagged(example: str, original: str, typo: str) -> None:
    path = EXAMPLES / example
    _, schema = _schema_of(path)
    text = path.read_text(encoding="utf-8")
    assert original in text
    data = parse_yaml(text.replace(original, typo, 1), path).located.value
    assert not Draft202012Validator(schema).is_valid(data)
