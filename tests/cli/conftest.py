from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200"})


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    """A small benchmark on disk: two cases, two variants, one task module."""
    (tmp_path / "cli_task.py").write_text(
        textwrap.dedent(
            """
            def run_case(ctx, case):
                with ctx.span("compute", kind="tool"):
                    value = case.input["x"] * ctx.factor("factor")
                ctx.metric("x", case.input["x"], semantic_type="workload.size")
                return {"value": value}
            """
        )
    )
    (tmp_path / "autobench.yaml").write_text(
        textwrap.dedent(
            """
            benchmark:
              cli-demo:
                description: Multiply by the factor.
                dataset:
                  cases:
                    - {id: one, input: {x: 1}, expected: {value: 2}}
                    - {id: two, input: {x: 2}, expected: {value: 4}}
                run:
                  python: cli_task:run_case
                variants:
                  double: {factors: {factor: 2}}
                  triple: {factors: {factor: 3}}
                score:
                  correct:
                    exact: {actual: output.value, expected: case.expected.value}
                    semantic: quality.correctness
                    role: constraint
            """
        )
    )
    return tmp_path
