"""Typed progress events of a live experiment, for terminals, services and UIs.

Events come in this order: one ``experiment_started``, then for each run a
``run_started`` and a ``run_finished`` (interleaved when runs are concurrent),
then one ``experiment_finished``. The fields are stable; event-specific data
goes in ``payload``:

* ``run_finished``: ``{"duration": seconds, "task": task status, "evaluation": evaluation status}``
* ``experiment_finished``: ``{"duration": seconds, "counts": {status: runs}}``
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

_log = logging.getLogger("autobench.runtime")


class ProgressEventKind(StrEnum):
    EXPERIMENT_STARTED = "experiment_started"
    RUN_STARTED = "run_started"
    RUN_FINISHED = "run_finished"
    EXPERIMENT_FINISHED = "experiment_finished"


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """One lifecycle notification.

    ``index`` is the run's plan position (``None`` for experiment events),
    ``total`` the number of planned runs, ``completed`` how many runs had
    finished when the event was sent, and ``status`` the run status value
    (``run_finished`` only).
    """

    kind: ProgressEventKind
    experiment_id: str
    total: int
    completed: int
    run_id: str | None = None
    case_id: str | None = None
    variant_id: str | None = None
    index: int | None = None
    status: str | None = None
    payload: Mapping[str, Any] = field(default_factory=dict)


ProgressCallback = Callable[[ProgressEvent], None]


def deliver(callback: ProgressCallback | None, event: ProgressEvent) -> None:
    """Hand ``event`` to ``callback``; an exception in the callback is logged and swallowed,
    so a broken progress display never breaks the experiment."""
    if callback is None:
        return
    try:
        callback(event)
    except Exception:
        _log.warning("progress callback raised on %s; continuing", event.kind.value, exc_info=True)
