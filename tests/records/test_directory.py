"""RecordDirectoryWriter: layout, artifacts, large traces, never overwriting, storage errors."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from _factories import BENCHMARK_ID, EXPERIMENT_ID, experiment_for, trivial_run, trivial_trace

from autobench.records import (
    TRACE_INLINE_LIMIT,
    TRACE_MEDIA_TYPE,
    ArtifactRef,
    DurableRun,
    ExperimentSink,
    ExperimentSummary,
    RecordDirectoryWriter,
    RecordingError,
    TraceSummary,
    artifact_payload_from_yaml,
    load_run_record,
    run_record_from_yaml,
    run_record_path,
)
from autobench.records._atomic import AtomicFiles
from autobench.records._schemas import autobench_version, schema_url


def files_under(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def started(root: Path, pairs: list[tuple[str, str]]) -> RecordDirectoryWriter:
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for(pairs))
    return writer


@pytest.mark.usefixtures("record_writer")
def test_writer_is_a_sink_and_writes_the_layout(tmp_path: Path) -> None:
    root = tmp_path / "runs" / "demo"
    writer: ExperimentSink = RecordDirectoryWriter(root)
    writer.start(experiment_for([("ticket_1", "route_v1")]))
    stored = writer.run_finished(trivial_run(), {})
    writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=1))
    schemas = f"schemas/{autobench_version()}"
    assert files_under(root) == [
        "cases/ticket_1/route_v1/run.yaml",
        "experiment.yaml",
        f"{schemas}/experiment.schema.json",
        f"{schemas}/run.schema.json",
        f"{schemas}/summary.schema.json",
        "summary.yaml",
    ]
    assert stored == trivial_run()
    text = (root / "cases/ticket_1/route_v1/run.yaml").read_text(encoding="utf-8")
    assert run_record_from_yaml(text) == stored


def test_existing_directory_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    started(root, [("c", "v")])
    before = (root / "experiment.yaml").read_bytes()
    with pytest.raises(RecordingError, match="already holds an experiment") as caught:
        RecordDirectoryWriter(root).start(experiment_for([("c", "v")]))
    assert caught.value.path == root and str(root) in str(caught.value)
    assert (root / "experiment.yaml").read_bytes() == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    with pytest.raises(RecordingError, match="already holds files"):
        RecordDirectoryWriter(other).start(experiment_for([("c", "v")]))
    empty = tmp_path / "empty"
    empty.mkdir()
    RecordDirectoryWriter(empty).start(experiment_for([("c", "v")]))


@pytest.mark.usefixtures("record_writer")
def test_a_run_is_never_overwritten(tmp_path: Path) -> None:
    writer = started(tmp_path / "rec", [("c", "v")])
    writer.run_finished(trivial_run("c", "v"), {})
    writer.flush()
    path = tmp_path / "rec" / run_record_path("c", "v")
    before = path.read_bytes()
    with pytest.raises(RecordingError, match="already exists") as caught:
        writer.run_finished(trivial_run("c", "v", output={"changed": True}), {})
    assert caught.value.path == Path(path)
    assert path.read_bytes() == before
    assert not [name for name in os.listdir(path.parent) if name.endswith(".tmp")]


@pytest.mark.usefixtures("record_writer")
def test_artifact_payloads_by_kind(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    writer = started(root, [("c", "v")])
    refs = (
        ArtifactRef(id="a1", name="report.md", media_type="text/markdown"),
        ArtifactRef(id="a2", name="plot", media_type="image/png"),
        ArtifactRef(id="a3", name="steps"),
        ArtifactRef(id="a4", name="steps"),
        ArtifactRef(id="a5", name="trace"),
        ArtifactRef(id="a6", name="not stored"),
    )
    payloads = {
        "a1": "# Report\n\nfine\n",
        "a2": b"\x89PNG\x00",
        "a3": {"steps": [{"tool": "route", "n": float("nan")}]},
        "a4": [1, 2],
        "a5": {"x": 1},
        "unknown": "ignored",
    }
    stored = writer.run_finished(trivial_run("c", "v", artifacts=refs), payloads)
    writer.flush()
    by_id = {ref.id: ref for ref in stored.artifacts}
    run_dir = "artifacts/run_c_v"
    assert by_id["a1"].path == f"{run_dir}/report.md"
    assert by_id["a2"].path == f"{run_dir}/plot.png"
    assert by_id["a3"].path == f"{run_dir}/steps.yaml"
    assert by_id["a4"].path not in (None, by_id["a3"].path)
    assert by_id["a5"].path not in (None, f"{run_dir}/trace.yaml")
    assert by_id["a6"].path is None
    assert (root / by_id["a1"].path).read_text(encoding="utf-8") == payloads["a1"]
    assert (root / by_id["a2"].path).read_bytes() == payloads["a2"]
    for ref in stored.artifacts[:5]:
        data = (root / ref.path).read_bytes()
        assert ref.size == len(data) and ref.sha256 == hashlib.sha256(data).hexdigest()
    meta, payload = artifact_payload_from_yaml(
        (root / by_id["a3"].path).read_text(encoding="utf-8")
    )
    assert meta == {"id": "a3", "name": "steps", "media": "application/x-yaml"}
    assert payload["steps"][0]["tool"] == "route"
    assert load_run_record(root / run_record_path("c", "v")).artifacts == stored.artifacts


HOSTILE_IDS = [
    "../../etc/passwd",
    "a/b",
    "A/b",
    "a_b",
    ".hidden",
    "..",
    "CON",
    "ünï cödé",
    "x" * 300,
    "Case",
    "case",
]


@pytest.mark.usefixtures("record_writer")
def test_hostile_ids_and_names_stay_inside_and_distinct(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    pairs = [(case, "v") for case in HOSTILE_IDS]
    writer = started(root, pairs)
    refs = tuple(
        ArtifactRef(id=f"id-{name}", name=name, media_type="text/plain") for name in HOSTILE_IDS
    )
    for case, variant in pairs:
        payloads = {ref.id: f"payload of {ref.name}" for ref in refs}
        writer.run_finished(trivial_run(case, variant, artifacts=refs), payloads)
    writer.flush()
    resolved = root.resolve()
    paths = [path for path in root.rglob("*") if path.is_file()]
    assert all(path.resolve().is_relative_to(resolved) for path in paths)
    assert all(len(part) <= 120 for path in paths for part in path.relative_to(root).parts)
    run_files = {
        path.relative_to(root).as_posix().lower() for path in paths if path.name == "run.yaml"
    }
    assert len(run_files) == len(HOSTILE_IDS)
    for case, variant in pairs:
        back = load_run_record(root / run_record_path(case, variant))
        assert back.case_id == case
        assert len({ref.path.lower() for ref in back.artifacts if ref.path}) == len(HOSTILE_IDS)
        assert [ref.name for ref in back.artifacts] == HOSTILE_IDS


@pytest.mark.usefixtures("record_writer")
def test_large_trace_is_stored_as_an_artifact(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    writer = started(root, [("c", "v")])
    trace = trivial_trace(spans=800)
    run = trivial_run("c", "v", trace=trace)
    stored = writer.run_finished(run, {})
    writer.flush()
    assert stored.trace == trace
    path = root / run_record_path("c", "v")
    assert path.stat().st_size < 4096
    summary = run_record_from_yaml(path.read_text(encoding="utf-8")).trace
    assert isinstance(summary, TraceSummary)
    assert summary.spans == 801 and summary.id == trace.id
    assert summary.artifact.media_type == TRACE_MEDIA_TYPE
    assert summary.artifact.path == "artifacts/run_c_v/trace.yaml"
    artifact = root / summary.artifact.path
    assert artifact.stat().st_size > TRACE_INLINE_LIMIT
    assert artifact.read_text(encoding="utf-8").splitlines()[1:3] == ["record:", "  type: trace"]
    assert load_run_record(path, root=root) == run
    assert load_run_record(path) == run  # root found three levels up


@pytest.mark.usefixtures("record_writer")
def test_storage_error_when_a_file_is_in_the_way(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    writer = started(root, [("c", "v")])
    (root / "cases").write_text("not a directory")
    with pytest.raises(RecordingError) as caught:
        writer.run_finished(trivial_run("c", "v"), {})
        writer.flush()
    final = root / run_record_path("c", "v")
    assert caught.value.path == final and str(final) in str(caught.value)
    assert not final.exists()


FILE_SIZE_LIMIT = 4096

_CHILD_PREAMBLE = f"""
import json, resource, signal, sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
from _factories import BENCHMARK_ID, EXPERIMENT_ID, experiment_for, trivial_run
from autobench.records import ArtifactRef, ExperimentSummary, RecordDirectoryWriter, RecordingError

def limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, ({FILE_SIZE_LIMIT}, resource.RLIM_INFINITY))

big = ArtifactRef(id="big", name="big", media_type="application/octet-stream")
payload = {{"big": b"x" * {FILE_SIZE_LIMIT * 4}}}
"""


def in_child_with_file_size_limit(root: Path, body: str) -> dict[str, str]:
    """Run ``body`` in a child process where writes beyond 4 KiB fail with EFBIG (as a full
    disk fails them); return the RecordingError it caught as ``{"path", "message"}``.

    A child process keeps the limit away from this process's own output files.
    """
    script = (
        _CHILD_PREAMBLE
        + f"root = Path({str(root)!r})\n"
        + textwrap.dedent(body)
        + ("\nprint(json.dumps({'path': str(caught.path), 'message': str(caught)}))\n")
    )
    # The limit is set in the child once its writer has started: a record writer process
    # started before it would not have it, so the child stores on the writer's thread.
    env = {**os.environ, "AUTOBENCH_RECORD_WRITER": "thread"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, str] = json.loads(done.stdout)
    return result


def test_failed_write_leaves_nothing_under_the_final_name(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    caught = in_child_with_file_size_limit(
        root,
        """
        writer = RecordDirectoryWriter(root)
        writer.start(experiment_for([("c", "v")]))
        limit_file_size()
        try:
            writer.run_finished(trivial_run("c", "v", artifacts=(big,)), payload)
            writer.flush()
        except RecordingError as error:
            caught = error
        """,
    )
    target = root / "artifacts" / "run_c_v" / "big.bin"
    assert caught["path"] == str(target) and "File too large" in caught["message"]
    assert not target.exists()
    assert os.listdir(target.parent) == []
    assert not (root / run_record_path("c", "v")).exists()


def test_a_file_written_in_parts_is_whole_or_absent(tmp_path: Path) -> None:
    files = AtomicFiles(tmp_path)
    target = tmp_path / "sub" / "experiment.yaml"
    header = f"# yaml-language-server: $schema={schema_url('experiment')}\nrecord: {{}}\n".encode()
    files.create_parts(target, iter([header, b"a: 1\n", b"", b"b: 2\n"]))
    whole = tmp_path / "sub" / "whole.yaml"
    files.create(whole, header + b"a: 1\nb: 2\n")
    assert target.read_bytes() == whole.read_bytes()
    assert target.read_bytes().endswith(b"record: {}\na: 1\nb: 2\n")
    assert b"urn:autobench" not in target.read_bytes()  # the schema line made relative

    def failing() -> Iterator[bytes]:
        yield header
        yield b"a: 1\n"
        raise ValueError("a part could not be rendered")

    broken = tmp_path / "sub" / "broken.yaml"
    with pytest.raises(ValueError, match="could not be rendered"):
        files.create_parts(broken, failing())
    assert sorted(os.listdir(broken.parent)) == ["experiment.yaml", "whole.yaml"]
    with pytest.raises(RecordingError, match="already exists"):
        files.create_parts(target, [b"again\n"])
    files.create_parts(tmp_path / "empty.txt", [])
    assert (tmp_path / "empty.txt").read_bytes() == b""


def test_run_before_start_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="start"):
        RecordDirectoryWriter(tmp_path / "rec").run_finished(trivial_run(), {})


def test_a_failed_background_write_stops_finish_before_the_summary(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    caught = in_child_with_file_size_limit(
        root,
        """
        writer = RecordDirectoryWriter(root)
        writer.start(experiment_for([("c", "v"), ("d", "v")]))
        limit_file_size()
        writer.run_finished(trivial_run("c", "v"), {})
        writer.run_finished(trivial_run("d", "v", artifacts=(big,)), payload)
        try:
            writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=2))
        except RecordingError as error:
            caught = error
        """,
    )
    assert "File too large" in caught["message"]
    assert (root / run_record_path("c", "v")).is_file()
    assert not (root / run_record_path("d", "v")).exists()
    assert not (root / "summary.yaml").exists()


@pytest.mark.usefixtures("record_writer")
@pytest.mark.parametrize(
    "path", ["../escape/run.yaml", "/tmp/abs/run.yaml", "./.", "cases/../../out/run.yaml"]
)
def test_a_plan_path_leaving_the_record_is_refused(tmp_path: Path, path: str) -> None:
    # A plan read back from a tampered experiment record (model_copy: no validation here).
    experiment = experiment_for([("ticket_1", "route_v1")])
    planned = experiment.plan[0].model_copy(update={"path": path})
    root = tmp_path / "rec"
    writer = RecordDirectoryWriter(root)
    writer.start(experiment.model_copy(update={"plan": (planned,)}))
    with pytest.raises(RecordingError, match="leaves") as caught:
        writer.run_finished(trivial_run(), {})
    assert caught.value.path == Path(path)
    writer.close()
    assert not list(tmp_path.rglob("run.yaml"))


class _Follower:
    """A record listener keeping what it is told."""

    def __init__(self, needs_data: bool) -> None:
        self.needs_data = needs_data
        self.runs: list[DurableRun] = []
        self.summary: ExperimentSummary | None = None

    def runs_durable(self, record_dir: Path, runs: Sequence[DurableRun]) -> None:
        self.runs.extend(runs)

    def finished(self, record_dir: Path, summary: ExperimentSummary) -> None:
        self.summary = summary


@pytest.mark.parametrize("needs", [(False,), (False, True), (True,)])
def test_listeners_get_each_run_and_its_bytes_when_one_needs_them(
    tmp_path: Path, record_writer: str, needs: tuple[bool, ...]
) -> None:
    root = tmp_path / "rec"
    pairs = [("c1", "v"), ("c2", "v"), ("c3", "w")]
    followers = [_Follower(each) for each in needs]
    writer = RecordDirectoryWriter(root)
    for follower in followers:
        writer.add_listener(follower)
    writer.start(experiment_for(pairs))
    stored = [writer.run_finished(trivial_run(case, variant), {}) for case, variant in pairs]
    writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=3))
    # The record writer process sends each run.yaml's bytes back only for a listener that
    # needs them; the thread has them at hand.
    sent = any(needs) or record_writer == "thread"
    for follower in followers:
        assert sorted(durable.path for durable in follower.runs) == [
            run_record_path(case, variant) for case, variant in pairs
        ]
        for durable in follower.runs:
            assert durable.data == ((root / durable.path).read_bytes() if sent else b"")
            assert durable.run in stored
        assert follower.summary is not None
