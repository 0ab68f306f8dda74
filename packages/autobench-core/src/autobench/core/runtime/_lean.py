"""Lean sessions: what an experiment recording to a directory keeps of each finished run,
and how it reads its result back.

Once a run is handed to a record directory its files hold all of it. A session whose spec
post-derives needs the evidence of every run (status, ids, scores, observations, errors,
artifact references) for the post-derivers: :func:`lean_run` gives that record, the shape
``replay_experiment(DIR, evidence_only=True)`` reads back: no task output and no trace (the
case and variant stay: they are the plan's own objects, shared by every run of them, so
keeping them costs nothing). Its models also share their fields-sets
(``autobench.records._fields_sets``): a trivial run goes from about 10 KB to under 4 KB.

A lean session whose record gets a derived store as runs land (a record listener is
attached: autobench-index's columnar index) and that does not post-derive keeps only the
status counts the summary needs (``_experiment.StatusTally``: a few counters, whatever the
number of runs), and once the record is complete reads its result back from the record
directory (:func:`recorded_result`), as ``autobench report`` does: from the index, which reads
back in a fraction of the time and memory the runs' evidence took. Without a listener (no
index: ``--no-index``, ``AUTOBENCH_NO_INDEX``, autobench-index not installed), reading back
would be a replay of every run file (about ten times the closing time at 100,000 runs), so
the session keeps each run's evidence instead (:class:`LeanKeep` decides once the listeners
are known, before the first run ends).
"""

from __future__ import annotations

from pathlib import Path

from autobench.core.plugins import AutobenchPlugins
from autobench.core.runtime._experiment import StatusTally
from autobench.records import ExperimentResult, RunRecord, replay_experiment
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


class LeanKeep:
    """A lean session's ``RunSetup.keep``: each finished run counted by ``tally`` and then
    kept as :func:`lean_run` gives it, or, once :attr:`read_back` is set (before the first
    run ends), counted only (``None``: nothing kept; see the module docstring)."""

    __slots__ = ("read_back", "tally")

    def __init__(self, tally: StatusTally) -> None:
        self.tally = tally
        self.read_back = False

    def __call__(self, run: RunRecord) -> RunRecord | None:
        if self.read_back:
            self.tally(run)
            return None
        return lean_run(run)


DERIVED_STORES = "index"
"""The subdirectory of a record directory where derived stores (autobench-index's columnar
index) live: the plugins are asked for the result only when it exists."""


def recorded_result(
    root: Path, plugins: AutobenchPlugins | None, *, derived: bool = True
) -> ExperimentResult:
    """The experiment recorded in ``root``, evidence only: what the plugins'
    ``autobench_indexed_result`` hook gives from a fresh derived store (when ``derived`` and
    ``root`` has one), else ``replay_experiment(root, evidence_only=True)``; the two are
    equal (the hook's contract). Raises what the replay raises
    (:class:`~autobench.records.MissingRecordError`,
    :class:`~autobench.records.RecordFormatError`)."""
    if derived and plugins is not None and (root / DERIVED_STORES).is_dir():
        indexed = plugins.manager.hook.autobench_indexed_result(record_dir=root)
        if indexed is not None:
            return indexed
    return replay_experiment(root, evidence_only=True)
