"""Saying what a record does not keep, when a scorer raised for want of it.

A re-scored scorer sees the run as its record keeps it (:func:`recorded_call`). Two
things a live run had are not there: the run context (``call.ctx`` is ``None``), and
values the record could only keep as their type and ``repr`` (``!opaque``). When a
scorer raises on a run and one of these is the likely cause, the error says so, with
the run file and the place in the scorer's code the error came from.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from autobench.records import ErrorRecord, OpaqueValue, RunRecord, ScoreRecord


def explained(
    score: ScoreRecord, errors: tuple[ErrorRecord, ...], run: RunRecord, run_path: str
) -> tuple[ScoreRecord, tuple[ErrorRecord, ...]]:
    """``score`` and its ``errors`` with a note on what the record lacks appended to the
    error messages, when a scorer error points at it; unchanged otherwise."""
    if score.error is None or not errors:
        return score, errors
    note = _note(errors[0], run, run_path)
    if note is None:
        return score, errors
    return (
        score.model_copy(update={"error": f"{score.error} ({note})"}),
        (errors[0].model_copy(update={"message": f"{errors[0].message} ({note})"}), *errors[1:]),
    )


def _note(error: ErrorRecord, run: RunRecord, run_path: str) -> str | None:
    where = f" at {error.location}" if error.location is not None else ""
    if error.type == "AttributeError" and "'NoneType' object" in error.message:
        return (
            f"{run_path}: a record keeps no run context, so call.ctx is None when re-scoring; "
            f"the scorer{where} needs it: score from call.output, call.case, "
            "call.observations or call.spans"
        )
    opaque = next(_opaque(run.output, "output"), None)
    if opaque is not None:
        path, value = opaque
        return (
            f"{run_path}: the record keeps {path} only as the repr of a {value.type} "
            f"(!opaque), not the object the scorer{where} saw at run time"
        )
    return None


def _opaque(value: Any, path: str) -> Iterator[tuple[str, OpaqueValue]]:
    if isinstance(value, OpaqueValue):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _opaque(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _opaque(item, f"{path}[{index}]")
