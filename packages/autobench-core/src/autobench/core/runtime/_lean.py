"""Lean runs: what an experiment recording to a directory keeps of each finished run.

Once a run is handed to a record directory its files hold all of it; the session then
needs only its evidence (status, ids, scores, observations, errors, artifact references)
for post-derivation, the summary and the closing report. :func:`lean_run` gives that
record, the shape ``replay_experiment(DIR, evidence_only=True)`` reads back: no task
output and no trace (the case and variant stay: they are the plan's own objects, shared
by every run of them, so keeping them costs nothing).

Each pydantic model also carries the set of the fields it was given (a ``set`` of up to a
dozen names: about 200 to 700 bytes, more than most of the values). The record models
are frozen and ``model_copy`` copies that set before adding to it, so records with the
same fields can share one: :func:`lean_run` replaces each model's set by a shared one
(as the ABP collector does for spans and the records for trusted observations). A
trivial run so goes from about 10 KB to about 3 KB in memory.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from autobench.records import RunRecord

_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
"""One shared ``set`` per distinct fields-set met (a few dozen shapes in a process)."""

_LEFT_OUT = frozenset({"output", "trace"})
_set = object.__setattr__


def lean_run(run: RunRecord) -> RunRecord:
    """``run`` without its task output and trace (``None``, and not among its set fields),
    its models sharing their fields-sets (see the module docstring). ``run`` itself is
    not changed (its nested models are shared with the result, each with an equal set)."""
    lean = run.model_copy(update={"output": None, "trace": None})
    _set(lean, "__pydantic_fields_set__", _shared(run.__pydantic_fields_set__ - _LEFT_OUT))
    for value in lean.__dict__.values():
        share_fields_sets(value)
    return lean


def _shared(fields: set[str] | frozenset[str]) -> set[str]:
    key = frozenset(fields)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        shared = _FIELDS_SETS.setdefault(key, set(key))
    return shared


def share_fields_sets(value: Any) -> None:
    """Give ``value`` (a frozen model, or a tuple, list or dict of them) and the frozen
    models inside it shared fields-sets; anything else (a model that can be changed, whose
    set grows when it is) is left alone. The models are changed in place, and stay equal."""
    if isinstance(value, BaseModel) and value.model_config.get("frozen"):
        fields = value.__pydantic_fields_set__
        shared = _shared(fields)
        if fields is not shared:
            _set(value, "__pydantic_fields_set__", shared)
        for inner in value.__dict__.values():
            if isinstance(inner, BaseModel | tuple | list | dict):
                share_fields_sets(inner)
    elif isinstance(value, tuple | list):
        for item in value:
            if isinstance(item, BaseModel):
                share_fields_sets(item)
    elif isinstance(value, dict):
        for item in value.values():
            if isinstance(item, BaseModel):
                share_fields_sets(item)
