"""The index's tables: one Arrow schema per table, and the rows a replayed run gives.

Every row names its run (``run_id``, ``case_id``, ``variant_id``) and the sha256 of the
run file it came from (``file_sha256``), so a row read from the index is always tied to
the bytes of the YAML record. The experiment (``benchmark``, ``experiment``) is in the
hive-style partition path, not in the files: readers that understand hive partitions
(DuckDB, Polars, Spark, Ray Data) add them as columns. docs/scale.md documents each column.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from autobench.abp import SpanRecord, Trace
from autobench.index._arrow import column_array
from autobench.index._values import to_json, value_columns
from autobench.records import PLAN_COLUMNS, PlannedRun, RunRecord, plan_column

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
    """Rows of every table, gathered column-wise while runs are added: one list per
    column, appended to in schema order (no per-row mapping), turned into Arrow at once."""

    def __init__(self) -> None:
        self.runs = 0
        self.columns: dict[str, list[list[Any]]] = {
            table: [[] for _ in schema] for table, schema in SCHEMAS.items()
        }

    def add_run(
        self, run: RunRecord, *, path: str, sha256: str, record_json: str, trace: Trace | None
    ) -> None:
        """The rows of ``run`` (replayed evidence, stored at ``path`` with file hash
        ``sha256``) and of ``trace`` (its spans and LLM calls; ``None``: none)."""
        self.runs += 1
        run_id, case_id, variant_id = run.run_id, run.case_id, run.variant_id
        info = run.run
        first = run.errors[0] if run.errors else None
        _append(
            self.columns["runs"],
            (
                run_id,
                case_id,
                variant_id,
                info.index,
                info.repeat,
                _enum(run.status),
                _enum(run.task_status),
                _enum(run.evaluation_status),
                info.started_at,
                info.duration,
                to_json(run.variant.factor_values),
                len(run.errors),
                None if first is None else f"{first.type}: {first.message}",
                path,
                sha256,
                record_json,
            ),
        )
        columns = self.columns["observations"]
        for o in run.observations:
            num, flag, text, js = value_columns(o.value)
            _append(
                columns,
                (
                    run_id,
                    case_id,
                    variant_id,
                    o.id,
                    o.name,
                    _enum(o.kind),
                    o.semantic_type,
                    num,
                    flag,
                    text,
                    js,
                    o.unit,
                    _enum(o.direction),
                    _enum(o.role),
                    _enum(o.source),
                    o.span_id,
                    o.reason,
                    to_json(o.tags),
                    sha256,
                ),
            )
        columns = self.columns["scores"]
        for s in run.scores:
            num, flag, text, js = value_columns(s.value)
            _append(
                columns,
                (
                    run_id,
                    case_id,
                    variant_id,
                    s.name,
                    s.semantic_type,
                    num,
                    flag,
                    text,
                    js,
                    s.unit,
                    _enum(s.direction),
                    _enum(s.role),
                    s.reason,
                    s.error,
                    s.optional,
                    s.span_id,
                    sha256,
                ),
            )
        if trace is not None:
            keys = (run_id, case_id, variant_id)
            for span in trace.spans:
                self._add_span(keys, sha256, trace.id, span)

    def _add_span(
        self, keys: tuple[str, str, str], sha256: str, trace_id: str, span: SpanRecord
    ) -> None:
        _append(
            self.columns["spans"],
            (
                *keys,
                trace_id,
                span.id,
                span.parent,
                span.operation,
                span.kind,
                span.scope,
                _enum(span.status),
                span.started_at,
                span.offset,
                span.duration,
                span.partial,
                None if span.error is None else span.error.type,
                to_json(span.attributes),
                to_json(span.usage),
                sha256,
            ),
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
        _append(
            self.columns["llm_calls"],
            (
                *keys,
                span.id,
                span.operation,
                None if provider is None else str(provider),
                None if model is None else str(model),
                inputs,
                outputs,
                total,
                span.duration,
                _enum(span.status),
                sha256,
            ),
        )

    def tables(self) -> Iterator[tuple[str, pa.Table]]:
        """Each table's name and Arrow table (rows in the order runs were added)."""
        for name, schema in SCHEMAS.items():
            yield name, pa.Table.from_arrays(_arrays(self.columns[name], schema), schema=schema)

    def take_batches(self) -> Iterator[tuple[str, pa.RecordBatch]]:
        """Each table's name and the rows gathered since the last call, as one record
        batch; the columns are emptied (what a live index writes group by group)."""
        for name, schema in SCHEMAS.items():
            columns = self.columns[name]
            yield name, pa.RecordBatch.from_arrays(_arrays(columns, schema), schema=schema)
            self.columns[name] = [[] for _ in schema]
        self.runs = 0


def _append(columns: list[list[Any]], row: tuple[Any, ...]) -> None:
    for column, value in zip(columns, row, strict=True):
        column.append(value)


def _arrays(columns: list[list[Any]], schema: pa.Schema) -> list[pa.Array]:
    return [column_array(column, field.type) for column, field in zip(columns, schema, strict=True)]


PLAN_SCHEMA = pa.schema([(name, pa.string()) for name in PLAN_COLUMNS])
"""The plan's table (``plan.parquet``): a planned run's fields, one row per planned run."""


def plan_table(plan: Sequence[PlannedRun]) -> pa.Table:
    """The plan's table of ``plan``, in plan order (columns as :func:`plan_column` gives
    them, so a plan read from an index is written back as it is)."""
    return pa.Table.from_arrays(
        [column_array(plan_column(plan, field.name), field.type) for field in PLAN_SCHEMA],
        schema=PLAN_SCHEMA,
    )
