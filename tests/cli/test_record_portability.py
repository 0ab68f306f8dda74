"""A record directory names nothing of the machine that wrote it: copied elsewhere, no file
mentions the writer's home, working, temporary or install directories (not even in the
tracebacks of errored runs), and it still replays."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import autobench
from autobench.abp import Trace
from autobench.cli import cli
from autobench.records import replay_experiment

CHECKOUT = Path(__file__).resolve().parents[2]

TASK = """\
import json
from pathlib import Path

import helpers


def run(ctx, case):
    if case.id == "broken":
        return helpers.decode("{")
    if case.id == "missing":
        return {"text": (Path(__file__).parent / "missing.txt").read_text()}
    return {"ok": True}
"""

SPEC = """\
benchmark:
  portable:
    cases: [{id: fine}, {id: broken}, {id: missing}]
    run: {python: "task:run"}
    variants: {only: {}}
    score:
      ok: {pass: output.ok}
"""


def _project(home: Path) -> Path:
    project = home / "project"
    project.mkdir(parents=True)
    (project / "task.py").write_text(TASK)
    (project / "helpers.py").write_text(
        "import json\n\n\ndef decode(text):\n    return json.loads(text)\n"
    )
    (project / "autobench.yaml").write_text(SPEC)
    return project


def _writer_paths(*directories: Path) -> set[str]:
    """Absolute directories of this machine that no record may name."""
    names = {tempfile.gettempdir(), sys.prefix, sys.base_prefix, str(CHECKOUT)}
    names |= {str(path) for path in directories} | {str(path.resolve()) for path in directories}
    names |= {str(Path(path).resolve()) for path in autobench.__path__}
    return {name.rstrip(os.sep) for name in names if len(name.rstrip(os.sep)) > 1}


def test_a_copied_record_directory_names_no_path_of_the_writer(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_home = Path.home()
    home = tmp_path / "home"
    project = _project(home)
    work = home / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    monkeypatch.syspath_prepend(str(project))  # helpers.py imports as the task runs
    record = work / "records"
    args = ["run", str(project / "autobench.yaml"), "--record", str(record), "--no-progress"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    elsewhere = Path(tempfile.mkdtemp(prefix="copied-")) / "experiment"
    try:
        shutil.copytree(record, elsewhere)
        files = [path for path in elsewhere.rglob("*") if path.is_file()]
        assert {"experiment.yaml", "summary.yaml", "run.yaml"} <= {path.name for path in files}
        writer_paths = _writer_paths(home, project, work, real_home)
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".yaml":  # the schema is the copy's own, by a relative path
                header = text.split("\n", 1)[0].removeprefix("# yaml-language-server: $schema=")
                assert not header.startswith(("/", "urn:")), path
                assert (path.parent / header).resolve().is_relative_to(elsewhere), path
                assert (path.parent / header).is_file(), path
            found = sorted(name for name in writer_paths if name in text)
            assert found == [], f"{path.relative_to(elsewhere)} names {found}"
            assert "file://" not in text, path
            assert re.search(r'File "[/\\]|File "[A-Za-z]:', text) is None, path

        replayed = {run.case_id: run for run in replay_experiment(elsewhere).runs}
        assert [replayed[case].status.value for case in ("fine", "broken", "missing")] == [
            "passed",
            "errored",
            "errored",
        ]
        broken = replayed["broken"].errors[0].traceback or ""
        assert 'File "task.py", line 9, in run' in broken
        assert 'File "helpers.py", line 5, in decode' in broken
        assert 'File "<stdlib>/json/__init__.py"' in broken
        assert 'File "<autobench>/core/runtime/_run.py"' in broken
        missing = replayed["missing"].errors[0]
        assert missing.type == "FileNotFoundError"
        assert "'missing.txt'" in missing.message and "'missing.txt'" in (missing.traceback or "")
        trace = replayed["missing"].trace
        assert isinstance(trace, Trace)
        span_errors = [span.error for span in trace.spans if span.error]
        assert span_errors and "'missing.txt'" in span_errors[0].message
        experiment = (elsewhere / "experiment.yaml").read_text()
        assert "cwd:" not in experiment  # the working directory lay outside the spec's
        assert "task.py:" in experiment and "helpers.py" not in experiment
    finally:
        shutil.rmtree(elsewhere.parent)


def test_a_working_directory_inside_the_spec_directory_is_recorded_relative(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    monkeypatch.syspath_prepend(str(project))
    record = tmp_path / "records"
    args = ["run", "../autobench.yaml", "--record", str(record), "--no-progress"]
    assert runner.invoke(cli, args).exit_code == 0
    replayed = replay_experiment(record)
    assert replayed.experiment.environment["cwd"] == "sub"


def test_a_record_written_with_an_absolute_working_directory_still_replays(
    runner: CliRunner, spec_dir: Path
) -> None:
    """Records written before the rule hold ``cwd: /...``: they read as before."""
    record = spec_dir / "records"
    args = ["run", str(spec_dir / "autobench.yaml"), "--record", str(record), "--no-progress"]
    assert runner.invoke(cli, args).exit_code == 0
    experiment = record / "experiment.yaml"
    text = experiment.read_text()
    assert "cwd:" not in text
    experiment.write_text(
        text.replace("environment:\n", "environment:\n  cwd: /home/someone/bench\n", 1)
    )
    replayed = replay_experiment(record)
    assert replayed.experiment.environment["cwd"] == "/home/someone/bench"
    assert len(replayed.runs) == 4
    reported = runner.invoke(cli, ["report", str(record)])
    assert reported.exit_code == 0, reported.output
