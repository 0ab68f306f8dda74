"""The autobench-view wheel carries its page templates and assets: nothing is built or
fetched when it is installed or run."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "packages" / "autobench-view" / "src"


def test_the_wheel_holds_every_template_and_asset(tmp_path: Path) -> None:
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:
        pytest.fail("this test needs uv (run the suite through `uv run pytest`)")
    subprocess.run(
        [
            uv,
            "build",
            "--quiet",
            "--wheel",
            "--package",
            "autobench-view",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        check=True,
    )
    (wheel,) = tmp_path.glob("autobench_view-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assets = {
        path.relative_to(SOURCE).as_posix()
        for folder in ("templates", "static")
        for path in (SOURCE / "autobench" / "view" / folder).iterdir()
    }
    assert {"autobench/view/static/view.js", "autobench/view/templates/run.html"} <= assets
    assert assets <= names
    assert not any(name == "autobench/__init__.py" for name in names)
