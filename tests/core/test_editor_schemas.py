"""The editor schemas: generated from the loader's models, committed, and in step with the
loader (what it accepts is valid, a misspelt key it rejects is flagged)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from autobench.core.pricing import PricingError, load_pricing_table
from autobench.core.schemas import editor_schemas, schema_text, schema_version
from autobench.core.spec import (
    SpecError,
    dump_benchmark_spec,
    load_benchmark_spec,
    load_benchmark_spec_text,
)
from autobench.core.spec._yaml import parse_yaml

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "schemas" / schema_version()
SCHEMAS = editor_schemas()


def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMAS[name])


def _data(text: str) -> Any:
    return parse_yaml(text, Path("autobench.yaml")).located.value


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_is_current(name: str) -> None:
    committed = COMMITTED / name
    assert committed.is_file(), f"{committed} is missing: run `uv run autobench schema`"
    assert committed.read_text(encoding="utf-8") == schema_text(SCHEMAS[name]), (
        f"schemas/{schema_version()}/{name} is stale: run `uv run autobench schema`"
    )


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schemas_are_valid_draft_2020_12(name: str) -> None:
    Draft202012Validator.check_schema(SCHEMAS[name])
    json.dumps(SCHEMAS[name])


SPEC = """\
benchmark:
  demo:
    dataset:
      cases:
        - {id: one, input: {x: 1}, expected: {y: 2}}
    run:
      python: tasks:run_case
    variants:
      baseline:
        factors:
          model: {value: small, semantic: llm.model.name}
          temperature: 0
    score:
      correct:
        exact: {actual: output.y, expected: case.expected.y}
        semantic: result.success
      shape:
        schema: {path: output, schema: {type: object}}
    instrumentation:
      all: {exclude: [httpx]}
      openai: true
      httpx: {capture: {path: full}}
"""


def test_a_spec_the_loader_accepts_is_valid(tmp_path: Path) -> None:
    load_benchmark_spec_text(SPEC, path=tmp_path / "autobench.yaml")
    assert list(_validator("benchmark_schema.json").iter_errors(_data(SPEC))) == []


@pytest.mark.parametrize(
    ("original", "typo"),
    [
        ("    score:", "    scroe:"),
        ("        exact: {actual", "        exactly: {actual"),
        ("        semantic: result.success", "        semantik: result.success"),
        ("      openai: true", "      opneai: true"),
        ("      httpx: {capture: {path: full}}", "      httpx: {capture: {pth: full}}"),
        ("      baseline:\n        factors:", "      baseline:\n        factor:"),
        ("      cases:\n", "      casez:\n"),
        ("      python: tasks:run_case", "      pyhton: tasks:run_case"),
    ],
)
def test_a_misspelt_key_is_flagged_like_the_loader_does(
    tmp_path: Path, original: str, typo: str
) -> None:
    text = SPEC.replace(original, typo, 1)
    assert text != SPEC
    with pytest.raises(SpecError):
        load_benchmark_spec_text(text, path=tmp_path / "autobench.yaml")
    assert not _validator("benchmark_schema.json").is_valid(_data(text))


def test_the_structured_form_and_the_dump_are_valid(tmp_path: Path) -> None:
    spec = load_benchmark_spec(ROOT / "examples" / "mid" / "autobench.yaml")
    validator = _validator("benchmark_schema.json")
    structured = spec.model_dump(mode="json")
    assert list(validator.iter_errors(structured)) == []
    assert not validator.is_valid({**structured, "scorng": []})
    dumped = dump_benchmark_spec(spec)
    assert list(validator.iter_errors(_data(dumped))) == []


@pytest.mark.parametrize(
    "text",
    [
        "cases:\n  - {id: a, input: 1}\nversion: 2\n",
        "tickets:\n  version: v2\n  cases:\n    - {id: a, input: 1}\n",
        "dataset:\n  tickets:\n    cases:\n      - {id: a, input: 1}\n",
        "- {id: a, input: 1}\n",
    ],
)
def test_every_dataset_file_form_is_valid(tmp_path: Path, text: str) -> None:
    (tmp_path / "cases.yaml").write_text(text)
    spec = "benchmark:\n  demo:\n    dataset: {source: file://cases.yaml}\n"
    load_benchmark_spec_text(spec, path=tmp_path / "autobench.yaml")
    assert list(_validator("dataset_schema.json").iter_errors(_data(text))) == []


@pytest.mark.parametrize(
    "text",
    ["cases:\n  - {id: a, inptu: 1}\n", "cases:\n  - {id: a}\nversoin: 2\n"],
)
def test_a_misspelt_dataset_key_is_flagged(tmp_path: Path, text: str) -> None:
    (tmp_path / "cases.yaml").write_text(text)
    spec = "benchmark:\n  demo:\n    dataset: {source: file://cases.yaml}\n"
    with pytest.raises(SpecError):
        load_benchmark_spec_text(spec, path=tmp_path / "autobench.yaml")
    assert not _validator("dataset_schema.json").is_valid(_data(text))


PRICING = """\
pricing:
  provider: demo
  models:
    demo/mini:
      input: {unit: mtok, price: 0.3}
      output: {unit: mtok, price: 1.2}
"""


def test_a_pricing_file_is_valid_and_a_typo_is_flagged(tmp_path: Path) -> None:
    validator = _validator("pricing_schema.json")
    good = tmp_path / "pricing.yaml"
    good.write_text(PRICING)
    load_pricing_table(good)
    assert list(validator.iter_errors(_data(PRICING))) == []
    bad = tmp_path / "bad.yaml"
    bad.write_text(PRICING.replace("price: 1.2", "prcie: 1.2"))
    with pytest.raises(PricingError):
        load_pricing_table(bad)
    assert not validator.is_valid(_data(bad.read_text()))
