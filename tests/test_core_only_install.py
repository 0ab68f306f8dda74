"""``pip install autobench-core`` alone, from wheels built from this checkout into a fresh
virtual environment as docs/getting-started.md documents it, replays a record directory without
importing any provider SDK, rich or click; an instrumentation extra installs its instrumentor."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import docs_shell
import pytest

from autobench import BenchmarkSpec, Case, Variant, run_benchmark_spec
from autobench.records import RecordDirectoryWriter

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("openai", "httpx", "pydantic_ai", "agents", "rich", "click")


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        pytest.fail("this test needs uv (run the suite through `uv run pytest`)")
    return found


def _built(tmp_path: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Wheels of our ``packages`` by distribution name, built from this tree."""
    uv = _uv()
    wheels = tmp_path / "wheels"
    for package in packages:
        subprocess.run(
            [uv, "build", "--quiet", "--wheel", "--package", package, "--out-dir", str(wheels)],
            cwd=ROOT,
            check=True,
        )
    found = {path.name.split("-")[0].replace("_", "-"): path for path in wheels.glob("*.whl")}
    assert set(found) == set(packages), found
    return found


def _install(python: Path, wheels: dict[str, Path], extras: dict[str, str] | None = None) -> None:
    """Install our wheels by direct file reference: a distribution of ours is never resolved
    from a package index (a foreign ``autobench`` project publishes there)."""
    extras = extras or {}
    requirements = [
        f"{name}{extras.get(name, '')} @ {path.resolve().as_uri()}" for name, path in wheels.items()
    ]
    subprocess.run(
        [_uv(), "pip", "install", "--quiet", "--python", str(python), *requirements], check=True
    )


def _record_directory(tmp_path: Path) -> Path:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "replay_task.py").write_text(
        "def run(ctx, case):\n"
        "    with ctx.span('work', kind='tool'):\n"
        "        ctx.metric('n', case.input['n'], semantic_type='workload.size')\n"
        "    ctx.artifact('note', {'n': case.input['n']})\n"
        "    return {'double': case.input['n'] * 2}\n"
    )
    spec = BenchmarkSpec(
        benchmark={"id": "core-only"},
        dataset={
            "cases": [
                Case(id=f"c{i}", input={"n": i}, expected={"double": 2 * i}) for i in range(3)
            ]
        },
        task={"target": "replay_task:run"},
        variants=[Variant(id="only")],
        scoring=[
            {
                "kind": "exact",
                "name": "ok",
                "actual": "output.double",
                "expected": "case.expected.double",
            }
        ],
        base_dir=tmp_path / "tasks",
    )
    record = tmp_path / "record"
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(record)))
    # The task module is gone before replay: replay must not need it.
    shutil.rmtree(tmp_path / "tasks")
    return record


def _checkout_copy(tmp_path: Path) -> Path:
    """What ``uv build`` and ``uv export`` read from the checkout, copied: the documented
    commands write ``dist/`` and the worker beside it, never into the shared tree."""
    checkout = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "packages", checkout / "packages", ignore=ignore)
    shutil.copytree(ROOT / "tests" / "plugins", checkout / "tests" / "plugins", ignore=ignore)
    for name in ("pyproject.toml", "uv.lock", "README.md"):
        shutil.copy2(ROOT / name, checkout / name)
    return checkout


def test_the_documented_core_only_install_replays_without_sdks_rich_or_click(
    tmp_path: Path,
) -> None:
    """docs/getting-started.md's commands, run as written: wheels built from this checkout,
    third-party requirements from the lock file, pip into a new virtual environment with our
    distributions from ``dist/`` alone (``--no-index``: never a package index's ``autobench``)."""
    (block,) = [
        block
        for block in docs_shell.shell_blocks(ROOT / "docs" / "getting-started.md")
        if "--no-index --find-links dist autobench-core" in block.text
    ]
    assert block.heading == "The core alone"
    checkout = _checkout_copy(tmp_path)
    done = docs_shell.run(docs_shell.without_set_up(block), checkout, docs_shell.environment())
    assert done.stdout.strip() == "0.1.0"
    python = tmp_path / "autobench-worker" / "bin" / "python"
    assert python.is_file()

    freeze = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True
    )
    ours = sorted(line for line in freeze.stdout.splitlines() if line.startswith("autobench"))
    assert ours == ["autobench-abp==0.1.0", "autobench-core==0.1.0", "autobench-records==0.1.0"]

    record = _record_directory(tmp_path)
    script = textwrap.dedent(
        f"""
        import importlib.util, json, sys
        from pathlib import Path
        import autobench
        from autobench import replay_experiment
        result = replay_experiment(Path({str(record)!r}))
        print(json.dumps({{
            "from": str(Path(autobench.__file__).parents[1]).startswith(sys.prefix),
            "runs": len(result.runs),
            "statuses": sorted({{run.status.value for run in result.runs}}),
            "spans": sum(len(run.spans) for run in result.runs),
            "loaded": [name for name in {FORBIDDEN!r} if name in sys.modules],
            "installed": [name for name in ("rich", "click") if importlib.util.find_spec(name)],
        }}))
        """
    )
    completed = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == (
        '{"from": true, "runs": 3, "statuses": ["passed"], "spans": 6, "loaded": [], '
        '"installed": []}'
    )

    # What the report layer needs is missing here; the hint names its wheel, never an index.
    missing = subprocess.run(
        [str(python), "-c", "from autobench import build_report"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 1 and "ImportError" in missing.stderr
    assert "the 'autobench-report' distribution, which is not installed" in missing.stderr
    assert "pip install <wheel directory>/autobench_report-0.1.0-*.whl" in missing.stderr
    assert "pip install autobench-report" not in missing.stderr
    assert list((tmp_path / "checkout" / "dist").glob("autobench_report-0.1.0-*.whl"))


def test_an_instrumentation_extra_installs_its_instrumentor_from_wheels(tmp_path: Path) -> None:
    uv = _uv()
    wheels = _built(
        tmp_path,
        (
            "autobench-abp",
            "autobench-records",
            "autobench-core",
            "autobench-report",
            "autobench-cli",
            "autobench-instrument-openai",
            "autobench",
        ),
    )
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    _install(python, wheels, {"autobench": "[openai]"})
    probe = textwrap.dedent(
        """
        from importlib import metadata
        from autobench import instrumentor_statuses
        statuses = {s.name: s for s in instrumentor_statuses()}
        print(statuses["openai"].installed, statuses["openai"].compatibility.status.value)
        print(statuses["httpx"].installed)
        """
    )
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0.1.0", "compatible", "None"]
    doctor = subprocess.run(
        [str(venv / "bin" / "autobench"), "instrumentation", "doctor"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "autobench-instrument-openai 0.1.0" in doctor.stdout
