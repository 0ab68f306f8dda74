"""Report builders run with the cyclic garbage collector paused over large experiments.

Building a report of 10,000 runs allocates hundreds of thousands of short-lived objects
beside millions of long-lived ones (the replayed records); each automatic full collection
traverses all of them and frees nothing, which took more than half of ``compare`` on such
an experiment (`uv run python tools/bench_compare.py`). Reference counting frees the
builders' temporaries as usual; see :func:`autobench.abp.gc_paused_for`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from autobench.abp import gc_paused_for
from autobench.records import ExperimentResult

P = ParamSpec("P")
R = TypeVar("R")


def paused_over_runs(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` with the collector paused when its :class:`ExperimentResult` arguments
    hold more runs than :data:`autobench.abp._gc.PAUSE_ABOVE` (500) together."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        runs = sum(len(arg.runs) for arg in args if isinstance(arg, ExperimentResult))
        with gc_paused_for(runs):
            return function(*args, **kwargs)

    return paused
