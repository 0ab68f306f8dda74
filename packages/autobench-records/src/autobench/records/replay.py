"""Reading recorded experiments back, without importing or running any task.

The public module of record replay, as the documentation names it:

- :func:`load_experiment_record` reads ``<root>/experiment.yaml``;
- :func:`load_run_record` reads one ``run.yaml`` (``root_dir``: the experiment
  directory, for a trace stored as an artifact);
- :func:`replay_experiment` rebuilds the whole :class:`~autobench.records.ExperimentResult`;
- :func:`replay_extraction` / :func:`replay_experiment_extraction` run a trace
  extractor over recorded runs and write derived extraction records.

The same functions are also importable from :mod:`autobench.records`.
"""

from __future__ import annotations

from autobench.records._extraction_replay import replay_experiment_extraction, replay_extraction
from autobench.records._replay import load_experiment_record, load_run_record, replay_experiment

__all__ = [
    "load_experiment_record",
    "load_run_record",
    "replay_experiment",
    "replay_experiment_extraction",
    "replay_extraction",
]
