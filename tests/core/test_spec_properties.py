"""Property: whatever text or structure the loader is fed, it fails only with SpecError."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from autobench.core.spec import BenchmarkSpec, SpecError, load_benchmark_spec_text

SUPPORT = Path(__file__).parent / "fixtures" / "spec_loader" / "support" / "autobench.yaml"
SUPPORT_TEXT = SUPPORT.read_text(encoding="utf-8")

KEYS = [
    "benchmark", "demo", "id", "description", "dataset", "cases", "source", "defaults",
    "version", "metadata", "input", "expected", "tags", "run", "python", "task", "kind",
    "target", "variants", "label", "factors", "value", "semantic", "optimize", "score",
    "scoring", "pass", "exact", "actual", "goal", "role", "unit", "optional", "name", "path",
    "report", "reports", "leaderboard", "show", "metric", "aggregate", "matrix", "compare",
    "a -> b", "distributions", "semantic_type", "summaries", "semantic_registry", "types",
    "aliases", "parent", "shape", "record",
]  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.sampled_from(["m:f", "file://x.yaml", "https://a/b", "../up.yaml", "*.yaml", "maximize"]),
    st.text(max_size=12),
)
STRUCTURES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), children, max_size=5
        ),
    ),
    max_leaves=25,
)


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "x.yaml").write_text("cases: [{id: a}]\n", encoding="utf-8")
    return root / "autobench.yaml"


def only_spec_errors(text: str, path: Path) -> None:
    try:
        result = load_benchmark_spec_text(text, path=path)
    except SpecError as error:
        assert error.path is not None and error.message
        assert error.line is None or error.line >= 1
        assert error.column is None or error.column >= 1
    else:
        assert isinstance(result, BenchmarkSpec)


def dump(data: Any) -> str:
    stream = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, stream)
    return stream.getvalue()


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(text=st.text(max_size=200))
def test_random_text_raises_only_spec_error(spec_path: Path, text: str) -> None:
    only_spec_errors(text, spec_path)


@SETTINGS
@given(
    start=st.integers(0, len(SUPPORT_TEXT)),
    length=st.integers(0, 40),
    insert=st.text(alphabet=" \n\t:-[]{}#&*!|>'\"%@`,?abc01", max_size=8),
)
def test_garbled_spec_raises_only_spec_error(
    spec_path: Path, start: int, length: int, insert: str
) -> None:
    only_spec_errors(SUPPORT_TEXT[:start] + insert + SUPPORT_TEXT[start + length :], spec_path)


@SETTINGS
@given(body=STRUCTURES)
def test_random_dsl_structures_raise_only_spec_error(spec_path: Path, body: Any) -> None:
    only_spec_errors(dump({"benchmark": {"demo": body}}), spec_path)


@SETTINGS
@given(document=STRUCTURES)
def test_random_documents_raise_only_spec_error(spec_path: Path, document: Any) -> None:
    only_spec_errors(dump(document), spec_path)


@SETTINGS
@given(
    section=st.sampled_from(["dataset", "variants", "score", "report", "run", "semantic_registry"]),
    value=STRUCTURES,
)
def test_random_sections_raise_only_spec_error(spec_path: Path, section: str, value: Any) -> None:
    only_spec_errors(dump({"benchmark": {"demo": {section: value}}}), spec_path)
