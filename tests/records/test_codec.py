"""Record codec: run, experiment and summary records round-trip through their YAML text."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from _canonical import canonical
from _factories import experiment_for, trivial_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench.abp import SpanRecord, Trace
from autobench.records import (
    RUN_RECORD_VERSION,
    ArtifactRef,
    Case,
    ErrorRecord,
    ExperimentSummary,
    FactorValue,
    Observation,
    RecordFormatError,
    RunRecord,
    ScoreRecord,
    SemanticDefinition,
    SemanticRegistry,
    StatusCounts,
    Variant,
    experiment_record_from_yaml,
    experiment_record_to_yaml,
    experiment_summary_from_yaml,
    experiment_summary_to_yaml,
    run_record_from_yaml,
    run_record_to_yaml,
)
from autobench.records._codec import without_sections
from autobench.records._schemas import autobench_version
from autobench.records._yaml import dump_record, load_document

SIZE_LIMIT = 3500

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
IDS = st.text(min_size=1, max_size=24)
WHEN = st.datetimes(
    min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)
)


@st.composite
def runs(draw: st.DrawFn) -> RunRecord:
    case_id, variant_id = draw(IDS), draw(IDS)
    base = trivial_run(case_id, variant_id, output=draw(VALUES))
    spans = [
        SpanRecord(
            id=f"span{index}",
            operation=draw(st.text(min_size=1, max_size=12)),
            kind=draw(st.sampled_from(["task", "llm", "tool", "x.custom"])),
            parent=None if index == 0 else "span0",
            started_at=draw(WHEN),
            offset=draw(st.floats(min_value=0, max_value=10)),
            duration=draw(st.none() | st.floats(min_value=0, max_value=10)),
            input=draw(VALUES),
            output=draw(VALUES),
            attributes=draw(st.dictionaries(st.text(max_size=6), VALUES, max_size=2)),
            usage=draw(st.dictionaries(st.text(max_size=6), st.integers(0, 10**6), max_size=2)),
            partial=draw(st.booleans()),
        )
        for index in range(draw(st.integers(0, 3)))
    ]
    observation_case = draw(st.sampled_from([case_id, None, "other-case"]))
    return base.model_copy(
        update={
            "case": Case(
                id=case_id,
                input=draw(VALUES),
                expected=draw(VALUES),
                metadata=draw(st.dictionaries(st.text(max_size=6), VALUES, max_size=2)),
                tags=tuple(draw(st.lists(st.text(max_size=6), max_size=3, unique=True))),
            ),
            "variant": Variant(
                id=variant_id,
                label=draw(st.none() | st.text(max_size=10)),
                factors=tuple(
                    FactorValue(name=name, value=draw(VALUES), optimize=draw(st.booleans()))
                    for name in draw(
                        st.lists(st.text(min_size=1, max_size=6), max_size=3, unique=True)
                    )
                ),
            ),
            "scores": tuple(
                ScoreRecord(
                    name=name,
                    value=draw(VALUES),
                    actual_value=draw(VALUES),
                    reason=draw(st.none() | st.text(max_size=10)),
                )
                for name in draw(st.lists(st.text(min_size=1, max_size=8), max_size=3, unique=True))
            ),
            "observations": tuple(
                Observation(
                    id=f"observation_{index}",
                    name=draw(st.text(min_size=1, max_size=8)),
                    value=draw(VALUES),
                    case_id=observation_case if observation_case is not None else case_id,
                    variant_id=variant_id,
                )
                for index in range(draw(st.integers(0, 3)))
            ),
            "trace": draw(
                st.none()
                | st.just(Trace(id=draw(IDS), spans=tuple(spans), partial=draw(st.booleans())))
            ),
            "artifacts": tuple(
                ArtifactRef(id=f"a{index}", name=draw(st.text(min_size=1, max_size=10)))
                for index in range(draw(st.integers(0, 2)))
            ),
            "errors": tuple(
                ErrorRecord(
                    stage="task",
                    type="ValueError",
                    message=draw(st.text(max_size=20)),
                    traceback=draw(st.none() | st.text(max_size=40)),
                )
                for _ in range(draw(st.integers(0, 1)))
            ),
        }
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_run_record_round_trip(run: RunRecord) -> None:
    text = run_record_to_yaml(run)
    back = run_record_from_yaml(text, source="run.yaml")
    assert canonical(back.model_dump(mode="python")) == canonical(run.model_dump(mode="python"))
    assert back == run


def test_trivial_run_yaml_is_small_and_grouped() -> None:
    text = run_record_to_yaml(trivial_run())
    size = len(text.encode("utf-8"))
    print(f"\ntrivial run.yaml: {size} bytes\n{text}")
    assert size < SIZE_LIMIT
    lines = text.splitlines()
    assert lines[0] == (
        "# yaml-language-server: $schema="
        f"urn:autobench:schemas/{autobench_version()}/run.schema.json"
    )
    assert lines[1:4] == ["record:", "  type: run", f"  version: {RUN_RECORD_VERSION}"]
    sections = [line[:-1] for line in lines[4:] if line.endswith(":") and not line.startswith(" ")]
    assert sections == ["run", "case", "variant", "output", "scores", "observations", "trace"]
    assert "\nobservations:\n- id: observation_1\n  name: latency_ms\n" in text
    observation_block = text.split("observations:")[1].split("\ntrace:")[0]
    assert "case:" not in observation_block and "variant:" not in observation_block
    assert text.count("ticket_1") == 3  # run.id, run.case, case.id
    assert "{" not in text  # block style throughout


def test_observations_get_the_run_case_and_variant_back() -> None:
    back = run_record_from_yaml(run_record_to_yaml(trivial_run("c1", "v1")))
    assert [(o.case_id, o.variant_id) for o in back.observations] == [("c1", "v1")]


def test_experiment_and_summary_round_trip() -> None:
    registry = SemanticRegistry(
        types={"acme.score": SemanticDefinition(parent="quality.score", unit="ratio")},
        aliases={"acme": "acme.score"},
    )
    experiment = experiment_for(
        [("c1", "v1"), ("c2", "v1")],
        files={"/abs/autobench.yaml": "3c4d"},
        environment={"python": "3.11.13", "cwd": "/work"},
        semantic_registry=registry,
        report={"leaderboard": {"show": {"acc": {"metric": "quality.correctness"}}}},
    )
    assert experiment_record_from_yaml(experiment_record_to_yaml(experiment)) == experiment
    summary = ExperimentSummary(
        experiment="e",
        benchmark="b",
        finished_at=dt.datetime(2026, 5, 7, 12, tzinfo=dt.UTC),
        duration=1.5,
        runs=2,
        status=StatusCounts(passed=1, failed=1),
        variants={"v1": StatusCounts(passed=1, failed=1)},
    )
    text = experiment_summary_to_yaml(summary)
    assert "complete: true" in text
    assert experiment_summary_from_yaml(text) == summary


def _with_version(text: str, version: int) -> str:
    return text.replace(f"  version: {RUN_RECORD_VERSION}\n", f"  version: {version}\n", 1)


def test_newer_version_is_refused_before_the_body_is_parsed() -> None:
    text = _with_version(run_record_to_yaml(trivial_run()), RUN_RECORD_VERSION + 1)
    text += "future: !unknown-tag {a: [\n"  # unparsable for this version
    with pytest.raises(RecordFormatError) as caught:
        run_record_from_yaml(text, source=Path("runs/x/run.yaml"))
    message = str(caught.value)
    assert message.startswith("runs/x/run.yaml: ")
    assert f"version {RUN_RECORD_VERSION + 1} is newer" in message
    assert caught.value.path == Path("runs/x/run.yaml")


def test_newer_version_in_flow_header_is_refused() -> None:
    text = "record: {type: run, version: 99}\nrun: {}\n"
    with pytest.raises(RecordFormatError, match="version 99 is newer"):
        run_record_from_yaml(text, source="r.yaml")


def test_wrong_record_type_and_missing_header() -> None:
    text = run_record_to_yaml(trivial_run())
    with pytest.raises(RecordFormatError, match="expected record type 'experiment', found 'run'"):
        experiment_record_from_yaml(text, source="e.yaml")
    with pytest.raises(RecordFormatError, match="missing `record"):
        run_record_from_yaml("run: {}\n", source="r.yaml")
    with pytest.raises(RecordFormatError, match="a mapping"):
        run_record_from_yaml("- 1\n", source="r.yaml")


def test_malformed_yaml_names_file_line_and_column() -> None:
    text = run_record_to_yaml(trivial_run()).replace("  benchmark: demo\n", "  benchmark: [demo\n")
    with pytest.raises(RecordFormatError) as caught:
        run_record_from_yaml(text, source="cases/a/b/run.yaml")
    assert caught.value.line is not None and caught.value.column is not None
    assert str(caught.value).startswith(
        f"cases/a/b/run.yaml:{caught.value.line}:{caught.value.column}: "
    )


def test_model_mismatch_names_file_and_field() -> None:
    text = run_record_to_yaml(trivial_run()).replace("  status: passed\n", "  status: exploded\n")
    line = text.splitlines().index("  status: exploded") + 1
    with pytest.raises(
        RecordFormatError,
        match=rf"^r.yaml:{line}:11: does not match the RunRecord model: run.status",
    ) as raised:
        run_record_from_yaml(text, source="r.yaml")
    assert (raised.value.line, raised.value.column) == (line, 11)


SECTION_NAMES = st.sampled_from(["case", "output", "trace", "run", "scores", "notes", "x-y"])
SECTION_VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=12) | st.booleans(),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(min_size=1, max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(SECTION_NAMES, SECTION_VALUES, min_size=1, max_size=5),
    st.frozensets(SECTION_NAMES),
)
def test_sections_left_out_become_blank_lines_and_the_rest_reads_the_same(
    sections: dict, names: frozenset[str]
) -> None:
    text = dump_record("run", 1, sections)
    cut = without_sections(text, names)
    assert cut.count("\n") == text.count("\n")  # a line:column in the rest is still the file's
    kept = [line for line in cut.split("\n") if line]
    assert all(line in text.split("\n") for line in kept)
    document = load_document(text)
    del document["record"]
    expected = {name: value for name, value in document.items() if name not in names}
    read = load_document(cut)
    del read["record"]
    assert canonical(read) == canonical(expected)
