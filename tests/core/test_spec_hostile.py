"""Hostile specs: object tags, alias bombs, remote and escaping references, and a fuzz of the
loader on real files. Every refusal is a located SpecError; nothing else ever escapes."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from autobench.core.spec import BenchmarkSpec, SpecError, load_benchmark_spec

LOCAL = "a local path or file:// reference inside the spec directory"
VALID = textwrap.dedent(
    """\
    benchmark:
      demo:
        description: A small benchmark.
        dataset:
          id: d
          version: v1
          defaults: {tags: [t]}
          cases:
            - {id: a, input: {x: 1}, expected: {y: 2}}
            - id: b
              input: [1, 2]
        run:
          python: "mod:run"
        variants:
          v1: {label: One, factors: {k: 1}}
          v2: {factors: {k: 2}}
        score:
          right:
            exact: {actual: output.y, expected: case.expected.y}
            semantic: quality.correctness
    """
)


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root / "autobench.yaml"


def refused(spec: Path) -> SpecError:
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(spec)
    return caught.value


OBJECT_TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/object:os.system {{}}",
    "!!python/name:os.system",
    "!!python/module:os",
    "!python/object/apply:os.system ['touch {marker}']",
    "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch {marker}']",
]


@pytest.mark.parametrize("tag", OBJECT_TAGS)
def test_python_object_tags_are_refused_with_a_located_error(tmp_path: Path, tag: str) -> None:
    marker = tmp_path / "executed"
    value = tag.format(marker=marker)
    spec = write(
        tmp_path,
        {
            "autobench.yaml": f"benchmark:\n  b:\n    cases:\n      - id: a\n        input: {value}\n"
        },
    )
    error = refused(spec)
    assert (error.path, error.line, error.column) == (spec, 5, 16)
    assert "invalid YAML" in error.message and "constructor" in error.message
    assert not marker.exists()


def test_python_object_tags_in_a_dataset_file_point_into_that_file(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    spec = write(
        tmp_path,
        {
            "autobench.yaml": "benchmark:\n  b:\n    cases: data/cases.yaml\n",
            "data/cases.yaml": (
                f"cases:\n  - id: a\n    input: !!python/object/apply:os.system ['touch {marker}']\n"
            ),
        },
    )
    error = refused(spec)
    assert (error.path, error.line, error.column) == (tmp_path / "data/cases.yaml", 3, 12)
    assert not marker.exists()


@pytest.mark.parametrize(
    "bomb",
    [
        # Nested sequences.
        "\n".join(
            [
                "a0: &a0 [x, x, x, x, x, x, x, x, x, x]",
                *(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)),
            ]
        ),
        # Nested mappings, whose keys are aliases too.
        "\n".join(
            [
                "m0: &m0 {a: x, b: x, c: x, d: x, e: x, f: x, g: x, h: x}",
                *(
                    f"m{i}: &m{i} {{{', '.join(f'k{j}: *m{i - 1}' for j in range(8))}}}"
                    for i in range(1, 10)
                ),
            ]
        ),
    ],
    ids=["sequences", "mappings"],
)
def test_alias_bombs_in_dataset_files_are_refused_within_a_bound(tmp_path: Path, bomb: str) -> None:
    spec = write(
        tmp_path,
        {
            "autobench.yaml": "benchmark:\n  b:\n    cases: cases.yaml\n",
            "cases.yaml": bomb + "\ncases: [{id: a}]\n",
        },
    )
    error = refused(spec)
    assert error.message == "aliases expand this value to more than 1,000,000 values"
    assert error.path == tmp_path / "cases.yaml" and error.line is not None


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("http://example.com/cases.yaml", "remote reference 'http://example.com/cases.yaml'"),
        ("HTTPS://example.com/c.yaml", "remote reference 'HTTPS://example.com/c.yaml'"),
        ("ftp://host/c.yaml", "remote reference 'ftp://host/c.yaml'"),
        ("git+ssh://host/repo.git", "remote reference 'git+ssh://host/repo.git'"),
        ("../cases.yaml", "path '../cases.yaml' escapes the spec directory"),
        ("sub/../../cases.yaml", "path 'sub/../../cases.yaml' escapes the spec directory"),
        ("file://../cases.yaml", "path '../cases.yaml' escapes the spec directory"),
        ("../*.yaml", "path '../*.yaml' escapes the spec directory"),
        ("file:///etc/passwd", "path '/etc/passwd' is outside the spec directory"),
    ],
)
def test_remote_and_escaping_references_are_located_errors(
    tmp_path: Path, reference: str, message: str
) -> None:
    (tmp_path / "cases.yaml").write_text("cases: [{id: a}]\n")
    spec = write(
        tmp_path / "spec",
        {"autobench.yaml": f'benchmark:\n  b:\n    dataset:\n      source: "{reference}"\n'},
    )
    error = refused(spec)
    assert (error.line, error.column) == (4, 15)
    assert error.message.startswith(message) and error.expected == LOCAL


def test_symlinked_directories_and_globs_cannot_escape(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cases.yaml").write_text("cases: [{id: a}]\n")
    spec = write(tmp_path / "spec", {"autobench.yaml": ""})
    (tmp_path / "spec" / "linked").symlink_to(outside, target_is_directory=True)
    for reference in ("linked/cases.yaml", "linked/*.yaml", "**/*.yaml"):
        spec.write_text(f"benchmark:\n  b:\n    cases: '{reference}'\n")
        error = refused(spec)
        assert (error.line, error.column) == (3, 12), reference
        assert "resolves outside the spec directory" in error.message


# The fuzz: the spec is a real file next to a real dataset file; whatever bytes it holds,
# loading gives a BenchmarkSpec or a SpecError located in a file that exists (line and
# column set: every file here exists, so no problem concerns a file as a whole).

YAMLISH = st.lists(
    st.sampled_from(
        [
            *" \n\t:-[]{},#&*!|>'\"%@`?~.\\",
            *["benchmark", "demo", "cases", "id", "input", "run", "python", "variants", "score"],
            *["dataset", "source", "x.yaml", "../x", "http://h/", "!!python/name:os.system"],
            *["&a", "*a", "<<", "!!binary", "!!set", "!!omap", "%YAML 1.1", "---", "...", "\ufeff"],
            *["\x00", "\x85", "\u2028", "\ud800", "é", "0x1", "1e3", "yes", "null", "2024-01-01"],
        ]
    ),
    max_size=60,
).map("".join)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=10),
    st.sampled_from(["m:f", "x.yaml", "file://x.yaml", "../x.yaml", "*.yaml", "s3://b/k"]),
)
KEYS = st.sampled_from(
    [
        *["benchmark", "demo", "dataset", "cases", "id", "input", "expected", "run", "python"],
        *["task", "target", "variants", "factors", "score", "exact", "report", "source", "tags"],
    ]
) | st.text(max_size=5)
STRUCTURES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=20,
)
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "x.yaml").write_text("cases: [{id: a}]\n", encoding="utf-8")
    return root


def load_only_located(spec_dir: Path, content: bytes) -> None:
    spec = spec_dir / "autobench.yaml"
    spec.write_bytes(content)
    try:
        result = load_benchmark_spec(spec)
    except SpecError as error:
        assert error.message and error.path is not None and error.path.exists()
        assert error.line is not None and error.line >= 1, error
        assert error.column is not None and error.column >= 1, error
    else:
        assert isinstance(result, BenchmarkSpec)


def dump(data: Any) -> bytes:
    import io

    stream = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, stream)
    return stream.getvalue().encode("utf-8")


@SETTINGS
@given(content=st.binary(max_size=300))
@example(content=b"\xff\xfe\x00b\x00")
@example(content=b"benchmark:\n  b:\n    cases: \x00\n")
def test_random_bytes_give_only_located_spec_errors(spec_dir: Path, content: bytes) -> None:
    load_only_located(spec_dir, content)


@SETTINGS
@given(text=YAMLISH)
def test_random_yamlish_text_gives_only_located_spec_errors(spec_dir: Path, text: str) -> None:
    load_only_located(spec_dir, text.encode("utf-8", "surrogatepass"))


@SETTINGS
@given(document=STRUCTURES, wrap=st.booleans())
def test_random_structures_give_only_located_spec_errors(
    spec_dir: Path, document: Any, wrap: bool
) -> None:
    load_only_located(spec_dir, dump({"benchmark": {"demo": document}} if wrap else document))


@SETTINGS
@given(
    position=st.integers(0, len(VALID)),
    length=st.integers(0, 30),
    insert=YAMLISH,
    flip=st.integers(0, len(VALID.encode()) - 1),
    bit=st.integers(0, 7),
)
def test_mutated_valid_specs_give_only_located_spec_errors(
    spec_dir: Path, position: int, length: int, insert: str, flip: int, bit: int
) -> None:
    text = VALID[:position] + insert + VALID[position + length :]
    load_only_located(spec_dir, text.encode("utf-8", "surrogatepass"))
    mutated = bytearray(VALID.encode())
    mutated[flip] ^= 1 << bit
    load_only_located(spec_dir, bytes(mutated))


def test_the_valid_spec_loads(spec_dir: Path) -> None:
    spec = spec_dir / "valid" / "autobench.yaml"
    spec.parent.mkdir(exist_ok=True)
    spec.write_text(VALID)
    assert load_benchmark_spec(spec).id == "demo"
    assert os.path.exists(spec)
