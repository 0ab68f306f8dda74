"""JSON schemas of the record files, and the reference record files give to them.

Each schema's ``$id`` is ``urn:autobench:schemas/<version>/<type>.schema.json``:
it names the record type and the Autobench version, never a path of a machine.
The text the codec makes in memory starts with ``# yaml-language-server: $schema=<id>``;
a record directory writes the file with that line replaced by a relative path
(:func:`local_schema_reference`) to its own copy of the schema,
``<record root>/schemas/<version>/<type>.schema.json``, which it writes beside
the first file of that type. yaml-language-server resolves a relative path
against the YAML file, so every record file opens with completion and
validation without editor settings, on the machine that wrote it or any other
the directory is copied to, and still names nothing of the writing machine.
The repository's ``schemas/`` directory holds the same files, produced by
``tools/generate_schemas.py``; :func:`ensure_schema_cache` writes a copy under
``AUTOBENCH_HOME`` for editors whose settings map schema ids to files.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import threading
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from autobench.abp import Trace
from autobench.records._evidence import ArtifactRef
from autobench.records._extraction_record import EXTRACTION_RECORD_VERSION, ExtractionRecord
from autobench.records._labels_model import LABELS_VERSION, LabelsFile
from autobench.records._pairwise_record import PAIRWISE_RECORD_VERSION, PairwiseRecord
from autobench.records._post_derived import POST_DERIVED_RECORD_VERSION, PostDerivedRecord
from autobench.records._records import (
    EXPERIMENT_RECORD_VERSION,
    RUN_RECORD_VERSION,
    SUMMARY_RECORD_VERSION,
    TRACE_RECORD_VERSION,
    ExperimentRecord,
    ExperimentSummary,
    RunRecord,
)
from autobench.records._rescore_record import RESCORE_RECORD_VERSION, RescoreRecord

SCHEMA_BASE_URL = "urn:autobench:schemas"
"""The prefix of every record schema ``$id``: a name, not a host (the files ship in the
repository's ``schemas/`` directory and :func:`ensure_schema_cache` writes a local copy)."""

ARTIFACT_RECORD_VERSION = 1
ARTIFACT_PAYLOAD_RECORD_VERSION = 1

RECORD_VERSIONS: dict[str, int] = {
    "run": RUN_RECORD_VERSION,
    "experiment": EXPERIMENT_RECORD_VERSION,
    "summary": SUMMARY_RECORD_VERSION,
    "trace": TRACE_RECORD_VERSION,
    "artifact": ARTIFACT_RECORD_VERSION,
    "artifact_payload": ARTIFACT_PAYLOAD_RECORD_VERSION,
    "post_derived": POST_DERIVED_RECORD_VERSION,
    "extraction": EXTRACTION_RECORD_VERSION,
    "labels": LABELS_VERSION,
    "rescore": RESCORE_RECORD_VERSION,
    "pairwise": PAIRWISE_RECORD_VERSION,
}
"""Record type -> the newest version this Autobench writes and reads."""

_TITLES = {
    "run": "Autobench run record (run.yaml)",
    "experiment": "Autobench experiment record (experiment.yaml)",
    "summary": "Autobench experiment summary (summary.yaml)",
    "trace": "Autobench ABP trace artifact (trace.yaml)",
    "artifact": "Autobench artifact reference",
    "artifact_payload": "Autobench structured artifact payload",
    "post_derived": "Autobench post-derived observations (post_derived.yaml)",
    "extraction": "Autobench extraction replay record (derived/.../extraction.yaml)",
    "labels": "Autobench human labels (labels.yaml beside a record)",
    "rescore": "Autobench re-scoring record (derived/rescore/.../score.yaml)",
    "pairwise": "Autobench pairwise judging record (derived/pairwise/.../<baseline>~<candidate>.yaml)",
}


@functools.cache
def autobench_version() -> str:
    """The installed Autobench version (of the ``autobench-records`` distribution)."""
    try:
        return metadata.version("autobench-records")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def schema_dir() -> Path:
    """``$AUTOBENCH_HOME/<version>/schemas`` (``AUTOBENCH_HOME`` defaults to ``~/.autobench``)."""
    home = os.environ.get("AUTOBENCH_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".autobench"
    return base / autobench_version() / "schemas"


def schema_id(record_type: str) -> str:
    """The ``$id`` of the schema of ``record_type`` files written by this Autobench version:
    ``<SCHEMA_BASE_URL>/<version>/<type>.schema.json`` (the same on every machine)."""
    return f"{SCHEMA_BASE_URL}/{autobench_version()}/{record_type}.schema.json"


def _header_schema(record_type: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Record type and format version.",
        "properties": {
            "type": {"const": record_type},
            "version": {"type": "integer", "minimum": 1},
        },
        "required": ["type", "version"],
        "additionalProperties": False,
    }


DATE_TIME_PATTERN = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
"""A timestamp as a record writes it: YAML's form (``2026-01-02 03:04:05.6+00:00``, a space
between date and time) or RFC 3339's (``T``). JSON Schema's ``date-time`` format allows
only the second, so editors would flag every timestamp of a valid record."""


def _yaml_timestamps(node: Any) -> None:
    """Replace every ``format: date-time`` under ``node`` by :data:`DATE_TIME_PATTERN`."""
    if isinstance(node, dict):
        if node.get("format") == "date-time":
            del node["format"]
            node["pattern"] = DATE_TIME_PATTERN
        for value in node.values():
            _yaml_timestamps(value)
    elif isinstance(node, list):
        for value in node:
            _yaml_timestamps(value)


def _scopes_by_name(defs: dict[str, Any]) -> None:
    """A trace writes ``scopes`` as a mapping keyed by scope name, without ``name`` inside."""
    scope = defs.get("InstrumentationScope")
    trace = defs.get("Trace")
    if scope is None or trace is None or "scopes" not in trace.get("properties", {}):
        return
    keyed = copy.deepcopy(scope)
    keyed["properties"].pop("name", None)
    keyed["required"] = [name for name in keyed.get("required", []) if name != "name"]
    keyed["title"] = "InstrumentationScope (keyed by name)"
    defs["KeyedInstrumentationScope"] = keyed
    trace["properties"]["scopes"]["additionalProperties"] = {
        "$ref": "#/$defs/KeyedInstrumentationScope"
    }


def _file_schema(record_type: str, model: type[BaseModel] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"properties": {}, "required": []}
    if model is not None:
        body = copy.deepcopy(model.model_json_schema())
    _yaml_timestamps(body)
    defs = body.get("$defs", {})
    if model is Trace:  # the trace file's top level is the Trace model itself
        defs["Trace"] = {"properties": body.get("properties", {})}
        _scopes_by_name(defs)
        body["properties"] = defs.pop("Trace")["properties"]
    else:
        _scopes_by_name(defs)
    variant = defs.get("Variant")
    if variant is not None:
        listed = variant["properties"]["factors"]
        variant["properties"]["factors"] = {
            "title": "Factors",
            "description": "Factor name -> value, or {value, semantic, optimize, description}.",
            "anyOf": [{"type": "object"}, {"type": "array", "items": listed["items"]}],
        }
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(record_type),
        "title": _TITLES[record_type],
        "type": "object",
        "properties": {"record": _header_schema(record_type), **body.get("properties", {})},
        "required": ["record", *body.get("required", [])],
        "additionalProperties": model is None or model.model_config.get("extra") != "allow",
    }
    if defs:
        schema["$defs"] = defs
    return schema


def _artifact_payload_schema() -> dict[str, Any]:
    schema = _file_schema("artifact_payload", None)
    schema["properties"]["artifact"] = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "media": {"type": "string"},
        },
        "required": ["id", "name"],
    }
    schema["properties"]["payload"] = {"description": "The payload, any YAML value."}
    schema["required"].append("payload")
    return schema


def _artifact_schema() -> dict[str, Any]:
    schema = _file_schema("artifact", None)
    ref = copy.deepcopy(ArtifactRef.model_json_schema())
    schema["properties"]["artifact"] = ref
    schema["required"].append("artifact")
    return schema


def _labels_schema() -> dict[str, Any]:
    """A labels file: typed by people too, so its ``record`` header is optional."""
    schema = _file_schema("labels", LabelsFile)
    schema["required"].remove("record")
    return schema


_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "run": lambda: _file_schema("run", RunRecord),
    "experiment": lambda: _file_schema("experiment", ExperimentRecord),
    "summary": lambda: _file_schema("summary", ExperimentSummary),
    "trace": lambda: _file_schema("trace", Trace),
    "artifact": _artifact_schema,
    "artifact_payload": _artifact_payload_schema,
    "post_derived": lambda: _file_schema("post_derived", PostDerivedRecord),
    "extraction": lambda: _file_schema("extraction", ExtractionRecord),
    "labels": _labels_schema,
    "rescore": lambda: _file_schema("rescore", RescoreRecord),
    "pairwise": lambda: _file_schema("pairwise", PairwiseRecord),
}


def record_schemas() -> dict[str, dict[str, Any]]:
    """Record type -> JSON schema (draft 2020-12) of that record file."""
    return {record_type: build() for record_type, build in _BUILDERS.items()}


def schema_text(schema: dict[str, Any]) -> str:
    """The canonical text of a schema file (2-space JSON, trailing newline)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


_ensured: set[Path] = set()
_lock = threading.Lock()


def ensure_schema_cache() -> Path:
    """Write missing schema files into :func:`schema_dir` (once per process and directory).

    Storage errors are ignored: an unwritable cache only costs editor completion.
    """
    directory = schema_dir()
    with _lock:
        if directory in _ensured:
            return directory
        _ensured.add(directory)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for record_type, schema in record_schemas().items():
                target = directory / f"{record_type}.schema.json"
                if target.exists():
                    continue
                temporary = directory / f".{target.name}.{os.getpid()}.tmp"
                temporary.write_text(schema_text(schema), encoding="utf-8")
                os.replace(temporary, target)
        except OSError:
            pass
    return directory


def schema_url(record_type: str) -> str:
    """The reference a record file's schema comment gives: :func:`schema_id`. It names no
    local path, so a record reads the same wherever it was written or copied."""
    return schema_id(record_type)


SCHEMA_HEADER_PREFIX = b"# yaml-language-server: $schema=" + SCHEMA_BASE_URL.encode() + b"/"
"""How the first line of a record text the codec made begins."""

RECORD_SCHEMA_DIR = "schemas"
"""The directory of a record root that holds its schema copies, one subdirectory per version."""


def local_schema_reference(data: bytes) -> tuple[str, str, int] | None:
    """``(version, record_type, end of line)`` of ``data``'s ``$schema=urn:...`` first line, or
    ``None`` when ``data`` does not start with one (any other file, or a foreign header)."""
    if not data.startswith(SCHEMA_HEADER_PREFIX):
        return None
    end = data.find(b"\n")
    if end < 0:
        return None
    rest = data[len(SCHEMA_HEADER_PREFIX) : end].decode("utf-8", "replace")
    version, _, name = rest.partition("/")
    record_type = name.removesuffix(".schema.json")
    if not version or record_type == name or record_type not in RECORD_VERSIONS:
        return None
    return version, record_type, end


def record_schema_path(root: Path, version: str, record_type: str) -> Path:
    """``<root>/schemas/<version>/<type>.schema.json``: a record directory's copy of a schema."""
    return root / RECORD_SCHEMA_DIR / version / f"{record_type}.schema.json"


@functools.cache
def record_schema_text(record_type: str) -> str:
    """The canonical text of ``record_type``'s schema for this Autobench version (cached;
    only that schema is built). Raises ``KeyError`` for an unknown type."""
    return schema_text(_BUILDERS[record_type]())


def relative_schema_header(path: Path, schema: Path) -> bytes:
    """The first line of the record file ``path``: ``$schema=`` the POSIX path of ``schema``
    relative to ``path``'s directory (both under one record root)."""
    relative = Path(os.path.relpath(schema, path.parent)).as_posix()
    return f"# yaml-language-server: $schema={relative}".encode()
