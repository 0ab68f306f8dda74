"""``autobench validate`` lists every objective or constraint scorer with no direction
anywhere (no goal, no direction in the catalog for its semantic type), with its YAML
location, as a warning: the spec stays valid (exit 0)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli

DSL = """\
benchmark:
  dirs:
    cases:
      - {id: a, input: 1, expected: 1}
    run:
      python: task:run_case
    variants: {only: {}}
    score:
      exact:
        exact: {actual: output, expected: case.expected}
        semantic: quality.correctness
      vibe:
        exact: {actual: output, expected: case.expected}
        semantic: custom.vibe
      bare:
        exact: {actual: output, expected: case.expected}
      told:
        exact: {actual: output, expected: case.expected}
        semantic: custom.told
        goal: maximize
      note:
        exact: {actual: output, expected: case.expected}
        semantic: custom.note
        role: diagnostic
      budget:
        exact: {actual: output, expected: case.expected}
        semantic: time.render
        role: constraint
      gate:
        exact: {actual: output, expected: case.expected}
        semantic: custom.gate
        role: constraint
"""


def _validate(tmp_path: Path, text: str) -> tuple[int, str]:
    spec = tmp_path / "autobench.yaml"
    spec.write_text(text, encoding="utf-8")
    (tmp_path / "task.py").write_text("def run_case(ctx, case):\n    return 1\n")
    result = CliRunner(env={"COLUMNS": "400"}).invoke(cli, ["validate", str(spec)])
    return result.exit_code, result.output


def test_directionless_objectives_and_constraints_are_listed(tmp_path: Path) -> None:
    code, output = _validate(tmp_path, DSL)
    assert code == 0, output
    warnings = [line for line in output.splitlines() if line.startswith("warning: ")]
    spec = tmp_path / "autobench.yaml"
    assert [line.split(" has no direction")[0] for line in warnings] == [
        f"warning: {spec}:12:7: objective 'vibe'",
        f"warning: {spec}:15:7: objective 'bare'",
        f"warning: {spec}:29:7: constraint 'gate'",
    ]
    assert "(semantic type custom.vibe, no goal)" in warnings[0]
    assert "(no semantic type, no goal)" in warnings[1]


def test_structured_scorers_are_located_too(tmp_path: Path) -> None:
    text = """\
benchmark: {id: dirs}
dataset:
  cases: [{id: a, input: 1, expected: 1}]
task: {kind: python, target: "task:run_case"}
variants: [{id: only}]
scoring:
  - kind: exact
    name: vibe
    actual: output
    expected: case.expected
    semantic: custom.vibe
  - kind: exact
    name: fine
    actual: output
    expected: case.expected
    semantic: quality.fine
"""
    code, output = _validate(tmp_path, text)
    assert code == 0, output
    warnings = [line for line in output.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: {tmp_path / 'autobench.yaml'}:7:5: objective 'vibe'")


def test_no_warning_when_every_scorer_has_a_direction(tmp_path: Path) -> None:
    text = DSL.split("      vibe:")[0]
    code, output = _validate(tmp_path, text)
    assert code == 0 and "has no direction" not in output
