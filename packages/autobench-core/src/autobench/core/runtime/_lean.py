"""Lean runs: what an experiment recording to a directory keeps of each finished run.

Once a run is handed to a record directory its files hold all of it; the session then
needs only its evidence (status, ids, scores, observations, errors, artifact references)
for post-derivation, the summary and the closing report. :func:`lean_run` gives that
record, the shape ``replay_experiment(DIR, evidence_only=True)`` reads back: no task
output and no trace (the case and variant stay: they are the plan's own objects, shared
by every run of them, so keeping them costs nothing).

Its models also share their fields-sets (``autobench.records._fields_sets``). A trivial
run so goes from about 10 KB to under 4 KB in memory.
"""

from __future__ import annotations

from autobench.records import RunRecord
from autobench.records._fields_sets import share_fields_sets, shared_fields_set

_LEFT_OUT = frozenset({"output", "trace"})
_PLANNED = frozenset({"case", "variant"})
"""The plan's own objects (one per case or variant, not per run): not walked per run (a
case's input may be large)."""
_set = object.__setattr__


def lean_run(run: RunRecord) -> RunRecord:
    """``run`` without its task output and trace (``None``, and not among its set fields),
    its models sharing their fields-sets (see the module docstring). ``run`` itself is
    not changed (its nested models are shared with the result, each with an equal set)."""
    lean = run.model_copy(update={"output": None, "trace": None})
    _set(
        lean, "__pydantic_fields_set__", shared_fields_set(run.__pydantic_fields_set__ - _LEFT_OUT)
    )
    for name, value in lean.__dict__.items():
        if name not in _PLANNED:
            share_fields_sets(value)
    return lean
