"""One exception root: every error Autobench raises on purpose is an ``AutobenchError`` (its
builtin base kept), and the CLI shows any of them as a located panel with exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench import AutobenchError
from autobench.abp import InstrumentationError, ValuePathError
from autobench.cli import cli
from autobench.core.plugins import PluginLoadError
from autobench.core.pricing import AmbiguousModelError, MissingRateError, PricingError
from autobench.core.runtime import ResumeError, TaskResolutionError
from autobench.core.scoring import ScorerResolutionError
from autobench.core.spec import SpecError
from autobench.records import (
    MissingRecordError,
    RecordFormatError,
    RecordingError,
    UnitConversionError,
)
from autobench.report import UnknownExportFormatError, UnknownVariantError


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (SpecError, ValueError),
        (PricingError, ValueError),
        (AmbiguousModelError, LookupError),
        (MissingRateError, LookupError),
        (RecordFormatError, ValueError),
        (MissingRecordError, FileNotFoundError),
        (RecordingError, Exception),
        (ResumeError, Exception),
        (UnitConversionError, ValueError),
        (UnknownVariantError, ValueError),
        (UnknownExportFormatError, ValueError),
        (InstrumentationError, RuntimeError),
        (PluginLoadError, RuntimeError),
        (TaskResolutionError, Exception),
        (ScorerResolutionError, Exception),
        (ValuePathError, LookupError),
    ],
    ids=lambda item: item.__name__,
)
def test_every_public_error_is_an_autobench_error_and_keeps_its_builtin_base(
    error: type[Exception], builtin: type[Exception]
) -> None:
    assert issubclass(error, AutobenchError) and issubclass(error, builtin)


def test_a_bad_pricing_file_and_a_malformed_record_are_located_panels(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("def run(ctx, case):\n    return {}\n")
    (tmp_path / "pricing.yaml").write_text(
        "pricing:\n  provider: x\n  models:\n    m: {input: {unit: mtok, price: [1}\n"
    )
    (tmp_path / "autobench.yaml").write_text(
        textwrap.dedent(
            """\
            benchmark:
              b:
                cases: [{id: c1}]
                run: {python: "t:run"}
                variants: {v1: {}}
                derive:
                  - kind: token_cost
                    pricing: file://pricing.yaml
            """
        )
    )
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(cli, ["validate", str(tmp_path / "autobench.yaml")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "pricing.yaml:4:38" in result.output

    (tmp_path / "pricing.yaml").write_text("pricing:\n  provider: x\n  models: {}\n")
    record = tmp_path / "rec"
    ran = runner.invoke(
        cli, ["run", str(tmp_path / "autobench.yaml"), "--record", str(record), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    run_file = next(record.rglob("run.yaml"))
    kept = run_file.read_bytes()
    run_file.write_text(run_file.read_text().replace("run:", "run: [unclosed", 1))
    reported = runner.invoke(cli, ["report", str(record)])
    assert reported.exit_code == 1 and "Traceback" not in reported.output
    assert f"{run_file.name}:" in reported.output  # the file, with line:column
    assert (record / "experiment.yaml").is_file()  # nothing recorded is lost
    run_file.write_bytes(kept)
    assert runner.invoke(cli, ["report", str(record)]).exit_code == 0


def _recorded(tmp_path: Path) -> tuple[Path, Path]:
    """A spec and the record directory of one real run of it."""
    (tmp_path / "t.py").write_text("def run(ctx, case):\n    return {'ok': True}\n")
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  b:\n    cases: [{id: c1}]\n    run: {python: 't:run'}\n"
        "    variants: {v1: {}}\n    score:\n      ok: {pass: output.ok}\n"
    )
    record = tmp_path / "rec"
    ran = CliRunner().invoke(cli, ["run", str(spec), "--record", str(record), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    return spec, record


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def test_a_plugin_that_fails_to_load_is_a_located_panel(tmp_path: Path) -> None:
    """A really installed (and broken) ``autobench`` entry point: its distribution on the
    path, its module failing on import at line 3, then not parsing at line 3."""
    spec, record = _recorded(tmp_path)
    site = tmp_path / "site"
    info = site / "broken_metric_pack-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: broken-metric-pack\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text("[autobench]\nbroken = broken_metric_pack\n")
    (site / "broken_metric_pack.py").write_text(
        '"""A metric pack whose dependency is missing."""\n\nimport a_package_that_is_not_installed\n'
    )
    before = _snapshot(record)
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "200", "NO_COLOR": "1"}
    again = tmp_path / "again"
    for command in (["validate", str(spec)], ["run", str(spec), "--record", str(again)]):
        done = subprocess.run(
            [sys.executable, "-m", "autobench.cli", *command],
            capture_output=True,
            text=True,
            env=env,
        )
        shown = done.stdout + done.stderr
        assert done.returncode == 1, shown
        assert "Traceback" not in shown
        assert f"{site / 'broken_metric_pack.py'}:3" in shown.replace("\n", "")
        assert "a_package_that_is_not_installed" in shown
        named = " ".join(shown.replace("│", " ").split())
        assert "'broken = broken_metric_pack' (from distribution broken-metric-pack 0.1)" in named
    assert _snapshot(record) == before  # nothing recorded is touched
    assert not again.exists() or not list(again.rglob("run.yaml"))  # no run started
    (site / "broken_metric_pack.py").write_text(
        '"""A metric pack that does not parse."""\n\ndef broken(:\n    pass\n'
    )
    for command in (
        ["validate", str(spec)],
        ["run", str(spec), "--record", str(again)],
        ["export", "--help"],  # the help lists plugin formats: it loads the plugins
        ["export", str(record), "--format", "csv", "--path", str(tmp_path / "x.csv")],
        ["instrumentation", "doctor"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "autobench.cli", *command],
            capture_output=True,
            text=True,
            env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        shown = " ".join((done.stdout + done.stderr).replace("│", " ").split())
        assert done.returncode == 1, shown
        assert "Traceback" not in shown and "importlib" not in shown
        assert f"{site / 'broken_metric_pack.py'}:3:12" in shown.replace(" ", "")  # line:column
        assert "'broken = broken_metric_pack'" in shown  # the entry point
        assert "broken-metric-pack 0.1" in shown  # the distribution that declared it
        assert "SyntaxError" in shown
    assert _snapshot(record) == before
    assert not again.exists() or not list(again.rglob("run.yaml"))
    del env["PYTHONPATH"]
    reported = subprocess.run(
        [sys.executable, "-m", "autobench.cli", "report", str(record)], capture_output=True, env=env
    )
    assert reported.returncode == 0


def test_a_policy_unit_that_does_not_convert_is_a_located_panel(tmp_path: Path) -> None:
    spec, record = _recorded(tmp_path)
    before = _snapshot(record)
    spec.write_text(
        spec.read_text()
        + "    policies:\n"
        + "      - name: fast\n"
        + "        metric: time.latency\n"
        + "        unit: tokens\n"
        + "        must_less: 2\n"
    )
    runner = CliRunner(env={"COLUMNS": "200"})
    for command in (["validate", str(spec)], ["run", str(spec), "--no-progress"]):
        result = runner.invoke(cli, command)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        assert "autobench.yaml:11:15" in result.output
        assert "'tokens'" in result.output
    assert _snapshot(record) == before
    spec.write_text(spec.read_text().replace("unit: tokens", "unit: ms"))
    assert runner.invoke(cli, ["validate", str(spec)]).exit_code == 0
