"""A record holds only its own runs, and every path it names stays inside it.

A run file copied from another experiment, or whose variant factors or case input were
edited, is refused with its file, line:column and the field that disagrees by replay,
report, compare, export and ``run --resume`` (which neither counts it as finished nor
writes anything); moved out of the record, the run is resumed. An artifact, trace or
cassette path that climbs out of the record, is absolute or leads out through a symlink
is refused, located, before anything is opened."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassette_support import copy_example, forget, run_cli
from record_tamper import invoke, line_of, readers, record, run_file

from autobench.records import RecordFormatError, record_file, replay_experiment


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two experiments of the same benchmark: ``rec`` and ``other``."""
    base = tmp_path_factory.mktemp("own")
    return record(base, "rec"), record(base, "other")


@pytest.fixture
def rec(made: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of ``rec`` beside a copy of its spec, for one test to tamper with."""
    for name in ("autobench.yaml", "tamper_task.py"):
        shutil.copyfile(made[0].parent / name, tmp_path / name)
    target = tmp_path / "rec"
    shutil.copytree(made[0], target, symlinks=True)
    return target


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def _flat(output: str) -> str:
    return " ".join(output.replace("│", " ").split())


def _refused_everywhere(rec: Path, tmp_path: Path, where: str, what: str) -> None:
    """Every reader and ``run --resume`` exit 1 naming ``where`` and ``what``; the resume
    writes nothing."""
    for name, args in readers(rec, tmp_path).items():
        result = invoke(*args)
        assert result.exit_code == 1 and "Traceback" not in result.output, (name, result.output)
        assert where in _flat(result.output) and what in _flat(result.output), (name, result.output)
    before = _snapshot(rec)
    resumed = invoke("run", str(rec.parent / "autobench.yaml"), "--resume", str(rec))
    assert resumed.exit_code == 1, resumed.output
    assert where in _flat(resumed.output) and what in _flat(resumed.output), resumed.output
    assert "Nothing to resume" not in resumed.output
    assert _snapshot(rec) == before


def test_a_run_copied_from_another_experiment_is_refused_then_resumed_once_moved_out(
    made: tuple[Path, Path], rec: Path, tmp_path: Path
) -> None:
    foreign = run_file(rec, "small", "v2")
    shutil.copyfile(run_file(made[1], "small", "v2"), foreign)
    line = line_of(foreign, "  experiment: ")
    _refused_everywhere(rec, tmp_path, f"run.yaml:{line}:15", "experiment id 'exp_tamper_")
    # Moved aside by its owner, the run is missing, and --resume runs it again.
    foreign.rename(tmp_path / "foreign-run.yaml")
    resumed = invoke("run", str(rec.parent / "autobench.yaml"), "--resume", str(rec))
    assert resumed.exit_code == 0, resumed.output
    result = replay_experiment(rec)
    assert len(result.runs) == 4 and not result.missing_runs
    (again,) = [run for run in result.runs if run.case_id == "small" and run.variant_id == "v2"]
    assert again.run.experiment == result.experiment_id


def test_edited_variant_factors_are_refused(rec: Path, tmp_path: Path) -> None:
    path = run_file(rec, "big", "v1")
    text = path.read_text()
    assert "\nvariant:\n  id: v1\n  factors:\n    f: 1\n" in text
    path.write_text(text.replace("  factors:\n    f: 1\n", "  factors:\n    f: 7\n"))
    line = line_of(path, "  factors:") + 1
    _refused_everywhere(
        rec, tmp_path, f"run.yaml:{line}:5", "variant 'v1' factors {f=7} here, {f=1}"
    )


def test_an_edited_case_input_is_refused_wherever_the_input_is_read(
    rec: Path, tmp_path: Path
) -> None:
    path = run_file(rec, "small", "v1")
    text = path.read_text()
    assert "\ncase:\n  id: small\n  input:\n    x: 1\n" in text
    path.write_text(text.replace("  input:\n    x: 1\n", "  input:\n    x: 9\n"))
    line = line_of(path, "  input:") + 1
    what = "case 'small' input (sha256)"
    result = invoke("replay", str(rec))
    assert result.exit_code == 1 and f"run.yaml:{line}:5" in _flat(result.output), result.output
    assert what in _flat(result.output)
    before = _snapshot(rec)
    resumed = invoke("run", str(rec.parent / "autobench.yaml"), "--resume", str(rec))
    assert resumed.exit_code == 1 and what in _flat(resumed.output), resumed.output
    assert _snapshot(rec) == before
    # A report reads no case payload: what it shows is the record's own evidence.
    assert invoke("report", str(rec)).exit_code == 0


@pytest.mark.parametrize("hostile", ["../../../../../../etc/passwd", "/etc/passwd", "link"])
def test_an_artifact_path_leaving_the_record_is_refused_unopened(
    rec: Path, tmp_path: Path, hostile: str
) -> None:
    path = run_file(rec, "small", "v1")
    text = path.read_text()
    (artifact_dir,) = {p.parent for p in rec.glob("artifacts/*small*v1*/notes.yaml")}
    relative = artifact_dir.relative_to(rec).as_posix()
    if hostile == "link":  # inside by name, outside through a symlink
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "notes.yaml").write_text("secret: 1\n")
        (rec / "artifacts" / "escape").symlink_to(outside)
        hostile = "artifacts/escape/notes.yaml"
        why = "resolves outside it (through a symlink)"
    else:
        why = "is absolute" if hostile.startswith("/") else "climbs out with '..'"
    assert f"path: {relative}/notes.yaml" in text
    path.write_text(text.replace(f"path: {relative}/notes.yaml", f"path: {hostile}"))
    line = line_of(path, f"  path: {hostile}")
    where = f"run.yaml:{line}:9"
    for name, args in readers(rec, tmp_path).items():
        result = invoke(*args)
        assert result.exit_code == 1 and "Traceback" not in result.output, (name, result.output)
        flat = _flat(result.output)
        assert where in flat and why in flat and "artifact path" in flat, (name, flat)


def test_a_trace_path_leaving_the_record_is_refused_before_it_is_read(rec: Path) -> None:
    path = run_file(rec, "big", "v2")
    text = path.read_text()
    (relative,) = [line.split("path: ", 1)[1] for line in text.splitlines() if "trace.yaml" in line]
    path.write_text(text.replace(f"path: {relative}", "path: ../../../../../../etc/passwd"))
    result = invoke("replay", str(rec))
    assert result.exit_code == 1, result.output
    flat = _flat(result.output)
    assert "trace artifact path '../../../../../../etc/passwd' leaves the record" in flat, flat
    assert f"run.yaml:{line_of(path, '    path: ../')}:" in flat


def test_record_file_refuses_each_way_out(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "up").symlink_to(tmp_path)
    source = tmp_path / "inside" / "run.yaml"
    source.write_text("artifacts:\n- path: x\n")
    assert record_file(tmp_path / "inside", "a/b.yaml", what="x", source=source) == (
        tmp_path / "inside" / "a" / "b.yaml"
    )
    for hostile, why in [
        ("../x", "climbs out"),
        ("/etc/passwd", "is absolute"),
        ("C:/Windows/win.ini", "is absolute"),
        ("a\\..\\..\\x", "holds a backslash"),
        ("up/inside/../../etc", "climbs out"),
        ("up/etc", "resolves outside it"),
        ("", "is empty"),
    ]:
        with pytest.raises(RecordFormatError, match=why) as caught:
            record_file(
                tmp_path / "inside", hostile, what="x", source=source, at=("artifacts", 0, "path")
            )
        assert (caught.value.line, caught.value.column) == (2, 9)


MODULES = ("assistant_benchmark", "assistant_app")


@pytest.fixture
def assistant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``examples/llm_native`` recorded once with ``--cassette record`` into ``rec``."""
    target = copy_example("llm_native", tmp_path, monkeypatch, MODULES)
    run_cli("--record", "rec", "--cassette", "record")
    yield target
    forget(*MODULES)


@pytest.mark.parametrize("hostile", ["../../../../etc/passwd", "/etc/passwd"])
def test_a_cassette_path_leaving_the_record_is_refused_by_cassette_replay(
    assistant: Path, hostile: str
) -> None:
    (path, *_) = sorted((assistant / "rec" / "cases").rglob("run.yaml"))
    text = path.read_text()
    cassette = next(line for line in text.splitlines() if "cassette" in line and "path:" in line)
    path.write_text(text.replace(cassette, cassette.split("path:")[0] + f"path: {hostile}"))
    result = invoke("run", "autobench.yaml", "--record", "rep", "--cassette", "replay", "rec")
    assert result.exit_code == 1, result.output
    flat = _flat(result.output)
    assert f"artifact path '{hostile}' leaves the record directory" in flat, flat
    assert f"run.yaml:{line_of(path, cassette.split('path:')[0] + 'path: ')}:" in flat
    assert "Traceback" not in result.output
    assert not (assistant / "rep" / "cases").exists()
