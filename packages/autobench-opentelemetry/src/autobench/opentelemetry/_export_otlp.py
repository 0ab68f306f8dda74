"""OTLP encodings of an experiment: the protobuf request and its OTLP JSON form.

Both come from the official encoder (``opentelemetry-exporter-otlp-proto-common``), the
one the OTLP exporters use, over the spans of :mod:`autobench.opentelemetry._export_spans`.

OTLP JSON is the proto3 JSON mapping of ``ExportTraceServiceRequest`` with the changes
the OTLP specification makes: field names in lowerCamelCase, enums as integers, and trace
and span ids as hex strings (not base64). The file is one line: a JSON Lines file of one
request, which a collector's ``otlpjsonfile`` receiver reads and which is a valid body for
``POST /v1/traces`` with ``Content-Type: application/json``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

from autobench.opentelemetry._export_spans import experiment_spans
from autobench.records import ExperimentResult
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId"})
"""The OTLP JSON fields that hold ids (hex in OTLP JSON, base64 in proto3 JSON)."""


def otlp_request(result: ExperimentResult) -> ExportTraceServiceRequest:
    """The ``ExportTraceServiceRequest`` holding every run of ``result`` (one resource)."""
    return encode_spans(experiment_spans(result))


def otlp_json(request: ExportTraceServiceRequest) -> str:
    """``request`` as OTLP JSON: one line, ended by a newline (rules in the module docstring)."""
    mapped = MessageToDict(request, use_integers_for_enums=True)
    return json.dumps(_hex_ids(mapped), separators=(",", ":"), ensure_ascii=False) + "\n"


def _hex_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: base64.b64decode(item).hex()
            if key in ID_FIELDS and isinstance(item, str)
            else _hex_ids(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(item) for item in value]
    return value
