"""An unknown key or name is shown at its own line:column with the closest valid spelling:
misspelled required keys of scorers and derivers, keys of pricing files, export formats."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.pricing import PricingError, load_pricing_table

HEAD = """\
benchmark:
  b:
    cases: [{id: c1}]
    run: {python: "t:run"}
    variants: {v1: {}}
"""


def _validate(tmp_path: Path, tail: str, files: dict[str, str] | None = None) -> str:
    """The output of ``autobench validate`` on HEAD and ``tail`` (keys of benchmark 'b'),
    with ``files`` beside the spec; exit 1 and no traceback asserted."""
    (tmp_path / "t.py").write_text("def run(ctx, case):\n    return {'ok': True}\n")
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    spec = tmp_path / "autobench.yaml"
    spec.write_text(HEAD + textwrap.indent(textwrap.dedent(tail), "    "))
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["validate", str(spec)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return " ".join(result.output.replace("│", " ").split())


def test_a_misspelled_required_key_of_a_dsl_scorer(tmp_path: Path) -> None:
    shown = _validate(
        tmp_path,
        """\
            score:
              ok:
                exact: {actuall: output.ok, expected: true}
        """,
    )
    assert (
        "autobench.yaml:8:17: unknown key 'actuall' in scorer 'ok' (did you mean 'actual'?)"
        " (expected one of: actual, expected)" in shown
    )
    assert "Field required" not in shown


def test_a_misspelled_required_key_of_a_structured_scorer(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("def run(ctx, case):\n    return {'ok': True}\n")
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        textwrap.dedent(
            """\
            benchmark: {id: b}
            dataset: {cases: [{id: c1}]}
            task: {kind: python, target: "t:run"}
            variants: [{id: v1}]
            scoring:
              - {kind: exact, name: ok, actual: output.ok, expectd: true}
            """
        )
    )
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["validate", str(spec)])
    shown = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 1, shown
    assert "autobench.yaml:6:48: unknown key 'expectd' in scorer 'ok'" in shown
    assert "(did you mean 'expected'?)" in shown


def test_a_misspelled_required_key_of_a_deriver(tmp_path: Path) -> None:
    shown = _validate(
        tmp_path,
        """\
            derive:
              - kind: token_cost
                pricng: pricing.yaml
        """,
    )
    assert (
        "autobench.yaml:8:9: unknown key 'pricng' in deriver 1 of 'derive'"
        " (did you mean 'pricing'?) (expected one of: inputs, kind, output, pricing)" in shown
    )
    assert "Field required" not in shown


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            "derive:\n  - knd: token_cost\n    pricing: pricing.yaml\n",
            "autobench.yaml:7:9: unknown key 'knd' in deriver 1 of 'derive' (did you mean 'kind'?)",
        ),
        (
            "derive:\n  - kind: token_cots\n    pricing: pricing.yaml\n",
            "autobench.yaml:7:15: deriver 1 of 'derive' has unknown kind 'token_cots'"
            " (did you mean 'token_cost'?)",
        ),
        (
            "post_derive:\n  - kidn: paired_baseline\n",
            "autobench.yaml:7:9: unknown key 'kidn' in post_derive entry 0 (did you mean 'kind'?)",
        ),
    ],
)
def test_a_misspelled_kind_key_or_value(tmp_path: Path, entry: str, expected: str) -> None:
    assert expected in _validate(tmp_path, entry)


def test_strict_scalars_beside_benchmark_in_the_dsl(tmp_path: Path) -> None:
    """``strict_scalars`` may stand beside ``benchmark:`` in the authoring DSL too."""
    (tmp_path / "t.py").write_text("def run(ctx, case):\n    return {}\n")
    spec = tmp_path / "autobench.yaml"
    spec.write_text("strict_scalars: true\n" + HEAD + "    cases: [{id: c1, input: {v: 2.10}}]\n")
    spec.write_text(spec.read_text().replace("    cases: [{id: c1}]\n", "", 1))
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["validate", str(spec)])
    shown = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 1, shown
    assert "autobench.yaml:6:33: `2.10` is read as the number 2.1" in shown
    spec.write_text(spec.read_text().replace("strict_scalars: true", "strict_scalars: false"))
    assert CliRunner().invoke(cli, ["validate", str(spec)]).exit_code == 0


DERIVE = """\
derive:
  - kind: token_cost
    pricing: pricing.yaml
"""


@pytest.mark.parametrize(
    ("pricing", "expected"),
    [
        (
            """\
            pricing:
              models:
                demo-model:
                  alias: [demo]
                  input: {unit: mtok, price: 1}
            """,
            "pricing.yaml:4:7: unknown key 'alias' in pricing file at"
            " 'pricing.models.demo-model.alias' (did you mean 'aliases'?) (expected one of:"
            " aliases, cache_read, cache_write, input, name, output)",
        ),
        (
            """\
            pricing:
              models:
                demo-model:
                  input:
                    unit: mtok
                    tiers: [{up_to: 10, price: 1}, {prise: 2}]
            """,
            "pricing.yaml:6:41: unknown key 'prise' in pricing file at"
            " 'pricing.models.demo-model.input.tiers.1.prise' (did you mean 'price'?)"
            " (expected one of: price, up_to)",
        ),
    ],
    ids=["model key", "tier key"],
)
def test_an_unknown_key_of_a_pricing_file(tmp_path: Path, pricing: str, expected: str) -> None:
    shown = _validate(tmp_path, DERIVE, {"pricing.yaml": pricing})
    assert expected in shown
    with pytest.raises(PricingError) as caught:  # read directly, the same key and place
        load_pricing_table(tmp_path / "pricing.yaml")
    assert (
        str(caught.value) == f"{tmp_path / 'pricing.yaml'}{expected.removeprefix('pricing.yaml')}"
    )


def test_an_invalid_price_in_a_pricing_file_is_located(tmp_path: Path) -> None:
    path = tmp_path / "pricing.yaml"
    path.write_text("pricing:\n  models:\n    m:\n      input: {unit: mtok, price: -1}\n")
    with pytest.raises(PricingError) as caught:
        load_pricing_table(path)
    assert str(caught.value) == (
        f"{path}:4:34: invalid pricing at 'pricing.models.m.input.price':"
        " Input should be greater than or equal to 0"
    )


def test_a_misspelled_export_format_is_a_usage_error_with_the_closest_one(
    runner: CliRunner, spec_dir: Path
) -> None:
    record = spec_dir / "rec"
    ran = runner.invoke(
        cli, ["run", str(spec_dir / "autobench.yaml"), "--record", str(record), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    target = spec_dir / "out.csv"
    result = runner.invoke(cli, ["export", str(record), "--format", "csvv", "--path", str(target)])
    shown = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2, shown
    assert "'csvv' is not a known export format (did you mean 'csv'?)" in shown
    assert "known formats:" in shown and "markdown" in shown and "junit" in shown
    assert not target.exists()
