"""Every spec error names the file, line and column, and what was expected."""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest

from autobench.core.spec import SpecError, load_benchmark_spec

BASE = """\
benchmark:
  x:
    dataset:
      cases:
        - id: a
          input: 1
    run:
      python: "m:f"
    variants:
      v1: {}
"""

KEYWORDS = "exactly one of: exact, expected_action, judge, pass, python, schema, value"
LOCAL = "a local path or file:// reference inside the spec directory"


def load_files(root: Path, files: dict[str, str]) -> SpecError:
    """Write ``files`` under ``root`` (the cwd) and return the error loading ``autobench.yaml``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec("autobench.yaml")
    return caught.value


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_unknown_key_error_has_every_attribute(tmp_path: Path) -> None:
    error = load_files(tmp_path, {"autobench.yaml": BASE + "    scroe: {}\n"})
    assert isinstance(error, ValueError)
    assert (error.path, error.line, error.column) == (Path("autobench.yaml"), 11, 5)
    assert error.message == "unknown key 'scroe' in benchmark 'x' (did you mean 'score'?)"
    assert error.expected == (
        "one of: cases, dataset, derive, description, executor, instrumentation, limits, policies, post_derive, redaction, repeat, report, "
        "reports, run, score, semantic_registry, strict_scalars, task, variants"
    )
    assert str(error) == f"autobench.yaml:11:5: {error.message} (expected {error.expected})"
    assert str(pickle.loads(pickle.dumps(error))) == str(error)


SPEC_ERRORS: dict[str, tuple[str, str]] = {
    "yaml syntax": (
        "benchmark:\n  x:\n    run: [\n",
        "autobench.yaml:4:1: invalid YAML: expected the node content, but found '<stream end>'"
        " (while parsing a flow node)",
    ),
    "duplicate key": (
        BASE + "    variants: {}\n",
        "autobench.yaml:11:5: duplicate key 'variants' (expected each key at most once per mapping)",
    ),
    "not a mapping": (
        "- a\n- b\n",
        "autobench.yaml:1:1: a benchmark spec must be a mapping, not a list (expected benchmark:"
        " {<id>: {...}} (authoring DSL) or benchmark: {id, description} (structured form))",
    ),
    "empty file": (
        "# only a comment\n",
        "autobench.yaml:1:1: the spec file is empty (expected benchmark: {<id>: {...}}"
        " (authoring DSL) or benchmark: {id, description} (structured form))",
    ),
    "unknown top-level key": (
        "benchmrk:\n  x: {}\n",
        "autobench.yaml:1:1: unknown key 'benchmrk' in the spec (did you mean 'benchmark'?) (expected one of: benchmark,"
        " dataset, derive, executor, instrumentation, limits, policies, post_derive, redaction, repeat, reports, scoring, semantic_registry,"
        " strict_scalars, task, variants)",
    ),
    "two benchmarks": (
        "benchmark:\n  x: {}\n  y: {}\n",
        "autobench.yaml:3:3: a spec file holds one benchmark (expected a single <id> under 'benchmark')",
    ),
    "unknown dataset key": (
        BASE.replace("      cases:", "      version: v1\n      cases:").replace(
            "version: v1", "verison: v1"
        ),
        "autobench.yaml:4:7: unknown key 'verison' in dataset (did you mean 'version'?) (expected one of: cases, defaults,"
        " id, metadata, source, version)",
    ),
    "unknown case key": (
        BASE.replace("input: 1", "inptu: 1"),
        "autobench.yaml:6:11: unknown key 'inptu' in case 'a' (did you mean 'input'?) (expected one of: attachments,"
        " expected, id, input, metadata, tags)",
    ),
    "case of the wrong type": (
        BASE.replace("input: 1", "tags: 5"),
        "autobench.yaml:6:17: invalid 'tags' of case 'a': Input should be a list, not an integer",
    ),
    "duplicate case id": (
        BASE.replace("input: 1", "input: 1\n        - id: a"),
        "autobench.yaml:7:15: duplicate case id 'a' (first defined at autobench.yaml:5:15)"
        " (expected unique case ids)",
    ),
    "unknown variant key": (
        BASE.replace("v1: {}", "v1: {lable: x}"),
        "autobench.yaml:10:12: unknown key 'lable' in variant 'v1' (did you mean 'label'?) (expected one of: description,"
        " factors, label)",
    ),
    "variant of the wrong type": (
        BASE.replace("v1: {}", "v1: {label: [1]}"),
        "autobench.yaml:10:19: invalid 'label' of variant 'v1': Input should be a valid string,"
        " not a list",
    ),
    "duplicate variant id in list form": (
        BASE.replace("v1: {}", "- id: a\n      - {id: a, label: again}"),
        "autobench.yaml:11:14: duplicate variant id 'a' (first defined at autobench.yaml:10:13)"
        " (expected unique variant ids)",
    ),
    "unknown factor key": (
        BASE.replace("v1: {}", "v1:\n        factors:\n          m: {value: 1, semantc: x}"),
        "autobench.yaml:12:25: unknown key 'semantc' in factor 'm' of variant 'v1' (did you mean 'semantic'?) (expected"
        " one of: description, optimize, semantic, semantic_type, text, value)",
    ),
    "factor without value": (
        BASE.replace("v1: {}", "v1:\n        factors:\n          m: {semantic: llm.model.name}"),
        "autobench.yaml:12:14: factor 'm' of variant 'v1' has semantic but no 'value'"
        " (expected {value, semantic, optimize, description})",
    ),
    "scorer without action": (
        BASE + "    score:\n      s:\n        semantic: quality.score\n",
        f"autobench.yaml:12:7: scorer 's' has no scoring action (expected {KEYWORDS})",
    ),
    "scorer with two actions": (
        BASE + "    score:\n      s:\n        pass: output.ok\n        value: output.n\n",
        "autobench.yaml:14:9: scorer 's' has more than one scoring action (pass, value)"
        f" (expected {KEYWORDS})",
    ),
    "unknown score key": (
        BASE + "    score:\n      s:\n        pass: output.ok\n        semantik: x\n",
        "autobench.yaml:14:9: unknown key 'semantik' in scorer 's' (did you mean 'semantic'?) (expected one of: goal,"
        " optional, pass, role, semantic, span, unit)",
    ),
    "scorer goal of the wrong value": (
        BASE + "    score:\n      s:\n        pass: output.ok\n        goal: up\n",
        "autobench.yaml:14:15: invalid 'goal' of scorer 's': 'up' is not allowed"
        " (expected 'maximize' or 'minimize')",
    ),
    "exact scorer missing a field": (
        BASE + "    score:\n      s:\n        exact: {actual: output.a}\n",
        "autobench.yaml:13:16: invalid 'expected' of scorer 's': Field required",
    ),
    "exact scorer with a misspelled field": (
        BASE + "    score:\n      s:\n        exact: {actual: output.a, expectd: 1}\n",
        "autobench.yaml:13:35: unknown key 'expectd' in scorer 's' (did you mean 'expected'?)"
        " (expected one of: actual, expected)",
    ),
    "deriver with a misspelled field": (
        BASE + "    derive:\n      - {kind: token_cost, pricng: p.yaml}\n",
        "autobench.yaml:12:28: unknown key 'pricng' in deriver 1 of 'derive' (did you mean"
        " 'pricing'?) (expected one of: inputs, kind, output, pricing)",
    ),
    "unknown report key": (
        BASE + "    report:\n      leaderbord: {}\n",
        "autobench.yaml:12:7: unknown key 'leaderbord' in report (did you mean 'leaderboard'?) (expected one of: compare,"
        " distributions, leaderboard, matrix)",
    ),
    "unknown aggregate": (
        BASE
        + "    report:\n      leaderboard:\n        show:\n          r: {metric: m, aggregate: avg}\n",
        "autobench.yaml:14:37: invalid 'aggregate' of metric 'r' of report leaderboard: 'avg'"
        " is not allowed (expected 'count', 'mean', 'sum', 'per_pass', 'min', 'max', 'median',"
        " 'p95', 'stddev', 'geomean' or 'ratio_true')",
    ),
    "comparison of an unknown variant": (
        BASE + "    report:\n      compare:\n        v1 -> v9: {}\n",
        "autobench.yaml:13:9: comparison 'v1 -> v9' names unknown variant 'v9' (expected one of: v1)",
    ),
    "unknown semantic type key": (
        BASE + "    semantic_registry:\n      types:\n        a.b: {parnet: x}\n",
        "autobench.yaml:13:15: unknown key 'parnet' in semantic type 'a.b' (did you mean 'parent'?) (expected one of:"
        " additive, description, direction, parent, shape, unit)",
    ),
    "task target without colon": (
        "benchmark:\n  x:\n    run:\n      python: app.tasks.run\n",
        "autobench.yaml:4:15: task target 'app.tasks.run' must have the form module:function"
        " (expected module:function, for example app.tasks:run_case)",
    ),
    "run and task together": (
        'benchmark:\n  x:\n    run: {python: "a:b"}\n    task: {target: "a:b"}\n',
        "autobench.yaml:4:5: benchmark 'x' has both 'run' and 'task' (expected one of: run, task)",
    ),
    "remote cases": (
        "benchmark:\n  x:\n    cases: https://example.com/cases.yaml\n",
        "autobench.yaml:3:12: remote reference 'https://example.com/cases.yaml' is not allowed"
        f" in cases (expected {LOCAL})",
    ),
    "remote source": (
        "benchmark:\n  x:\n    dataset:\n      source: s3://bucket/cases.yaml\n",
        "autobench.yaml:4:15: remote reference 's3://bucket/cases.yaml' is not allowed in"
        f" dataset source (expected {LOCAL})",
    ),
    "missing file": (
        "benchmark:\n  x:\n    cases: datasets/missing.yaml\n",
        "autobench.yaml:3:12: file 'datasets/missing.yaml' does not exist (expected a YAML file"
        " relative to the spec)",
    ),
    "escaping path": (
        "benchmark:\n  x:\n    dataset:\n      source: file://../cases.yaml\n",
        f"autobench.yaml:4:15: path '../cases.yaml' escapes the spec directory (expected {LOCAL})",
    ),
    "absolute path outside": (
        "benchmark:\n  x:\n    cases: /etc/cases.yaml\n",
        f"autobench.yaml:3:12: path '/etc/cases.yaml' is outside the spec directory (expected {LOCAL})",
    ),
    "glob matching nothing": (
        "benchmark:\n  x:\n    dataset:\n      source: file://datasets/*.yaml\n",
        "autobench.yaml:4:15: dataset source pattern 'datasets/*.yaml' matches no file"
        " (expected a glob matching at least one file)",
    ),
    "structured unknown scorer key": (
        "benchmark: {id: x}\nscoring:\n  - {kind: pass_fail, name: a, path: p, bogus: 1}\n",
        "autobench.yaml:3:41: unknown key 'bogus' in scorer 'a' (expected one of: direction,"
        " goal, kind, name, optional, path, role, semantic, semantic_type, span, unit)",
    ),
    "structured unknown scorer kind": (
        "benchmark: {id: x}\nscoring:\n  - {kind: fuzzy, name: a}\n",
        "autobench.yaml:3:12: invalid scorer 'a': unknown scorer kind 'fuzzy'; known kinds:"
        " exact, expected_action, judge, output, pass_fail, python, schema (expected one of:"
        " exact, expected_action, judge, output, pass_fail, python, schema)",
    ),
    "structured duplicate scorer": (
        "benchmark: {id: x}\nscoring:\n  - {kind: pass_fail, name: a, path: p}\n"
        "  - {kind: pass_fail, name: a, path: q}\n",
        "autobench.yaml:4:29: duplicate scorer name 'a' (first defined at autobench.yaml:3:29)"
        " (expected unique scorer names)",
    ),
    "structured benchmark without id": (
        "benchmark: {description: no id}\ndataset: {}\n",
        "autobench.yaml:1:12: benchmark needs an 'id' (expected one of: description, id)",
    ),
    "structured report of the wrong type": (
        "benchmark: {id: x}\nreports:\n  matrix: {metric: [1]}\n",
        "autobench.yaml:3:20: invalid 'matrix.metric' of reports: Input should be a valid string,"
        " not a list",
    ),
}


@pytest.mark.parametrize(("text", "expected"), SPEC_ERRORS.values(), ids=SPEC_ERRORS.keys())
def test_spec_errors_are_located(tmp_path: Path, text: str, expected: str) -> None:
    assert str(load_files(tmp_path, {"autobench.yaml": text})) == expected


DATASET_ERRORS: dict[str, tuple[str, str]] = {
    "unknown case key in a file": (
        "cases:\n  - id: a\n    expectd: 1\n",
        "datasets/cases.yaml:3:5: unknown key 'expectd' in case 'a' (did you mean 'expected'?) (expected one of:"
        " attachments, expected, id, input, metadata, tags)",
    ),
    "syntax error in a file": (
        "cases:\n  - id: a\n   input: 1\n",
        "datasets/cases.yaml:3:4: invalid YAML: expected <block end>, but found '<block mapping start>'"
        " (while parsing a block collection)",
    ),
    "file without cases": (
        "version: v1\n",
        "datasets/cases.yaml:1:1: a dataset file must list its cases (no 'cases') (expected"
        " cases: [...])",
    ),
    "empty dataset file": (
        "",
        "datasets/cases.yaml:1:1: the dataset file is empty (expected a mapping with 'cases')",
    ),
    "unknown file key": (
        "cases: []\ndefaults: {}\nowner: me\n",
        "datasets/cases.yaml:3:1: unknown key 'owner' in dataset file (expected one of: cases,"
        " defaults, id, metadata, version)",
    ),
    "unknown defaults key": (
        "defaults: {tag: [x]}\ncases: [{id: a}]\n",
        "datasets/cases.yaml:1:12: unknown key 'tag' in dataset file defaults (did you mean 'tags'?) (expected one of:"
        " expected, input, metadata, tags)",
    ),
}


@pytest.mark.parametrize(("text", "expected"), DATASET_ERRORS.values(), ids=DATASET_ERRORS.keys())
def test_dataset_file_errors_point_into_the_dataset_file(
    tmp_path: Path, text: str, expected: str
) -> None:
    files = {"autobench.yaml": "benchmark:\n  x:\n    cases: datasets/cases.yaml\n"}
    files["datasets/cases.yaml"] = text
    assert str(load_files(tmp_path, files)) == expected


def test_duplicate_case_ids_across_glob_files_point_at_the_second(tmp_path: Path) -> None:
    error = load_files(
        tmp_path,
        {
            "autobench.yaml": "benchmark:\n  x:\n    dataset:\n      source: file://data/*.yaml\n",
            "data/b.yaml": "cases:\n  - id: twice\n",
            "data/a.yaml": "cases:\n  - id: once\n  - id: twice\n",
        },
    )
    assert str(error) == (
        "data/b.yaml:2:9: duplicate case id 'twice' (first defined at data/a.yaml:3:9)"
        " (expected unique case ids)"
    )


def test_dataset_files_with_different_versions(tmp_path: Path) -> None:
    error = load_files(
        tmp_path,
        {
            "autobench.yaml": "benchmark:\n  x:\n    dataset:\n      source: data/*.yaml\n",
            "data/a.yaml": "version: v1\ncases: [{id: a}]\n",
            "data/b.yaml": "version: v2\ncases: [{id: b}]\n",
        },
    )
    assert (error.path, error.line, error.column) == (Path("data/b.yaml"), 1, 10)
    assert error.expected == "one version, or dataset.version set in the spec"


def test_symlink_escaping_the_spec_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("cases: []\n", encoding="utf-8")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "cases.yaml").symlink_to(outside)
    (tmp_path / "spec" / "autobench.yaml").write_text(
        "benchmark:\n  x:\n    cases: cases.yaml\n", encoding="utf-8"
    )
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec("spec/autobench.yaml")
    assert str(caught.value) == (
        f"spec/autobench.yaml:3:12: path 'cases.yaml' resolves outside the spec directory"
        f" (expected {LOCAL})"
    )


def test_missing_spec_file_is_a_whole_file_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec("nowhere.yaml")
    assert (caught.value.line, caught.value.column) == (None, None)
    assert str(caught.value) == "nowhere.yaml: file 'nowhere.yaml' does not exist"


def test_invalid_utf8_is_located(tmp_path: Path) -> None:
    (tmp_path / "autobench.yaml").write_bytes(b"benchmark:\n  x:\n    description: caf\xe9\n")
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec("autobench.yaml")
    assert str(caught.value) == "autobench.yaml:3:21: the file is not valid UTF-8 text"


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    error = load_files(
        tmp_path, {"autobench.yaml": "benchmark:\n  x:\n    dataset: &d {cases: [*d]}\n"}
    )
    assert error.message == "an alias refers to a value that contains it (recursive data)"
    assert (error.line, error.column) == (3, 14)


@pytest.mark.parametrize(
    ("reference", "reason"),
    [('"d/a\\u0000b.yaml"', "embedded null byte"), ("x" * 5000 + ".yaml", "File name too long")],
)
def test_unusable_paths_are_located_spec_errors(
    tmp_path: Path, reference: str, reason: str
) -> None:
    spec = tmp_path / "autobench.yaml"
    spec.write_text(f"benchmark:\n  b:\n    cases: {reference}\n    variants: {{v: {{}}}}\n")
    with pytest.raises(SpecError, match=reason) as caught:
        load_benchmark_spec(spec)
    assert (caught.value.line, caught.value.column) == (3, 12)


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    levels = ["    a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    levels += [f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  b:\n    cases:\n      - id: bomb\n        input:\n"
        + "\n".join("    " + line for line in levels)
        + "\n    variants: {v: {}}\n"
    )
    with pytest.raises(
        SpecError, match="aliases expand this value to more than 1,000,000 values"
    ) as caught:
        load_benchmark_spec(spec)
    assert caught.value.line is not None and 6 < caught.value.line < 16


def test_a_misspelled_scoring_action_is_named_with_the_closest_one(tmp_path: Path) -> None:
    error = load_files(
        tmp_path,
        {
            "autobench.yaml": BASE
            + "    score:\n      s1:\n        exactly: {actual: output.x, expected: 1}\n"
        },
    )
    assert (error.line, error.column) == (13, 9)  # the misspelled key itself
    assert error.message == "scorer 's1' has no scoring action (did you mean 'exact'?)"
    assert error.expected == KEYWORDS
