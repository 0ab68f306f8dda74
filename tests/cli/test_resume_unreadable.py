"""`autobench run SPEC --resume DIR` on a record whose runs are all on disk: it names the real
directory to report, and a run.yaml it cannot read is a located error, never "nothing to
resume" and never a file written over: the record stays byte for byte as it was."""

from __future__ import annotations

import shlex
from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import load_experiment_summary


def _recorded(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "t.py").write_text("def run(ctx, case):\n    return {'ok': True}\n")
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  b:\n    cases: [{id: c1}, {id: c2}]\n    run: {python: 't:run'}\n"
        "    variants: {v1: {}}\n    score:\n      ok: {pass: output.ok}\n"
    )
    record = tmp_path / "my record"
    ran = CliRunner().invoke(cli, ["run", str(spec), "--record", str(record), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    return spec, record


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def _resume(spec: Path, record: Path) -> tuple[int, str]:
    result = CliRunner(env={"COLUMNS": "400"}).invoke(
        cli, ["run", str(spec), "--resume", str(record), "--no-progress"]
    )
    return result.exit_code, result.output


def test_a_complete_record_names_the_directory_to_report(tmp_path: Path) -> None:
    spec, record = _recorded(tmp_path)
    before = _snapshot(record)
    code, output = _resume(spec, record)
    assert code == 0, output
    assert "Nothing to resume: all 2 planned runs" in output
    assert f"`autobench report {shlex.quote(str(record))}`" in output
    assert "DIR" not in output
    assert _snapshot(record) == before


def test_an_unreadable_run_file_in_a_complete_record_is_a_located_error(tmp_path: Path) -> None:
    spec, record = _recorded(tmp_path)
    run_file = record / "cases" / "c2" / "v1" / "run.yaml"
    kept = run_file.read_text()
    run_file.write_text(kept.replace("status: passed", "status: exploded", 1))
    line = run_file.read_text().splitlines().index("  status: exploded") + 1
    before = _snapshot(record)
    code, output = _resume(spec, record)
    assert code == 1 and "Traceback" not in output, output
    assert "Nothing to resume" not in output
    assert f"run.yaml:{line}:11:" in output
    assert _snapshot(record) == before  # nothing written, nothing overwritten
    run_file.write_text(kept)
    code, output = _resume(spec, record)
    assert code == 0 and "Nothing to resume" in output, output


def test_an_unreadable_run_file_stops_a_resume_before_anything_is_written(tmp_path: Path) -> None:
    spec, record = _recorded(tmp_path)
    (record / "cases" / "c1" / "v1" / "run.yaml").unlink()  # one run left to resume
    broken = record / "cases" / "c2" / "v1" / "run.yaml"
    kept = broken.read_bytes()
    broken.write_bytes(kept.replace(b"run:", b"run: [unclosed", 1))
    before = _snapshot(record)
    code, output = _resume(spec, record)
    assert code == 1 and "Traceback" not in output, output
    assert "run.yaml:" in output and "malformed YAML" in output
    assert _snapshot(record) == before
    broken.write_bytes(kept)
    code, output = _resume(spec, record)
    assert code == 0, output
    assert (record / "cases" / "c1" / "v1" / "run.yaml").is_file()
    assert broken.read_bytes() == kept


def test_every_run_recorded_but_no_summary_is_completed_by_resume(tmp_path: Path) -> None:
    """A session killed after its last run was stored but before its summary was written:
    ``--resume`` runs nothing and writes the summary of the whole experiment."""
    spec, record = _recorded(tmp_path)
    runs = {path: path.read_bytes() for path in record.glob("cases/*/*/run.yaml")}
    (record / "summary.yaml").unlink()
    code, output = _resume(spec, record)
    assert code == 0, output
    assert "Nothing to resume" not in output
    summary = load_experiment_summary(record)
    assert summary is not None and summary.complete and summary.runs == 2
    assert {path: path.read_bytes() for path in record.glob("cases/*/*/run.yaml")} == runs
