"""One exception root: every error Autobench raises on purpose is an ``AutobenchError`` (its
builtin base kept), and the CLI shows any of them as a located panel with exit 1."""

from __future__ import annotations

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
