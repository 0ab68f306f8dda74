"""Record codec: run, experiment, summary and trace models <-> record file text.

Writing: ``model_dump(mode="python", exclude_defaults=True)``, then
:func:`~autobench.records._values.encode_value` (so NaN, bytes, big integers
and datetimes keep their type), then YAML sections in the model's field
order. Fields equal to their defaults (empty sections included) are omitted. In a run record each
observation's ``case``/``variant`` is left out when it equals the run's (it
is in ``run:``); the reader puts the run's back into every observation that
has none. A trace keeps its ``protocol`` and ``protocol_version`` even when
they are the defaults, so a file always says which ABP revision wrote it, and
drops each scope's ``name`` when it equals the scope's key (restored on read).

Reading: the ``record:`` header is checked first (from the leading lines,
before the body is parsed): a different record type, or a version newer than
this Autobench supports, raises :class:`RecordFormatError` naming the file.
Older supported versions read unchanged. Malformed YAML and content that does
not match the model raise :class:`RecordFormatError` naming the file and the
line:column: the parser's for malformed YAML, and for a mismatch the offending
value's, found by composing the text again (:mod:`autobench.records._locate`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from autobench.abp import SpanRecord, Trace
from autobench.records._canonical import NOT_CANONICAL, read_canonical
from autobench.records._errors import RecordFormatError
from autobench.records._evidence import ArtifactRef
from autobench.records._legacy import upgrade_run_body, upgrade_trace_document
from autobench.records._locate import locate_value
from autobench.records._post_derived import POST_DERIVED_RECORD_VERSION, PostDerivedRecord
from autobench.records._records import (
    EXPERIMENT_RECORD_VERSION,
    RUN_RECORD_VERSION,
    SUMMARY_RECORD_VERSION,
    TRACE_RECORD_VERSION,
    ExperimentRecord,
    ExperimentSummary,
    PlanSequence,
    RunRecord,
    TraceSummary,
)
from autobench.records._schemas import ARTIFACT_PAYLOAD_RECORD_VERSION, RECORD_VERSIONS
from autobench.records._values import encode_value
from autobench.records._yaml import (
    dump_document,
    dump_record,
    load_document,
    peek_header,
    record_text,
    render_sections,
)

ModelT = TypeVar("ModelT", bound=BaseModel)

_TRACE_IDENTITY = ("protocol", "protocol_version")


def model_sections(model: BaseModel) -> dict[str, Any]:
    """The non-default top-level sections of ``model`` as document values, in field order."""
    dumped = model.model_dump(mode="python", exclude_defaults=True)
    return {name: encode_value(value) for name, value in dumped.items()}


def trace_document(trace: Trace) -> dict[str, Any]:
    """A trace as a document value: non-default fields plus its protocol identity."""
    return trace_document_of(trace.model_dump(mode="python", exclude_defaults=True), trace)


def trace_document_of(dumped: dict[str, Any], trace: Trace) -> dict[str, Any]:
    """:func:`trace_document` of ``dumped`` (``trace``'s non-default fields, or some of them)."""
    document = encode_value(dumped)
    identity = {name: getattr(trace, name) for name in _TRACE_IDENTITY}
    for key, scope in document.get("scopes", {}).items():
        if isinstance(scope, dict) and scope.get("name") == key:
            del scope["name"]
    return {"id": document.pop("id"), **identity, **document}


def _restore_trace(trace: dict[str, Any]) -> dict[str, Any]:
    """Undo :func:`trace_document`'s shortening (a scope's name is its key) and convert
    a legacy trace envelope (see :mod:`autobench.records._legacy`)."""
    trace = upgrade_trace_document(trace)
    scopes = trace.get("scopes")
    if isinstance(scopes, dict):
        for key, scope in scopes.items():
            if isinstance(scope, dict):
                scope.setdefault("name", key)
    return trace


def run_sections(run: RunRecord, *, trace: Any = None) -> dict[str, Any]:
    """The sections of ``run.yaml`` as document values (trace inline, as in ``run.trace``).

    ``trace``, when given, is the document value written in the trace's place (the summary
    of a trace stored in its own file): the run's trace is then not dumped at all, which
    for a run of 100,000 spans saves a full copy of them.
    """
    if trace is None and isinstance(run.trace, Trace):
        trace = trace_document(run.trace)  # dumped once, not also with the rest of the run
    if trace is None:
        sections = model_sections(run)
    else:
        dumped = run.model_dump(mode="python", exclude_defaults=True, exclude={"trace"})
        sections = {}
        for key in _RUN_KEYS:
            if key == "trace":
                sections[key] = trace
            elif key in dumped:
                sections[key] = encode_value(dumped[key])
    _leave_out_run_keys(sections.get("observations"), run)
    return sections


def _leave_out_run_keys(observations: list[dict[str, Any]] | None, run: RunRecord) -> None:
    """Remove each observation's ``case``/``variant`` where it is the run's (in ``run:``)."""
    for observation in observations or ():
        if observation.get("case") == run.case_id:
            del observation["case"]
        if observation.get("variant") == run.variant_id:
            del observation["variant"]


_RUN_KEYS = tuple(
    field.serialization_alias or field.alias or name
    for name, field in RunRecord.model_fields.items()
)
"""The top-level keys of a dumped run record, in field order."""


def render_run(sections: dict[str, Any]) -> str:
    """The text of ``run.yaml`` from :func:`run_sections` (possibly with a trace summary)."""
    return _record_file("run", RUN_RECORD_VERSION, sections)


def _record_file(record_type: str, version: int, sections: dict[str, Any]) -> str:
    """:func:`dump_record`'s text, written directly (:func:`sections_text`) when every value
    of ``sections`` allows it, else through the document path: the same text either way."""
    from autobench.records._span_text import sections_text  # see run_text

    body = sections_text(sections)
    if body is None:
        body = render_sections(sections)
    return record_text(record_type, version, body)


def run_record_to_yaml(run: RunRecord) -> str:
    """The ``run.yaml`` text of ``run``, its trace inline (the writer moves large traces out)."""
    return run_text(run)


def run_text(run: RunRecord) -> str:
    """``render_run(run_sections(run))``, the same text, written faster when the trace is
    inline: each section straight from the run's dump (no document value: the direct writer
    refuses every value :func:`encode_value` would change), the trace's spans straight from
    the spans (:func:`~autobench.records._span_text.trace_section_text`: no dump, no second
    copy of the trace). Any section or span that path does not write sends the whole file
    through :func:`render_run`.

    The direct writer's module is imported here, not with the records: compiling its
    patterns takes about 10 ms, which a command that only reads records never needs."""
    from autobench.records._span_text import sections_text, trace_section_text

    trace = run.trace
    if isinstance(trace, Trace):
        dumped = run.model_dump(mode="python", exclude_defaults=True, exclude={"trace"})
        _leave_out_run_keys(dumped.get("observations"), run)
        parts: list[str] = []
        for key in _RUN_KEYS:
            if key == "trace":
                before, after = _trace_head(trace)
                text = trace_section_text(before, trace.spans, after)
            elif key in dumped:
                text = sections_text({key: dumped[key]})
            else:
                continue
            if text is None:
                break
            parts.append(text)
        else:
            return record_text("run", RUN_RECORD_VERSION, "".join(parts))
    return render_run(run_sections(run))


def _trace_head(trace: Trace) -> tuple[dict[str, Any], dict[str, Any]]:
    """The document values of ``trace``'s fields before its spans and after them."""
    head = trace.model_dump(mode="python", exclude_defaults=True, exclude={"spans"})
    document = trace_document_of(head, trace)
    before = {key: value for key, value in document.items() if key in _BEFORE_SPANS}
    after = {key: value for key, value in document.items() if key not in _BEFORE_SPANS}
    return before, after


def experiment_record_to_yaml(experiment: ExperimentRecord) -> str:
    """The ``experiment.yaml`` text of ``experiment``: the parts of
    :func:`experiment_record_parts` joined."""
    return "".join(experiment_record_parts(experiment))


def experiment_record_parts(experiment: ExperimentRecord) -> Iterator[str]:
    """The ``experiment.yaml`` text of ``experiment`` in consecutive parts, the first
    holding the header and every section before the plan. A plan kept compactly
    (:class:`~autobench.records.PlanSequence`) is rendered :data:`PLAN_PART` planned runs
    per part, as the parts are taken: no document value, node tree or text of the whole
    plan at once (a million planned runs, about 170 MB of text); any other record is one
    part. Joined, the parts are the same text whatever the plan."""
    plan = experiment.plan
    if not isinstance(plan, PlanSequence) or len(plan) <= PLAN_PART:
        yield _record_file("experiment", EXPERIMENT_RECORD_VERSION, model_sections(experiment))
        return
    dumped = experiment.model_dump(mode="python", exclude_defaults=True, exclude={"plan"})
    names = list(type(experiment).model_fields)
    later = set(names[names.index("plan") + 1 :])
    before = {name: encode_value(value) for name, value in dumped.items() if name not in later}
    after = {name: encode_value(value) for name, value in dumped.items() if name in later}
    from autobench.records._span_text import items_text  # see run_text

    head = _sections_body(before) + "\nplan:\n"
    yield record_text("experiment", EXPERIMENT_RECORD_VERSION, head)
    for start in range(0, len(plan), PLAN_PART):
        entries = plan.entries(start, min(start + PLAN_PART, len(plan)))
        # Entries of plain strings are their own document values, written directly.
        text = items_text(entries)
        yield dump_document([encode_value(entry, 1) for entry in entries]) if text is None else text
    yield _sections_body(after)


PLAN_PART = 2048
"""Planned runs in each part of :func:`experiment_record_parts`."""


def _sections_body(sections: dict[str, Any]) -> str:
    from autobench.records._span_text import sections_text  # see run_text

    body = sections_text(sections) if sections else ""
    return render_sections(sections) if body is None else body


def experiment_summary_to_yaml(summary: ExperimentSummary) -> str:
    """The ``summary.yaml`` text of ``summary``."""
    sections = encode_value(summary.model_dump(mode="python", exclude_defaults=True))
    for required in ("complete", "runs"):
        sections.setdefault(required, getattr(summary, required))
    ordered = {name: sections[name] for name in type(summary).model_fields if name in sections}
    return _record_file("summary", SUMMARY_RECORD_VERSION, ordered)


def trace_to_yaml(trace: Trace) -> str:
    """The text of a ``trace.yaml`` artifact: the trace's fields as top-level sections."""
    return dump_record("trace", TRACE_RECORD_VERSION, trace_document(trace))


def trace_yaml_bytes(trace: Trace) -> bytes:
    """``trace_to_yaml(trace)`` as UTF-8, written span by span: no document value, node tree
    or text of all the spans at once (a trace of 100,000 spans would hold each several
    times). A span of the common shape is written directly (:func:`span_text`), any other
    through the document path. The bytes are the same."""
    from autobench.records._span_text import span_text  # see run_text

    before, after = _trace_head(trace)
    chunks = [record_text("trace", TRACE_RECORD_VERSION, render_sections(before)).encode()]
    if trace.spans:
        chunks.append(b"\nspans:\n")
        for span in trace.spans:
            text = span_text(span)  # the common span shape, written directly
            if text is None:
                text = reference_span_text(span)
            chunks.append(text.encode())
    chunks.append(render_sections(after).encode())
    return b"".join(chunks)


def reference_span_text(span: SpanRecord) -> str:
    """The text of ``span`` as an item of ``spans:`` through the general document path
    (:func:`span_text` gives the same text for the spans it writes)."""
    # depth 2: where a span sits in the whole document (trace -> spans -> span)
    value = encode_value(span.model_dump(mode="python", exclude_defaults=True), 2)
    return dump_document([value])


_BEFORE_SPANS = frozenset(
    ("id", *_TRACE_IDENTITY, *list(Trace.model_fields)[: list(Trace.model_fields).index("spans")])
)
"""The trace fields written before its spans (the rest follow them)."""


def artifact_payload_to_yaml(ref: ArtifactRef, payload: Any) -> str:
    """The text of a structured artifact payload file: ``artifact`` (id, name, media)
    then ``payload`` (the payload as a document value)."""
    artifact = {"id": ref.id, "name": ref.name, "media": ref.media_type}
    return _record_file(
        "artifact_payload",
        ARTIFACT_PAYLOAD_RECORD_VERSION,
        {"artifact": artifact, "payload": encode_value(payload)},
    )


def post_derived_to_yaml(record: PostDerivedRecord) -> str:
    """The ``post_derived.yaml`` text: ``experiment`` then ``runs`` (run id -> observations,
    each without ``case``/``variant``, which the run id names)."""
    runs: dict[str, Any] = {}
    for run_id, observations in record.runs.items():
        runs[run_id] = [
            encode_value(
                observation.model_dump(
                    mode="python", exclude_defaults=True, exclude={"case_id", "variant_id"}
                )
            )
            for observation in observations
        ]
    return _record_file(
        "post_derived", POST_DERIVED_RECORD_VERSION, {"experiment": record.experiment, "runs": runs}
    )


def post_derived_from_yaml(text: str, *, source: Path | str | None = None) -> PostDerivedRecord:
    """Read ``post_derived.yaml`` text (observations without ``case``/``variant``; the
    reader of the experiment fills them from the runs)."""
    return validate_record(
        PostDerivedRecord,
        record_body(text, "post_derived", source=source),
        source=source,
        text=text,
    )


def record_body(text: str, record_type: str, *, source: Path | str | None = None) -> dict[str, Any]:
    """Check the header of a record file of type ``record_type`` and return its other sections.

    Raises :class:`RecordFormatError` (naming ``source``) for a wrong type, a
    version newer than supported, a missing header or malformed YAML.
    """
    supported = RECORD_VERSIONS[record_type]
    header = peek_header(text)
    if header is not None:
        _check_header(header[0], header[1], record_type, supported, source)
    document = read_canonical(text)
    if document is NOT_CANONICAL:
        document = load_document(text, source=source)
    if not isinstance(document, dict):
        raise RecordFormatError(
            f"expected record type {record_type!r} (a mapping), found {type(document).__name__}",
            path=source,
        )
    record = document.pop("record", None)
    if not isinstance(record, dict) or not isinstance(record.get("version"), int):
        raise RecordFormatError(
            "missing `record: {type, version}` header; not an Autobench record", path=source
        )
    _check_header(record.get("type"), record["version"], record_type, supported, source)
    return document


def _check_header(
    found_type: Any, version: int, record_type: str, supported: int, source: Path | str | None
) -> None:
    if found_type != record_type:
        raise RecordFormatError(
            f"expected record type {record_type!r}, found {found_type!r}", path=source
        )
    if version > supported:
        raise RecordFormatError(
            f"{record_type} record version {version} is newer than this Autobench supports "
            f"(up to {supported}); upgrade Autobench to read it",
            path=source,
        )
    if version < 1:
        raise RecordFormatError(f"invalid {record_type} record version {version}", path=source)


def validate_record(
    model: type[ModelT],
    body: Any,
    *,
    source: Path | str | None = None,
    text: str | None = None,
    at: tuple[str | int, ...] = (),
) -> ModelT:
    """``model.model_validate(body)``; a mismatch raises :class:`RecordFormatError` naming
    ``source``, the first offending fields, and the line:column of the first one's value.

    ``text`` is the file's text (read again from ``source`` when not given) and ``at`` the
    place of ``body`` in it (``("trace",)`` for the trace of a run file). The text is
    composed again only when the body does not match."""
    try:
        return model.model_validate(body)
    except ValidationError as error:
        errors = error.errors()
        located = _locate(errors[0]["loc"] if errors else (), source, text, at)
        raise RecordFormatError(
            f"does not match the {model.__name__} model: {_describe(errors, at)}",
            path=source,
            line=None if located is None else located[0],
            column=None if located is None else located[1],
        ) from error


def _locate(
    loc: tuple[str | int, ...],
    source: Path | str | None,
    text: str | None,
    at: tuple[str | int, ...],
) -> tuple[int, int] | None:
    if text is None and source is not None:
        try:
            text = Path(source).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    return None if text is None else locate_value(text, (*at, *loc))


def _describe(errors: Iterable[Any], at: tuple[str | int, ...] = ()) -> str:
    listed = list(errors)
    parts = [
        f"{'.'.join(str(part) for part in (*at, *item['loc'])) or '<root>'}: {item['msg']}"
        for item in listed[:3]
    ]
    more = f" (and {len(listed) - 3} more)" if len(listed) > 3 else ""
    return "; ".join(parts) + more


EVIDENCE_ONLY = frozenset({"case", "output", "trace"})
"""Sections a report does not need: the case payloads, the task output and the trace."""

_SECTION_START = re.compile(r"\n(?=[A-Za-z_][\w-]*:)")
"""The line break before a top-level key (found far faster than a line start would be)."""


def without_sections(text: str, names: frozenset[str]) -> str:
    """``text`` of a record file without its top-level sections ``names``, each replaced
    by as many empty lines, so a line:column in the rest is still the file's.

    Relies on the writer's layout: only a top-level key starts a line with
    ``<name>:`` at column 0 (see :func:`autobench.records._yaml.render_sections`).
    """
    chunks = _SECTION_START.split(text)  # each without the line break that ended it
    return "\n".join(
        "\n" * chunk.count("\n") if chunk.split(":", 1)[0] in names else chunk for chunk in chunks
    )


def run_record_from_yaml(
    text: str, *, source: Path | str | None = None, skip: frozenset[str] = frozenset()
) -> RunRecord:
    """Read ``run.yaml`` text. The trace is a :class:`Trace`, or a :class:`TraceSummary` when
    it was stored as an artifact (see :func:`autobench.records.load_run_record`).

    ``skip`` names sections not to parse (for example :data:`EVIDENCE_ONLY`): the
    record then has ``output`` and ``trace`` ``None`` and a case and variant holding
    only their ids. Reports use this to read large experiments quickly.
    """
    body = run_body_from_yaml(text, source=source, skip=skip)
    return run_record_from_body(body, source=source, text=text)


def run_body_from_yaml(
    text: str, *, source: Path | str | None = None, skip: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The parsed sections of ``run.yaml`` text (header checked), before model validation:
    plain data that can cross a process boundary. ``skip`` as in :func:`run_record_from_yaml`."""
    if skip:
        text = without_sections(text, skip)
    body = record_body(text, "run", source=source)
    run = body.get("run")
    if skip and isinstance(run, dict):
        if "case" in skip:
            body.setdefault("case", {"id": run.get("case")})
        if "variant" in skip:
            body.setdefault("variant", {"id": run.get("variant")})
    return body


def run_record_from_body(
    body: dict[str, Any], *, source: Path | str | None = None, text: str | None = None
) -> RunRecord:
    """Validate the sections from :func:`run_body_from_yaml` into a :class:`RunRecord`.

    Legacy sections (the ``spans:`` tree, ``metrics:``, keyed ``scores:``, ...) are
    converted first (:mod:`autobench.records._legacy`). ``text`` is the file's text, to
    locate a mismatch (see :func:`validate_record`)."""
    body = upgrade_run_body(body)
    run = body.get("run")
    observations = body.get("observations")
    if isinstance(run, dict) and isinstance(observations, list):
        for observation in observations:
            if isinstance(observation, dict):
                observation.setdefault("case", run.get("case"))
                observation.setdefault("variant", run.get("variant"))
    trace = body.get("trace")
    if isinstance(trace, dict):
        if "artifact" in trace:
            body["trace"] = validate_record(
                TraceSummary, trace, source=source, text=text, at=("trace",)
            )
        else:
            body["trace"] = validate_record(
                Trace, _restore_trace(trace), source=source, text=text, at=("trace",)
            )
    return validate_record(RunRecord, body, source=source, text=text)


def experiment_record_from_yaml(text: str, *, source: Path | str | None = None) -> ExperimentRecord:
    """Read ``experiment.yaml`` text."""
    return validate_record(
        ExperimentRecord, record_body(text, "experiment", source=source), source=source, text=text
    )


def experiment_summary_from_yaml(
    text: str, *, source: Path | str | None = None
) -> ExperimentSummary:
    """Read ``summary.yaml`` text."""
    return validate_record(
        ExperimentSummary, record_body(text, "summary", source=source), source=source, text=text
    )


def trace_from_yaml(text: str, *, source: Path | str | None = None) -> Trace:
    """Read a ``trace.yaml`` artifact back into the :class:`Trace` it was written from."""
    body = _restore_trace(record_body(text, "trace", source=source))
    return validate_record(Trace, body, source=source, text=text)


def artifact_payload_from_yaml(
    text: str, *, source: Path | str | None = None
) -> tuple[dict[str, Any], Any]:
    """Read a structured artifact payload file: ``(artifact metadata, payload)``."""
    body = record_body(text, "artifact_payload", source=source)
    if "payload" not in body:
        raise RecordFormatError("artifact payload file has no `payload` section", path=source)
    artifact = body.get("artifact")
    return (artifact if isinstance(artifact, dict) else {}), body["payload"]
