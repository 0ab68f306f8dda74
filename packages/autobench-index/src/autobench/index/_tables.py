"""The index's tables: one Arrow schema per table, and the rows a replayed run gives.

Every row names its run (``run_id``, ``case_id``, ``variant_id``) and the sha256 of the
run file it came from (``file_sha256``), so a row read from the index is always tied to
the bytes of the YAML record. The experiment (``benchmark``, ``experiment``) is in the
hive-style partition path, not in the files: readers that understand hive partitions
(DuckDB, Polars, Spark, Ray Data) add them as columns. docs/scale.md documents each column.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pyarrow as pa

from autobench.abp import SpanRecord, Trace
from autobench.index._values import to_json, value_columns
from autobench.records import RunRecord

_KEYS = [
    ("run_id", pa.string()),
    ("case_id", pa.string()),
    ("variant_id", pa.string()),
]
_FILE = [("file_sha256", pa.string())]
_VALUE = [
    ("value_num", pa.float64()),
    ("value_bool", pa.bool_()),
    ("value_text", pa.string()),
    ("value_json", pa.string()),
]
_TIME = pa.timestamp("us", tz="UTC")

SCHEMAS: dict[str, pa.Schema] = {
    "runs": pa.schema(
        [
            *_KEYS,
            ("run_index", pa.int64()),
            ("repeat", pa.int64()),
            ("status", pa.string()),
            ("task_status", pa.string()),
            ("evaluation_status", pa.string()),
            ("started_at", _TIME),
            ("duration_s", pa.float64()),
            ("factors_json", pa.string()),
            ("error_count", pa.int64()),
            ("first_error", pa.string()),
            ("path", pa.string()),
            *_FILE,
            ("record_json", pa.string()),
        ]
    ),
    "observations": pa.schema(
        [
            *_KEYS,
            ("observation_id", pa.string()),
            ("name", pa.string()),
            ("kind", pa.string()),
            ("semantic_type", pa.string()),
            *_VALUE,
            ("unit", pa.string()),
            ("direction", pa.string()),
            ("role", pa.string()),
            ("source", pa.string()),
            ("span_id", pa.string()),
            ("reason", pa.string()),
            ("tags_json", pa.string()),
            *_FILE,
        ]
    ),
    "scores": pa.schema(
        [
            *_KEYS,
            ("name", pa.string()),
            ("semantic_type", pa.string()),
            *_VALUE,
            ("unit", pa.string()),
            ("direction", pa.string()),
            ("role", pa.string()),
            ("reason", pa.string()),
            ("error", pa.string()),
            ("optional", pa.bool_()),
            ("span_id", pa.string()),
            *_FILE,
        ]
    ),
    "spans": pa.schema(
        [
            *_KEYS,
            ("trace_id", pa.string()),
            ("span_id", pa.string()),
            ("parent_id", pa.string()),
            ("operation", pa.string()),
            ("kind", pa.string()),
            ("scope", pa.string()),
            ("status", pa.string()),
            ("started_at", _TIME),
            ("offset_s", pa.float64()),
            ("duration_s", pa.float64()),
            ("partial", pa.bool_()),
            ("error_type", pa.string()),
            ("attributes_json", pa.string()),
            ("usage_json", pa.string()),
            *_FILE,
        ]
    ),
    "llm_calls": pa.schema(
        [
            *_KEYS,
            ("span_id", pa.string()),
            ("operation", pa.string()),
            ("provider", pa.string()),
            ("model", pa.string()),
            ("input_tokens", pa.int64()),
            ("output_tokens", pa.int64()),
            ("total_tokens", pa.int64()),
            ("duration_s", pa.float64()),
            ("status", pa.string()),
            *_FILE,
        ]
    ),
}
"""Every table of the index, by name, and its columns."""

TABLES: tuple[str, ...] = tuple(SCHEMAS)

_MODEL_KEYS = (
    "response_model",
    "llm.model.response",
    "model",
    "model_name",
    "llm.model.name",
    "request_model",
    "requested_model",
    "llm.model.requested",
    "gen_ai.response.model",
    "gen_ai.request.model",
)
_PROVIDER_KEYS = (
    "provider",
    "provider_name",
    "llm.provider",
    "gen_ai.provider.name",
    "gen_ai.system",
)
_INPUT_KEYS = ("input_tokens", "prompt_tokens", "request_tokens")
_OUTPUT_KEYS = ("output_tokens", "completion_tokens", "response_tokens")


def _enum(value: Any) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


def _first(mapping: Mapping[str, Any], keys: Iterable[str]) -> Any:
    return next((mapping[key] for key in keys if mapping.get(key) is not None), None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class TableRows:
    """Rows of every table, gathered column-wise while runs are added."""

    def __init__(self) -> None:
        self.columns: dict[str, dict[str, list[Any]]] = {
            table: {field.name: [] for field in schema} for table, schema in SCHEMAS.items()
        }

    def _add(self, table: str, row: Mapping[str, Any]) -> None:
        for name, column in self.columns[table].items():
            column.append(row.get(name))

    def add_run(
        self, run: RunRecord, *, path: str, sha256: str, record_json: str, trace: Trace | None
    ) -> None:
        """The rows of ``run`` (replayed evidence, stored at ``path`` with file hash
        ``sha256``) and of ``trace`` (its spans and LLM calls; ``None``: none)."""
        keys = {
            "run_id": run.run_id,
            "case_id": run.case_id,
            "variant_id": run.variant_id,
            "file_sha256": sha256,
        }
        first = run.errors[0] if run.errors else None
        self._add(
            "runs",
            {
                **keys,
                "run_index": run.run.index,
                "repeat": run.run.repeat,
                "status": _enum(run.status),
                "task_status": _enum(run.task_status),
                "evaluation_status": _enum(run.evaluation_status),
                "started_at": run.run.started_at,
                "duration_s": run.run.duration,
                "factors_json": to_json(run.variant.factor_values),
                "error_count": len(run.errors),
                "first_error": None if first is None else f"{first.type}: {first.message}",
                "path": path,
                "record_json": record_json,
            },
        )
        for o in run.observations:
            num, flag, text, js = value_columns(o.value)
            self._add(
                "observations",
                {
                    **keys,
                    "observation_id": o.id,
                    "name": o.name,
                    "kind": _enum(o.kind),
                    "semantic_type": o.semantic_type,
                    "value_num": num,
                    "value_bool": flag,
                    "value_text": text,
                    "value_json": js,
                    "unit": o.unit,
                    "direction": _enum(o.direction),
                    "role": _enum(o.role),
                    "source": _enum(o.source),
                    "span_id": o.span_id,
                    "reason": o.reason,
                    "tags_json": to_json(o.tags),
                },
            )
        for s in run.scores:
            num, flag, text, js = value_columns(s.value)
            self._add(
                "scores",
                {
                    **keys,
                    "name": s.name,
                    "semantic_type": s.semantic_type,
                    "value_num": num,
                    "value_bool": flag,
                    "value_text": text,
                    "value_json": js,
                    "unit": s.unit,
                    "direction": _enum(s.direction),
                    "role": _enum(s.role),
                    "reason": s.reason,
                    "error": s.error,
                    "optional": s.optional,
                    "span_id": s.span_id,
                },
            )
        if trace is not None:
            for span in trace.spans:
                self._add_span(keys, trace.id, span)

    def _add_span(self, keys: Mapping[str, Any], trace_id: str, span: SpanRecord) -> None:
        self._add(
            "spans",
            {
                **keys,
                "trace_id": trace_id,
                "span_id": span.id,
                "parent_id": span.parent,
                "operation": span.operation,
                "kind": span.kind,
                "scope": span.scope,
                "status": _enum(span.status),
                "started_at": span.started_at,
                "offset_s": span.offset,
                "duration_s": span.duration,
                "partial": span.partial,
                "error_type": None if span.error is None else span.error.type,
                "attributes_json": to_json(span.attributes),
                "usage_json": to_json(span.usage),
            },
        )
        if span.kind != "llm":
            return
        usage = span.usage
        inputs, outputs = _int(_first(usage, _INPUT_KEYS)), _int(_first(usage, _OUTPUT_KEYS))
        total = _int(usage.get("total_tokens"))
        if total is None and inputs is not None and outputs is not None:
            total = inputs + outputs
        model = _first(span.attributes, _MODEL_KEYS)
        provider = _first(span.attributes, _PROVIDER_KEYS)
        self._add(
            "llm_calls",
            {
                **keys,
                "span_id": span.id,
                "operation": span.operation,
                "provider": None if provider is None else str(provider),
                "model": None if model is None else str(model),
                "input_tokens": inputs,
                "output_tokens": outputs,
                "total_tokens": total,
                "duration_s": span.duration,
                "status": _enum(span.status),
            },
        )

    def tables(self) -> Iterator[tuple[str, pa.Table]]:
        """Each table's name and Arrow table (rows in the order runs were added)."""
        for name, schema in SCHEMAS.items():
            yield name, pa.table(self.columns[name], schema=schema)
