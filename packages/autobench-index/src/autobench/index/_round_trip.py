"""Whether a run record reads back from its JSON text as the same record.

The index keeps each run's record as JSON (``runs.record_json``) and reports read it back;
an index whose records do not all read back identically is not reportable. Checking that
by reading the JSON back (``RunRecord.model_validate_json(text) == run``) costs about as
much as validating the run in the first place, for every run of every experiment.
:func:`reads_back_from_json` answers first from the values alone, and reads back only the
records it cannot vouch for.

Pydantic writes a record's JSON from its fields: typed fields (texts, integers, enums,
times, nested records) come back as they were, and a text JSON cannot hold (a lone
surrogate) fails the dump itself. What can come back different is a non-finite float
(written ``null``) and, in a field typed ``Any``, a value that is not JSON's own: a time
comes back as a text, a tuple as a list, a mapping's integer key as a text, bytes as a
text. :data:`ANY_FIELDS` and :data:`FLOAT_FIELDS` name every such field of a run record
(``tests/index/test_round_trip.py`` checks the list against the model's fields, and the
answer against reading back on generated records); a record whose values there are all
JSON's own (``None``, ``bool``, ``int``, finite ``float``, ``str``, lists and str-keyed
mappings of them) and whose floats are finite reads back identically. Any other record is
read back.
"""

from __future__ import annotations

import math
from typing import Any

from autobench.records import RunRecord, TraceSummary

ANY_FIELDS = (
    "case.input",
    "case.expected",
    "case.metadata",
    "variant.factors.value",
    "output",
    "scores.value",
    "scores.actual_value",
    "scores.expected_value",
    "observations.value",
)
"""The fields of a run record (without its trace) that hold any value, by dotted path
(a path through a tuple field names each of its items' field)."""

FLOAT_FIELDS = ("run.duration", "attempts.duration", "attempts.queued")
"""The float fields of a run record (without its trace), by dotted path."""

_PLAIN = (str, int, bool, type(None))


def _json_own(value: Any) -> bool:
    kind = type(value)
    if kind in _PLAIN:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(_json_own(item) for item in value)
    if kind is dict:
        return all(type(key) is str and _json_own(item) for key, item in value.items())
    return False


def _finite(value: float | None) -> bool:
    return value is None or math.isfinite(value)


def vouched(run: RunRecord) -> bool:
    """Whether ``run`` reads back from its JSON identically by its values alone (module
    docstring); ``False`` means "read it back to know", never "it does not"."""
    if run.trace is not None and not isinstance(run.trace, TraceSummary):
        return False  # a trace's values are not walked here
    case = run.case
    if not (_json_own(case.input) and _json_own(case.expected) and _json_own(case.metadata)):
        return False
    if not _json_own(run.output) or not _finite(run.run.duration):
        return False
    if not all(_json_own(factor.value) for factor in run.variant.factors):
        return False
    for score in run.scores:
        if not (
            _json_own(score.value)
            and _json_own(score.actual_value)
            and _json_own(score.expected_value)
        ):
            return False
    if not all(_json_own(observation.value) for observation in run.observations):
        return False
    return all(_finite(attempt.duration) and _finite(attempt.queued) for attempt in run.attempts)


def reads_back_from_json(run: RunRecord, text: str) -> bool:
    """Whether ``RunRecord.model_validate_json(text)``, ``text`` being
    ``run.model_dump_json()``, is a record equal to ``run``: answered by :func:`vouched`
    when it can, else by reading ``text`` back."""
    return vouched(run) or RunRecord.model_validate_json(text) == run
