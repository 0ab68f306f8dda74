"""The ``ray`` executor's options, its registration and the command-line flags: nothing
here needs a running Ray."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.plugins import default_plugins
from autobench.ray import RayOptionError, RayOptions


def test_options_parse_and_convert_command_line_strings() -> None:
    assert RayOptions.parse({}) == RayOptions()
    parsed = RayOptions.parse({"address": "auto", "num_cpus": "0.5", "excludes": "data,*.bin"})
    assert parsed == RayOptions(address="auto", num_cpus=0.5, excludes=("data", "*.bin"))
    assert RayOptions.parse({"excludes": ["big/"]}).excludes == ("big/",)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"adress": "auto"}, "got unknown: adress"),
        ({"address": ""}, "address must be a non-empty string"),
        ({"num_cpus": "many"}, "num_cpus must be a number"),
        ({"num_cpus": -1}, "num_cpus must be a number >= 0"),
        ({"excludes": 3}, "excludes must be a list of patterns"),
    ],
)
def test_bad_options_are_value_errors_naming_the_option(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(RayOptionError, match=message):
        RayOptions.parse(options)


def test_the_executor_is_registered_without_importing_ray() -> None:
    assert "ray" in default_plugins().executors.names()
    script = (
        "import sys\n"
        "from autobench.core.plugins import AutobenchPlugins\n"
        "assert 'ray' in AutobenchPlugins().executors.names()\n"
        "assert 'ray' not in sys.modules, 'listing executors imported ray'\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


SPEC = """
benchmark:
  flags:
    cases: [{id: one}]
    run: {python: flag_task:run}
    variants: {v: {}}
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "flag_task.py").write_text("def run(ctx, case):\n    return {}\n")
    (tmp_path / "autobench.yaml").write_text(SPEC)
    return tmp_path / "autobench.yaml"


def test_ray_address_needs_the_ray_executor(spec: Path) -> None:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--no-record", "--ray-address", "auto"]
    )
    assert result.exit_code == 2
    assert "--ray-address applies to the ray executor only" in result.output


def test_an_executor_option_needs_key_and_value(spec: Path) -> None:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec), "--no-record", "--executor-option", "address"]
    )
    assert result.exit_code == 2
    assert "'address' is not KEY=VALUE" in result.output


def test_an_unknown_ray_option_leaves_no_record(spec: Path, tmp_path: Path) -> None:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli,
        [
            *("run", str(spec), "--record", str(tmp_path / "rec")),
            *("--executor", "ray", "--executor-option", "adress=auto"),
        ],
    )
    assert result.exit_code == 1
    assert "got unknown: adress" in " ".join(result.output.split())
    assert not (tmp_path / "rec").exists()
