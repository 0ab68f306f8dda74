"""Version stamps: every record says its format version; newer versions are refused before
their body is parsed, and the frozen version-1 records keep replaying unchanged."""

from __future__ import annotations

import hashlib
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _factories import trivial_run

from autobench.records import (
    RecordFormatError,
    load_experiment_record,
    load_run_record,
    replay_experiment,
    run_record_from_yaml,
    run_record_to_yaml,
)
from autobench.records._schemas import RECORD_VERSIONS

FROZEN_V1 = Path(__file__).parents[1] / "fixtures" / "records-v1" / "experiment"
AUTOBENCH = str(Path(sys.executable).parent / "autobench")
GARBAGE = "run: {id: [unclosed\n  - !!python/object/apply:os.system ['false']\n\t\x00: :\n"


@pytest.fixture
def v1_copy(tmp_path: Path) -> Path:
    target = tmp_path / "records"
    shutil.copytree(FROZEN_V1, target)
    return target


def with_header(path: Path, record_type: str, version: int) -> None:
    """Rewrite ``path`` as a record of ``version`` whose body this Autobench cannot parse."""
    path.write_text(
        f"# yaml-language-server: $schema=file:///x.json\n"
        f"record:\n  type: {record_type}\n  version: {version}\n\n{GARBAGE}",
        encoding="utf-8",
    )


def test_every_record_file_carries_its_type_and_version() -> None:
    for path in FROZEN_V1.rglob("*.yaml"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# yaml-language-server: $schema=")
        assert lines[1] == "record:"
        record_type = lines[2].removeprefix("  type: ")
        assert lines[3] == "  version: 1" and record_type in RECORD_VERSIONS


def test_the_frozen_version_1_records_replay_unchanged(v1_copy: Path) -> None:
    before = {path: path.read_bytes() for path in v1_copy.rglob("*") if path.is_file()}
    result = replay_experiment(v1_copy)
    assert {path: path.read_bytes() for path in v1_copy.rglob("*") if path.is_file()} == before
    assert result.experiment_id == "exp_records_v1"
    assert result.experiment.benchmark.id == "records-v1"
    assert [planned.path for planned in result.experiment.plan] == [
        "cases/one/double/run.yaml",
        "cases/one/triple/run.yaml",
        "cases/two_.._x-177a7b0cb6/double/run.yaml",
        "cases/two_.._x-177a7b0cb6/triple/run.yaml",
    ]
    assert result.missing_runs == ()
    assert result.summary is not None and result.summary.complete and result.summary.runs == 4
    assert [(run.case_id, run.variant_id, run.status.value) for run in result.runs] == [
        ("one", "double", "passed"),
        ("one", "triple", "failed"),
        ("Two/../x", "double", "passed"),
        ("Two/../x", "triple", "failed"),
    ]
    first = result.runs[0]
    assert first.case.input == {"x": 1, "text": "yes"}
    assert [(factor.name, factor.value) for factor in first.variant.factors] == [("factor", 2)]
    assert isinstance(first.output, dict)
    assert first.output["value"] == 2 and first.output["echo"] == "yes"
    assert first.output["big"] == 2**70 and math.isnan(first.output["nan"])
    assert result.runs[2].output["echo"] == "007"
    assert [(score.name, score.value) for score in first.scores] == [("correct", 1.0)]
    assert [(obs.name, obs.value, obs.case_id) for obs in first.observations] == [("x", 1, "one")]
    assert first.trace is not None and [span.operation for span in first.trace.spans] == [
        "benchmark.run",
        "compute",
    ]
    for run in result.runs:
        assert [ref.name for ref in run.artifacts] == ["notes", "raw"]
        for ref in run.artifacts:
            assert ref.path is not None
            data = (v1_copy / ref.path).read_bytes()
            assert (len(data), hashlib.sha256(data).hexdigest()) == (ref.size, ref.sha256)
    raw = next(ref for ref in first.artifacts if ref.name == "raw")
    assert raw.path is not None and (v1_copy / raw.path).read_bytes() == b"\x00\x01\xff"


def test_the_reader_accepts_every_version_up_to_the_supported_one() -> None:
    text = run_record_to_yaml(trivial_run())
    supported = RECORD_VERSIONS["run"]
    written = f"  version: {supported}\n"
    for version in range(1, supported + 1):
        stamped = text.replace(written, f"  version: {version}\n", 1)
        assert run_record_from_yaml(stamped, source="r.yaml") == trivial_run()
    for version, problem in ((0, "invalid run record version 0"), (supported + 1, "newer")):
        stamped = text.replace(written, f"  version: {version}\n", 1)
        with pytest.raises(RecordFormatError, match=problem):
            run_record_from_yaml(stamped, source="r.yaml")


@pytest.mark.parametrize(
    ("relative", "record_type"),
    [
        ("cases/one/triple/run.yaml", "run"),
        ("experiment.yaml", "experiment"),
        ("summary.yaml", "summary"),
    ],
)
def test_a_newer_record_in_a_directory_is_refused_before_its_body_is_parsed(
    v1_copy: Path, relative: str, record_type: str
) -> None:
    target = v1_copy / relative
    with_header(target, record_type, 99)
    with pytest.raises(RecordFormatError) as caught:
        replay_experiment(v1_copy)
    message = str(caught.value)
    assert message == (
        f"{target}: {record_type} record version 99 is newer than this Autobench supports "
        f"(up to {RECORD_VERSIONS[record_type]}); upgrade Autobench to read it"
    )
    assert caught.value.path == target and caught.value.line is None


def test_a_newer_run_file_is_refused_by_the_single_file_loaders(v1_copy: Path) -> None:
    target = v1_copy / "cases/one/double/run.yaml"
    with_header(target, "run", 99)
    with pytest.raises(RecordFormatError, match="run record version 99 is newer"):
        load_run_record(target)
    with_header(v1_copy / "experiment.yaml", "experiment", 2**80)
    with pytest.raises(RecordFormatError, match=f"version {2**80} is newer"):
        load_experiment_record(v1_copy)


def test_the_cli_names_the_file_and_the_version(v1_copy: Path) -> None:
    with_header(v1_copy / "cases/one/triple/run.yaml", "run", 99)
    done = subprocess.run(
        [AUTOBENCH, "replay", str(v1_copy)],
        capture_output=True,
        text=True,
        env={"COLUMNS": "400", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 1
    message = " ".join(done.stderr.replace("│", " ").split())
    assert "Cannot read records" in message and "Traceback" not in done.stderr
    assert "run.yaml: run record version 99 is newer than this Autobench supports" in message
    assert "malformed" not in message
