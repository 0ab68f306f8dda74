"""The report's per-run rows: :class:`RunMetricRow`, and :class:`RunRows`, which holds them as
columns.

A report of a million runs has a million rows; one :class:`RunMetricRow` model each would
take about a kilobyte per run. :class:`RunRows` keeps the rows as the columns the metric
table already holds (ids and statuses, each semantic type's values by run, the policies)
plus what only the runs that did not pass have (their reason and error location), and
builds a row when one is asked for. It is a sequence of rows like the tuple it replaces
(``rows[i]`` an equal model; iterating builds one row at a time and keeps none), so every
reader works on it unchanged; readers of every row (the exports) read the columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import compress, count, repeat
from operator import is_not
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import core_schema

from autobench.records import ErrorLocation, RunStatus


def not_passed(statuses: Sequence[RunStatus]) -> list[int]:
    """The positions of the statuses that are not ``passed``, in order (picked in C, not a
    Python test per run)."""
    return list(compress(count(), map(is_not, statuses, repeat(RunStatus.PASSED))))


class ReportModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RunMetricRow(ReportModel):
    """One run with its projected metrics: ``metrics[semantic_type]`` in canonical units."""

    run_id: str
    case_id: str
    variant_id: str
    status: RunStatus
    task_status: str
    evaluation_status: str
    metrics: dict[str, Any] = Field(default_factory=dict)
    policies: dict[str, bool] = Field(default_factory=dict)
    """Each policy's result for this run, by policy name."""
    reason: str | None = None
    location: ErrorLocation | None = None
    """Where the error ``reason`` names was raised: the innermost frame of the user's code
    (its file as the record names it: relative to the spec's directory when under it)."""
    traceback_key: str | None = None
    """The key of that error's full traceback in the run's record (``errors[0].traceback``)."""
    record_path: str | None = None
    """The run's record file, relative to the experiment directory."""


Details = tuple[str | None, ErrorLocation | None, str | None]
"""A run's ``(reason, location, traceback_key)`` (for a run that did not pass)."""

_NO_DETAILS: Details = (None, None, None)


class RunRows(Sequence[RunMetricRow]):
    """Per-run rows as columns (each a sequence in run order): ids, statuses, the task's
    and the evaluation's status values; ``metrics`` maps each semantic type (in the report's
    order) to its value per run (``None``: the run has none); ``policies`` gives each run's
    policy results by name; ``details`` the :data:`Details` of the runs that have any, by
    position; ``paths`` maps a run id to its record path (called once, when a row is first
    built: a plan's million paths are read only then)."""

    def __init__(
        self,
        *,
        run_ids: Sequence[str],
        case_ids: Sequence[str],
        variant_ids: Sequence[str],
        statuses: Sequence[RunStatus],
        task_statuses: Sequence[str],
        evaluation_statuses: Sequence[str],
        metrics: Mapping[str, Sequence[Any]],
        policies: Sequence[Mapping[str, bool]],
        details: Mapping[int, Details],
        paths: Callable[[], Mapping[str, str]],
    ) -> None:
        self.run_ids = run_ids
        self.case_ids = case_ids
        self.variant_ids = variant_ids
        self.statuses = statuses
        self.task_statuses = task_statuses
        self.evaluation_statuses = evaluation_statuses
        self.metrics = metrics
        self.policies = policies
        self.details = details
        self._paths = paths
        self._path_of: Mapping[str, str] | None = None

    @classmethod
    def of(cls, rows: Sequence[RunMetricRow]) -> RunRows:
        """The :class:`RunRows` of ``rows`` (:class:`RunMetricRow` models), which give back
        equal models."""
        semantic_order: dict[str, None] = {}
        for row in rows:
            semantic_order.update(dict.fromkeys(row.metrics))
        metrics = {
            semantic: [row.metrics.get(semantic) for row in rows] for semantic in semantic_order
        }
        details = {
            index: (row.reason, row.location, row.traceback_key)
            for index, row in enumerate(rows)
            if (row.reason, row.location, row.traceback_key) != _NO_DETAILS
        }
        paths = {row.run_id: row.record_path for row in rows if row.record_path is not None}
        built = cls(
            run_ids=[row.run_id for row in rows],
            case_ids=[row.case_id for row in rows],
            variant_ids=[row.variant_id for row in rows],
            statuses=[row.status for row in rows],
            task_statuses=[row.task_status for row in rows],
            evaluation_statuses=[row.evaluation_status for row in rows],
            metrics=metrics,
            policies=[dict(row.policies) for row in rows],
            details=details,
            paths=lambda: paths,
        )
        # A row's metrics in its own order (rows of other shapes may order them otherwise).
        built._orders = {index: tuple(row.metrics) for index, row in enumerate(rows)}
        return built

    _orders: dict[int, tuple[str, ...]] | None = None

    def __len__(self) -> int:
        return len(self.run_ids)

    def metrics_of(self, index: int) -> dict[str, Any]:
        """Run ``index``'s values by semantic type (the types it has a value of)."""
        order = None if self._orders is None else self._orders.get(index)
        if order is not None:
            return {semantic: self.metrics[semantic][index] for semantic in order}
        out = {}
        for semantic, values in self.metrics.items():
            value = values[index]
            if value is not None:
                out[semantic] = value
        return out

    def values(self, semantic_type: str) -> Sequence[Any]:
        """The values of ``semantic_type`` by run (``None``: the run has none)."""
        found = self.metrics.get(semantic_type)
        return (None,) * len(self) if found is None else found

    def policy_values(self, name: str) -> list[bool | None]:
        """Policy ``name``'s result by run (``None``: not evaluated for the run)."""
        return [verdicts.get(name) for verdicts in self.policies]

    def reason(self, index: int) -> str | None:
        """Why run ``index`` did not pass (``None`` for a run that passed)."""
        return self.details.get(index, _NO_DETAILS)[0]

    def record_path(self, run_id: str) -> str | None:
        """The record file of run ``run_id``, relative to the experiment directory."""
        if self._path_of is None:
            self._path_of = self._paths()
        return self._path_of.get(run_id)

    @overload
    def __getitem__(self, index: int) -> RunMetricRow: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[RunMetricRow, ...]: ...

    def __getitem__(self, index: int | slice) -> RunMetricRow | tuple[RunMetricRow, ...]:
        if isinstance(index, slice):
            return tuple(self._row(position) for position in range(len(self))[index])
        return self._row(range(len(self))[index])  # IndexError as a tuple's

    def _row(self, index: int) -> RunMetricRow:
        reason, location, traceback_key = self.details.get(index, _NO_DETAILS)
        run_id = self.run_ids[index]
        return RunMetricRow(
            run_id=run_id,
            case_id=self.case_ids[index],
            variant_id=self.variant_ids[index],
            status=self.statuses[index],
            task_status=self.task_statuses[index],
            evaluation_status=self.evaluation_statuses[index],
            metrics=self.metrics_of(index),
            policies=dict(self.policies[index]),
            reason=reason,
            location=location,
            traceback_key=traceback_key,
            record_path=self.record_path(run_id),
        )

    def __iter__(self) -> Iterator[RunMetricRow]:
        for index in range(len(self)):
            yield self._row(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RunRows | tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunRows(runs={len(self)})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        """As a model field: a :class:`RunRows` is kept as it is, a sequence of rows (or of
        their mappings) is validated row by row and held as columns; dumped as a list of
        rows."""
        validate_row = RunMetricRow.model_validate

        def validate(value: Any) -> RunRows:
            if isinstance(value, RunRows):
                return value
            if isinstance(value, str | bytes) or not isinstance(value, Sequence):
                raise ValueError("run rows must be a sequence of rows")
            return cls.of([validate_row(row) for row in value])

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda rows: [row.model_dump() for row in rows]
            ),
        )
