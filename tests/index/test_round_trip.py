"""Whether a run record reads back from its JSON: the index's quick answer
(``autobench.index._round_trip``) against reading the JSON back, on generated records whose
values include what JSON cannot hold (times, tuples, bytes, integer keys, non-finite floats)."""

from __future__ import annotations

import datetime as dt
import types
import typing
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from autobench.abp import Trace
from autobench.index._round_trip import ANY_FIELDS, FLOAT_FIELDS, reads_back_from_json, vouched
from autobench.records import (
    AttemptRecord,
    Case,
    FactorValue,
    Observation,
    RunRecord,
    ScoreRecord,
    Variant,
)

WHEN = st.datetimes(
    min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)
)
FLOATS = st.floats() | st.sampled_from([float("nan"), float("inf"), -0.0])
JSON_OWN = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
)
OTHER = FLOATS | WHEN | WHEN.map(lambda when: when.date()) | st.binary(max_size=4)
VALUES = st.recursive(
    JSON_OWN | OTHER,
    lambda children: (
        st.lists(children, max_size=3)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=4), children, max_size=3)
        | st.dictionaries(st.integers(0, 3), children, max_size=2)
    ),
    max_leaves=6,
)
# Mostly JSON's own values, so both answers of the quick check are drawn often.
ANY = st.one_of(JSON_OWN, JSON_OWN, JSON_OWN, VALUES)
NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=6)


def _run(*, variant: Any = None, scores: Any = (), **info: Any) -> RunRecord:
    """A passed run of case ``c`` and variant ``v``; ``info``: more fields of its ``run``."""
    return RunRecord.model_validate(
        {
            "run": {
                "id": "run_0000_c_v",
                "experiment": "exp",
                "benchmark": "b",
                "case": "c",
                "variant": "v",
                "index": 0,
                "status": "passed",
                "outcome": {"task": "passed", "evaluation": "passed"},
                **info,
            },
            "case": {"id": "c"},
            "variant": variant or {"id": "v"},
            "scores": list(scores),
        }
    )


@st.composite
def runs(draw: st.DrawFn) -> RunRecord:
    base = _run(started_at=draw(st.none() | WHEN), duration=draw(st.none() | FLOATS))
    return base.model_copy(
        update={
            "case": Case(
                id="c",
                input=draw(ANY),
                expected=draw(ANY),
                metadata=draw(st.dictionaries(NAMES, ANY, max_size=2)),
            ),
            "variant": Variant(
                id="v",
                factors=tuple(
                    FactorValue(name=name, value=draw(ANY))
                    for name in draw(st.lists(NAMES, max_size=2, unique=True))
                ),
            ),
            "output": draw(ANY),
            "scores": tuple(
                ScoreRecord(
                    name=name,
                    value=draw(ANY),
                    actual_value=draw(ANY),
                    expected_value=draw(ANY),
                )
                for name in draw(st.lists(NAMES, max_size=2, unique=True))
            ),
            "observations": tuple(
                Observation(
                    id=f"observation_{index}",
                    name="m",
                    value=draw(ANY),
                    case_id="c",
                    variant_id="v",
                )
                for index in range(draw(st.integers(0, 2)))
            ),
            "attempts": tuple(
                AttemptRecord(number=number, duration=draw(FLOATS), queued=draw(FLOATS))
                for number in range(1, draw(st.integers(0, 2)) + 1)
            ),
        }
    )


def _reads_back(run: RunRecord) -> bool:
    try:
        return RunRecord.model_validate_json(run.model_dump_json()) == run
    except ValueError:  # what JSON cannot hold may not even validate back
        return False


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_a_record_vouched_for_reads_back_identically(run: RunRecord) -> None:
    reads_back = _reads_back(run)
    if vouched(run):
        assert reads_back
    if reads_back:
        assert reads_back_from_json(run, run.model_dump_json())


def test_both_answers_come_from_the_values() -> None:
    plain = _run(
        duration=0.5,
        variant={"id": "v", "factors": {"model": "m", "size": 3}},
        scores=[{"name": "s", "value": 1.0, "actual": [1, {"a": None}], "expected": 2}],
    )
    assert vouched(plain) and _reads_back(plain)
    for update in (
        {"output": (1, 2)},  # a tuple comes back a list
        {"output": {1: "a"}},  # an integer key comes back a text
        {"output": dt.date(2026, 1, 1)},  # a time comes back a text
        {"run": plain.run.model_copy(update={"duration": float("nan")})},
        {"scores": (ScoreRecord(name="s", value=float("inf")),)},
    ):
        changed = plain.model_copy(update=update)
        assert not vouched(changed)
        assert not _reads_back(changed)
        assert not reads_back_from_json(changed, changed.model_dump_json())
    with_trace = plain.model_copy(update={"trace": Trace(id="t")})
    assert not vouched(with_trace)  # a trace is read back, not walked
    assert reads_back_from_json(with_trace, with_trace.model_dump_json())


def _fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, Any]]:
    """Every field of ``model`` and of the records nested in it, by dotted path."""
    found = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        found.append((path, field.annotation))
        for nested in _models(field.annotation):
            found += _fields(nested, path + ".")
    return found


def _models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models(arg)]


def _holds(annotation: Any, wanted: Any) -> bool:
    if annotation is wanted:
        return True
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        return any(_holds(arg, wanted) for arg in typing.get_args(annotation))
    return False


def test_the_lists_name_every_any_and_float_field_of_a_run_record() -> None:
    """A field added to the run record that holds any value or a float must join the
    lists (and the walk in ``vouched``), or the quick answer could vouch for a record that
    does not read back. The trace is left out: a record with a trace is read back."""
    fields = [(path, kind) for path, kind in _fields(RunRecord) if not path.startswith("trace")]
    with_any = {path for path, kind in fields if _holds(kind, Any)}
    with_float = {path for path, kind in fields if _holds(kind, float)}
    # a mapping field of any values (case.metadata) counts as a field of any value
    assert with_any == set(ANY_FIELDS)
    assert with_float - with_any == set(FLOAT_FIELDS)
