"""A span of ``trace.yaml`` written directly (``_span_text``) is the text the document path
writes, byte for byte; a span it cannot write takes that path; the file reads back."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pytest
from _canonical import canonical
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench.abp import (
    SpanError,
    SpanKind,
    SpanRecord,
    SpanStatus,
    Trace,
    TraceCollector,
    bind_collector,
    start_span,
)
from autobench.abp._facts import EventRecord, LinkRecord, MeasurementRecord, ReferenceRecord
from autobench.records import (
    RunInfo,
    RunRecord,
    experiment_record_from_yaml,
    experiment_record_to_yaml,
    experiment_summary_from_yaml,
    run_record_from_yaml,
    trace_from_yaml,
)
from autobench.records._codec import (
    _trace_head,
    experiment_summary_to_yaml,
    model_sections,
    reference_span_text,
    render_run,
    run_sections,
    run_text,
    trace_to_yaml,
    trace_yaml_bytes,
)
from autobench.records._records import EXPERIMENT_RECORD_VERSION
from autobench.records._span_text import (
    _SPAN_FIELDS,
    items_text,
    sections_text,
    span_text,
    trace_section_text,
)
from autobench.records._values import encode_value
from autobench.records._yaml import dump_document, dump_record, render_sections

AWKWARD = [
    *("yes", "No", "ON", "off", "y", "N", "true", "False", "NULL", "null", "~", "=", "<<"),
    *("1", "-1", "+1", "1.0", "1e5", "e5", "E5", "1_000", "0x1F", "0o17", "0b101", "017", "08"),
    *(".inf", "-.inf", ".NaN", ".5", "5.", "_", "__", ".", "12:30", "1:2:3", "190:20:30.15"),
    *("2024-01-01", "2024-1-1", "2024-01-01 10:00:00", "2024-01-01T10:00:00Z", "0" * 45),
    *("", " ", "  ", " lead", "trail ", "in  side", "a: b", "a:b", "a:", ":a", ": a", ":"),
    *("-", "- a", "-a", "--", "---", "---a", "--- a", "...", "...a", ".a", "?", "? a", "?a"),
    *("#x", "a #b", "a#b", "a #", "'q'", '"dq"', "it's", "''", "[a]", "a[0]", "{a}", "a,b"),
    *("&a", "*a", "!a", "!!str", "|a", ">a", "%a", "@a", "`a", "a|b", "a>b", "a!b", "a&b"),
    *("a\nb", "a\n", "a\n\n", "\n", "\n\n", "\na", " a\nb", "a \nb", "a\n b", "a\n\nb"),
    *("a\nb\n", "a\n \nb", "a\n\n\nb\n", "- a\n- b", "a: b\nc", "#\n#", "yes\n", "'\n'"),
    *("a\tb", "\t", "a\rb", "a\r\nb", "\x85", "a\u2028b", "a\u2029", "\x7f", "\x00", "\x1b[0m"),
    *("émoji 😀", "日本語", "\xa0", "a\xa0", "\xa0a", "\ufeff", "a\ufeffb", "\ufffe", "\ud800"),
    *("é: x", "ü #", "x" * 39, "y" * 40, "1" * 39, "1" * 40, "a" * 130, "é" * 70),
    # YAML 1.1 look-alikes (quoted below 40 characters) that are strings to YAML 1.2
    *("2024-01-01 then a few words", "2024-01-01 then a few more words until 40+"),
    *("1:2:3:4:5:6:7:8:9:10:11:12:13:14", "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17"),
]
"""Strings whose YAML form is not what it seems: retyped by a YAML 1.1 or 1.2 reader, indicator
characters, document markers, blank or control characters, line breaks, wide characters."""

TEXT = (
    st.sampled_from(AWKWARD)
    | st.text(max_size=10)
    | st.text(
        alphabet=st.sampled_from(
            list(" -?:#,[]{}&*!|>'\"%@`._~+=<\n\t\r0123456789eEabxyYnNoé\xa0")
        ),
        max_size=8,
    )
    | st.from_regex(r"[a-z][a-z0-9_.]{0,12}", fullmatch=True)
)
KEYS = TEXT | st.text(min_size=100, max_size=140)  # keys around libyaml's simple-key limit


def _members(members: list[Any]) -> st.SearchStrategy[Any]:
    """Enum members (drawn by index: hypothesis mistakes a ``StrEnum`` member for a string
    choice when it replays ``sampled_from``)."""
    return st.integers(0, len(members) - 1).map(members.__getitem__)


FLOATS = st.floats() | st.sampled_from([-0.0, 0.0, 1e-05, 1e16, 5e-324, 1.5e300, math.nan])
INTS = st.integers() | st.integers(min_value=-(10**110), max_value=10**110)
ZONES = st.sampled_from(
    [
        None,
        dt.UTC,
        dt.timezone(dt.timedelta(hours=5, minutes=30)),
        dt.timezone(dt.timedelta(hours=-3)),
        dt.timezone(dt.timedelta(seconds=90)),  # not whole minutes: written in UTC
    ]
)
WHEN = st.datetimes(
    min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 30), timezones=ZONES
)
SCALARS = (
    st.none()
    | st.booleans()
    | INTS
    | FLOATS
    | TEXT
    | WHEN
    | st.dates()
    | _members([SpanKind.LLM, SpanStatus.ERROR])
    | st.binary(max_size=4)  # written by the document path only
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(KEYS, inner, max_size=3)
        | st.dictionaries(st.integers(0, 3), inner, min_size=1, max_size=2)
    ),
    max_leaves=10,
)


def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


def _facts(
    attributes: st.SearchStrategy[Any],
    text: st.SearchStrategy[str],
    offsets: st.SearchStrategy[float],
) -> dict[str, st.SearchStrategy[Any]]:
    """Strategies for the facts of a span (attributes, text and offsets as given)."""
    return {
        "measurements": st.builds(
            MeasurementRecord,
            name=text,
            value=INTS | FLOATS,
            semantic_type=_optional(text),
            unit=_optional(text),
            accounting=st.sampled_from(["direct", "aggregate"]) | text,
            layer=_optional(text),
            operation_id=_optional(text),
            offset=_optional(offsets),
            attributes=attributes,
        ),
        "events": st.builds(EventRecord, name=text, offset=offsets, attributes=attributes),
        "links": st.builds(
            LinkRecord,
            relation=text,
            span=_optional(text),
            trace=_optional(text),
            attributes=attributes,
        ),
        "references": st.builds(
            ReferenceRecord,
            kind=text,
            id=text,
            name=_optional(text),
            uri=_optional(text),
            media_type=_optional(text),
            attributes=attributes,
        ),
    }


@st.composite
def span_fields(
    draw: st.DrawFn,
    values: st.SearchStrategy[Any] = VALUES,
    text: st.SearchStrategy[str] = TEXT,
    offsets: st.SearchStrategy[float] = FLOATS,
) -> dict[str, Any]:
    """The fields of a span: required ones, then any of the others (left out: the default)."""
    keys = text | st.text(min_size=100, max_size=140)
    attributes = st.dictionaries(keys, values, max_size=3)
    fields: dict[str, Any] = {
        "id": draw(text | st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
        "operation": draw(text),
    }
    optional: dict[str, st.SearchStrategy[Any]] = {
        "kind": _members(list(SpanKind)) | st.sampled_from(["custom", "x.custom"]) | text,
        "parent": _optional(text),
        "scope": st.just("autobench.manual") | text,
        "started_at": _optional(WHEN),
        "offset": offsets,
        "duration": _optional(FLOATS),
        "status": _members(list(SpanStatus)),
        "input": values,
        "output": values,
        "attributes": attributes,
        "usage": st.dictionaries(keys, INTS | FLOATS, max_size=2),
        "tags": st.dictionaries(keys, text, max_size=2),
        "error": _optional(st.builds(SpanError, type=text, message=st.just("") | text)),
        "partial": st.booleans(),
        **{
            name: st.lists(fact, max_size=2).map(tuple)
            for name, fact in _facts(attributes, text, offsets).items()
        },
    }
    for name in draw(st.sets(st.sampled_from(sorted(optional)))):
        fields[name] = draw(optional[name])
    return fields


@st.composite
def spans(draw: st.DrawFn) -> SpanRecord:
    """Spans as validation builds them, as ``model_construct`` does (an enum member left
    in a ``str`` field), or with a field of their own (``extra="allow"``)."""
    fields = draw(span_fields())
    how = draw(st.sampled_from(["validate", "construct", "extra"]))
    if how == "construct":
        return SpanRecord.model_construct(**fields)
    if how == "extra":
        fields["vendor_field"] = draw(VALUES)
    return SpanRecord.model_validate(fields)


def _info(**changes: Any) -> RunInfo:
    """The run info of the runs below (run ``run_0001_c_v`` of case ``c``, variant ``v``),
    with ``changes``."""
    fields: dict[str, Any] = {
        "id": "run_0001_c_v",
        "experiment": "exp_1",
        "benchmark": "b",
        "case": "c",
        "variant": "v",
        "index": 1,
        "status": "passed",
        "outcome": {"task": "passed", "evaluation": "passed"},
        "started_at": dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.UTC),
        "duration": 0.25,
    }
    return RunInfo(**{**fields, **changes})


def test_every_span_field_has_a_known_type() -> None:
    # a new SpanRecord field of a type _span_text does not know sends every span through
    # the document path: still correct, but the speed is gone
    assert _SPAN_FIELDS is not None
    assert [name for name, *_ in _SPAN_FIELDS] == list(SpanRecord.model_fields)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(span=spans())
def test_a_span_written_directly_is_the_document_paths_text(span: SpanRecord) -> None:
    text = span_text(span)
    if text is not None:
        assert text == reference_span_text(span)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=span_fields(values=st.sampled_from(AWKWARD)))
def test_awkward_text_is_written_directly_or_left_to_the_document_path(
    fields: dict[str, Any],
) -> None:
    span = SpanRecord.model_validate(fields)
    text = span_text(span)
    if text is not None:
        assert text == reference_span_text(span)


@pytest.mark.parametrize("text", AWKWARD)
@pytest.mark.parametrize("where", ["operation", "input", "key", "item"])
def test_each_awkward_string(text: str, where: str) -> None:
    fields: dict[str, Any] = {"id": "s1", "operation": "op"}
    if where == "operation":
        fields["operation"] = text
    elif where == "input":
        fields["input"] = text
    elif where == "key":
        fields["attributes"] = {text: [text, {text: text}]}
    else:
        fields["output"] = [[text], {"k": text}, text]
    span = SpanRecord.model_validate(fields)
    written = span_text(span)
    if written is not None:
        assert written == reference_span_text(span)


LINES = {
    "plain": "step",
    "spaces inside": "Summarise the document, please.",
    "yes": "yes",
    "number": "1.0",
    "colon space": "a: b",
    "hash": "a #b",
    "leading space": " lead",
    "empty": "",
    "quote": "it's 'quoted'",
    "unicode": "日本語 é",
    "lines": "first\n\nthird",
    "lines ending in a break": "first\nsecond\n",
    "dash": "- a",
}


@pytest.mark.parametrize("text", LINES.values(), ids=LINES.keys())
def test_common_text_is_written_directly(text: str) -> None:
    # the fast path must actually be taken for the common span shape, or it is no faster
    span = SpanRecord(
        id="7ff4b593f638dbcf",
        operation=text,
        kind="llm",
        parent="0123456789abcdef",
        started_at=dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC),
        offset=1e-05,
        duration=0.25,
        status=SpanStatus.ERROR,
        input={"prompt": text, "n": [1, 2.5, None, True], "empty": {}, "none": []},
        output={"text": text, "nested": [{"a": [text]}, [[1]]]},
        attributes={text.split("\n")[0] or "k": text, "gen_ai.request.model": "gpt-4o-mini"},
        usage={"input_tokens": 120, "output_tokens": 30},
        tags={"team": text},
        error=SpanError(type="ValueError", message=text),
        partial=True,
        measurements=(MeasurementRecord(name="tokens", value=3, unit="tokens"),),
        events=(EventRecord(name="retry", offset=0.5, attributes={"n": 1}),),
        links=(LinkRecord(relation="follows_from", trace="0" * 32),),
        references=(ReferenceRecord(kind="artifact", id="a1"),),
    )
    written = span_text(span)
    assert written is not None
    assert written == reference_span_text(span)


def test_values_it_cannot_write_take_the_document_path() -> None:
    for fields in (
        {"input": b"bytes"},
        {"input": "tab\there"},
        {"input": "emoji 😀"},
        {"input": {1: "int key"}},
        {"input": 10**200},
        {"attributes": {"x" * 130: 1}},
        {"vendor_field": 1},
    ):
        span = SpanRecord.model_validate({"id": "s", "operation": "op", **fields})
        assert span_text(span) is None, fields
    trace = Trace(id="t", spans=(SpanRecord(id="s", operation="op", input=b"\x00"),))
    assert b"!!binary" in trace_yaml_bytes(trace)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spans=st.lists(spans(), max_size=4), partial=st.booleans())
def test_the_trace_file_is_the_documents_text(spans: list[SpanRecord], partial: bool) -> None:
    trace = Trace(id="t1", name="demo", spans=tuple(spans), partial=partial)
    assert trace_yaml_bytes(trace) == trace_to_yaml(trace).encode("utf-8")


TEXT_AS_IS = TEXT.filter(lambda text: "\ud800" not in text)
"""Text that reads back as it was (a lone surrogate cannot be written: it comes back opaque)."""
OFFSETS_AS_IS = FLOATS.filter(lambda value: math.copysign(1.0, value) > 0 or value != 0)
"""Offsets that read back as they were (-0.0 equals the default 0.0, so it is left out)."""
JSON_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | FLOATS | TEXT_AS_IS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(TEXT_AS_IS | st.text(min_size=100, max_size=140), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Values that read back as they were (no tuple, enum, date or bytes: those come back as
their document form)."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.lists(span_fields(JSON_LIKE, TEXT_AS_IS, OFFSETS_AS_IS), max_size=4))
def test_the_trace_file_reads_back_equal(
    tmp_path_factory: pytest.TempPathFactory, fields: list[dict[str, Any]]
) -> None:
    for span in fields:
        span.pop("started_at", None)  # a datetime reads back as the same instant, UTC
    trace = Trace(id="t1", spans=tuple(SpanRecord.model_validate(span) for span in fields))
    path = tmp_path_factory.mktemp("trace") / "trace.yaml"
    path.write_bytes(trace_yaml_bytes(trace))
    read = trace_from_yaml(path.read_bytes().decode("utf-8"), source=path)
    assert canonical(read.model_dump(mode="python")) == canonical(trace.model_dump(mode="python"))


def test_a_collected_trace_is_written_directly_and_reads_back(tmp_path: Path) -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("root", kind="task") as root:
        root.set_usage(input_tokens=3)
        for index in range(5):
            with start_span(
                "llm.call",
                kind="llm",
                input={"prompt": f"Summarise document {index}.\nBe brief."},
                attributes={"gen_ai.request.model": "gpt-4o-mini", "temperature": 0.2},
            ) as span:
                span.set_output({"text": f"It's a summary of doc {index}."})
                span.record_measurement("tokens", 30 + index, unit="tokens")
                span.add_event("first_token", {"at": index})
    trace = collector.materialize()
    assert all(span_text(span) is not None for span in trace.spans)
    data = trace_yaml_bytes(trace)
    assert data == trace_to_yaml(trace).encode("utf-8")
    path = tmp_path / "trace.yaml"
    path.write_bytes(data)
    read = trace_from_yaml(path.read_text(encoding="utf-8"), source=path)
    assert canonical(read.model_dump(mode="python")) == canonical(trace.model_dump(mode="python"))


SECTION_NAMES = st.sampled_from(["run", "case", "output", "scores", "observations", "trace"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sections=st.dictionaries(SECTION_NAMES, VALUES, max_size=4))
def test_record_sections_written_directly_are_the_document_paths_text(
    sections: dict[str, Any],
) -> None:
    document = {name: encode_value(value) for name, value in sections.items()}
    text = sections_text(document)
    if text is not None:
        assert text == render_sections(document)


def test_a_run_record_is_written_directly_as_the_document_path_writes_it() -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("benchmark.run", kind="task") as root:
        with start_span("llm", kind="llm", input={"prompt": "Hi: there\nsecond line"}) as llm:
            llm.set_output({"text": "yes", "n": 3})
            llm.set_usage(input_tokens=12, output_tokens=4)
    run = RunRecord(
        run=_info(),
        case={"id": "c", "input": {"n": 1, "on": "off"}, "expected": {"value": 2}},
        variant={"id": "v", "factors": {"model": "gpt-demo", "temperature": 0.2}},
        output={"value": 2, "ok": True, "when": "2024-01-01"},
        scores=[{"name": "correct", "value": 1.0, "role": "objective", "actual": 2}],
        observations=[
            {"id": "obs_1", "name": "size", "kind": "metric", "value": 1, "span": root.id}
        ],
        trace=collector.materialize(),
    )
    sections = run_sections(run)
    fast = sections_text(sections)
    assert fast is not None  # the common shape takes the direct path
    assert fast == render_sections(sections)
    back = run_record_from_yaml(render_run(sections))
    assert (back.trace, back.output, back.scores, back.case) == (
        run.trace,
        run.output,
        run.scores,
        run.case,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sections=st.dictionaries(SECTION_NAMES, VALUES, max_size=4))
def test_sections_written_directly_from_a_dump_are_the_document_paths_text(
    sections: dict[str, Any],
) -> None:
    """``run_text`` gives the direct writer a run's dump as it is (no ``encode_value``): the
    writer refuses every value encoding would change, so what it writes is the same text."""
    text = sections_text(sections)
    if text is not None:
        assert text == render_sections(
            {name: encode_value(value) for name, value in sections.items()}
        )


@st.composite
def run_records(draw: st.DrawFn) -> RunRecord:
    """Run records of the common shape with hypothesis values in their open fields (case
    input, output, factors, a score's actual value), spans of every kind, and observations
    whose case and variant are the run's or another's."""
    trace = Trace(
        id=draw(st.sampled_from(["t1", "0123abcd"])),
        name=draw(st.none() | TEXT),
        spans=tuple(draw(st.lists(spans(), max_size=3))),
        partial=draw(st.booleans()),
    )
    observations = [
        {
            "id": f"obs_{index}",
            "name": "size",
            "kind": "metric",
            "value": draw(st.integers(0, 9) | FLOATS),
            "case": draw(st.sampled_from(["c", "other"])),
            "variant": draw(st.sampled_from(["v", "other"])),
        }
        for index in range(draw(st.integers(0, 2)))
    ]
    return RunRecord(
        run=_info(
            status=draw(st.sampled_from(["passed", "failed", "errored"])),
            started_at=draw(WHEN),
            duration=draw(FLOATS.filter(lambda value: not math.isnan(value))),
        ),
        case={"id": "c", "input": draw(VALUES), "expected": draw(VALUES)},
        variant={"id": "v", "factors": {"model": draw(TEXT), "temperature": draw(FLOATS)}},
        output=draw(VALUES),
        scores=[{"name": "correct", "value": 1.0, "role": "objective", "actual": draw(VALUES)}],
        observations=observations,
        trace=trace if draw(st.booleans()) else None,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=run_records())
def test_a_run_file_is_the_document_paths_text(run: RunRecord) -> None:
    """``run_text`` (spans and sections written straight from the run) and the document
    path (``render_run(run_sections(run))``) write the same bytes, whatever the run holds."""
    assert run_text(run) == render_run(run_sections(run))


def test_a_common_run_takes_the_direct_path() -> None:
    """The run of a common task is written by the direct path, not the document path (the
    same text: the test above; this one keeps the speed from going unnoticed)."""
    collector = TraceCollector()
    with bind_collector(collector), start_span("benchmark.run", kind="task"):
        with start_span("llm", kind="llm", input={"prompt": "Hi"}) as llm:
            llm.set_output({"text": "yes"})
    run = RunRecord(
        run=_info(),
        case={"id": "c", "input": {"n": 1}},
        variant={"id": "v", "factors": {"mode": "a"}},
        output={"value": 2},
        trace=collector.materialize(),
    )
    trace = run.trace
    assert isinstance(trace, Trace)
    before, after = _trace_head(trace)
    assert trace_section_text(before, trace.spans, after) is not None
    dumped = run.model_dump(mode="python", exclude_defaults=True, exclude={"trace"})
    assert all(sections_text({key: value}) is not None for key, value in dumped.items())
    text = run_text(run)
    assert text == render_run(run_sections(run))


FIXTURE_EXPERIMENT = Path(__file__).parents[1] / "fixtures" / "records-v1" / "experiment"


def test_an_experiment_file_is_written_directly_as_the_document_path_writes_it() -> None:
    experiment = experiment_record_from_yaml(
        (FIXTURE_EXPERIMENT / "experiment.yaml").read_text(encoding="utf-8")
    )
    sections = model_sections(experiment)
    assert sections_text(sections) is not None  # the direct path writes it
    text = experiment_record_to_yaml(experiment)
    assert text == dump_record("experiment", EXPERIMENT_RECORD_VERSION, sections)
    assert experiment_record_from_yaml(text) == experiment


PLAN_KEYS = st.sampled_from(["id", "case", "variant", "path", "input"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(st.dictionaries(PLAN_KEYS, TEXT, min_size=1) | VALUES, max_size=5))
def test_a_list_written_directly_is_the_document_paths_text(items: list[Any]) -> None:
    # experiment.yaml's planned runs: mappings of text, as ids and paths of any case give them
    document = [encode_value(item, 1) for item in items]
    text = items_text(document)
    if text is not None:
        assert text == dump_document(document)


def test_planned_runs_of_common_ids_take_the_direct_path() -> None:
    entries = [
        {
            "id": f"run_{index:04d}_case-{index}_a",
            "case": f"case-{index}",
            "variant": "a",
            "path": f"runs/case-{index}/a/run.yaml",
            "input": "0f" * 32,
        }
        for index in range(3)
    ] + [{"id": "run_0003_yes_1", "case": "yes", "variant": "1.0", "path": "'q'", "input": ""}]
    text = items_text(entries)
    assert text is not None
    assert text == dump_document(entries)


def test_a_summary_file_reads_back_equal() -> None:
    summary = experiment_summary_from_yaml(
        (FIXTURE_EXPERIMENT / "summary.yaml").read_text(encoding="utf-8")
    )
    text = experiment_summary_to_yaml(summary)
    assert text.startswith("# yaml-language-server: $schema=") and "type: summary" in text
    assert experiment_summary_from_yaml(text) == summary
