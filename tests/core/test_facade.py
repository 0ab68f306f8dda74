from __future__ import annotations

import subprocess
import sys

import pytest

import autobench


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


def test_import_is_lazy() -> None:
    result = _python(
        "import sys, autobench; "
        "heavy = [m for m in ('pydantic', 'autobench.core.runtime', 'autobench.records', 'rich', 'click') if m in sys.modules]; "
        "print(heavy)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_exports_resolve_and_unknown_names_fail() -> None:
    for name in autobench.__all__:
        assert getattr(autobench, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        autobench.nope  # noqa: B018


def test_missing_distribution_is_named_in_the_import_error() -> None:
    result = _python(
        "import sys; sys.modules['autobench.records'] = None; from autobench import Case"
    )
    assert result.returncode != 0
    assert "provided by the 'autobench-records' distribution" in result.stderr
    assert "pip install <wheel directory>/autobench_records-0.1.0-*.whl" in result.stderr
    assert "not by name from a package index" in result.stderr
    assert "pip install autobench-records" not in result.stderr


def test_a_missing_report_layer_is_named_with_its_wheel_not_an_index_install() -> None:
    result = _python(
        "import sys; sys.modules['autobench.report'] = None; from autobench import build_report"
    )
    assert result.returncode != 0
    assert "provided by the 'autobench-report' distribution" in result.stderr
    assert "the autobench-report wheel built from the same Autobench source" in result.stderr
    assert "pip install <wheel directory>/autobench_report-0.1.0-*.whl" in result.stderr
    assert "pip install autobench-report" not in result.stderr
