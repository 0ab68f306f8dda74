"""Each task call gets its own copy of its case: what a task does to ``case.input`` stays in
that call.

A case is shared by every variant and repeat of it in the plan, and its record
(``run.yaml``) and the scorers read the planned case, never the copy. So a task that
mutates ``case.input``, ``case.expected`` or ``case.metadata`` (a nested dict or list)
changes neither another run nor the recorded case. Every attempt of a run gets a fresh
copy: a retried call sees the input as planned.

Cost: the three values are copied in one :mod:`pickle` round trip (in memory, of objects
this process holds: no foreign bytes are read), which for JSON-like data is about six
times faster than :func:`copy.deepcopy` (a 1 MB input alone: 4 to 11 ms against 24 to
70 ms). Inside a run, allocating and freeing that many objects costs more: about 50 ms per
run of a 1 MB input, 0.3 ms for a 1 KiB one (``tools/bench_case_copy.py``). A value pickle
refuses (a lock, a lambda, a live client passed from Python) falls back to
:func:`copy.deepcopy`; one that cannot be deep-copied either is handed to the task as it is.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

from autobench.records import Case


def own_case(case: Case) -> Case:
    """A copy of ``case`` whose ``input``, ``expected`` and ``metadata`` are deep copies.
    Never raises: values that can be neither pickled nor deep-copied are shared."""
    copied = _deep_copy((case.input, case.expected, case.metadata))
    own = case.__copy__()  # a new model with its own field dict; no validation again
    fields = own.__dict__
    fields["input"], fields["expected"], fields["metadata"] = copied
    return own


def _deep_copy(values: tuple[Any, ...]) -> tuple[Any, ...]:
    try:
        copied = pickle.loads(pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        try:
            copied = copy.deepcopy(values)
        except Exception:
            return values
    return tuple(copied)
