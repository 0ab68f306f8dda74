"""Values round-trip exactly through the real record writer and replay (not only the codec):
task outputs, case inputs and expected values, written by RecordDirectoryWriter into real
files and read back by replay_experiment."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import itertools
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from _canonical import canonical
from _factories import BENCHMARK_ID, EXPERIMENT_ID, experiment_for, trivial_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from autobench.records import (
    Case,
    ExperimentSummary,
    OpaqueValue,
    RecordDirectoryWriter,
    replay_experiment,
)

_directories = itertools.count()


def through_records(root: Path, output: Any, case_input: Any, expected: Any) -> tuple[Any, ...]:
    """Record one run holding the values with the real writer, replay the directory, and
    return ``(output, case input, case expected)`` as replay gives them back."""
    record = root / f"rec{next(_directories)}"
    writer = RecordDirectoryWriter(record, fsync=False)
    writer.start(experiment_for([("c", "v")]))
    run = trivial_run(
        "c", "v", output=output, case=Case(id="c", input=case_input, expected=expected)
    )
    if output is None:  # trivial_run replaces a None output with its default
        run = run.model_copy(update={"output": None})
    writer.run_finished(run, {})
    writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=1))
    (replayed,) = replay_experiment(record).runs
    return replayed.output, replayed.case.input, replayed.case.expected


def assert_exact(root: Path, value: Any) -> None:
    back = through_records(root, value, value, {"expected": value})
    assert canonical(back) == canonical((value, value, {"expected": value}))


RETYPED = [
    "yes", "no", "on", "off", "y", "n", "null", "Null", "NULL", "~", "", "true", "False",
    "1e3", "1E3", "0x10", "0o17", "0b11", "007", "-0", "+1", ".5", "1_000", "12:30",
    "2024-01-01", "2024-01-01T10:00:00Z", "2024-01-01 10:00:00", ".nan", ".NaN", ".inf",
    "-.inf", "<<", "=", "!decimal 1", "!!binary AA==", "&a", "*a", "- x", "? x", "a: b",
    "# c", "%YAML", "---", "...", " lead", "trail ", "a\nb", "a\n", "\n", "\r\n", "tab\there",
    "\x00", "\x1b[31mred\x1b[0m", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ud7ff",
    "é ü 中文 🙂", "'", '"', "\\", "x" * 10_000,
]  # fmt: skip


@pytest.mark.parametrize("text", RETYPED, ids=[repr(text)[:40] for text in RETYPED])
def test_strings_yaml_would_retype_stay_the_same_strings(tmp_path: Path, text: str) -> None:
    assert_exact(tmp_path, {text: [text]})


SPECIAL = {
    "beyond 64 bits": [2**64, 2**64 + 1, -(2**63) - 1, 2**1000, -(10**400)],
    "negative zero": -0.0,
    "nan": math.nan,
    "infinities": [math.inf, -math.inf],
    "tiny and huge floats": [5e-324, 1.7976931348623157e308, 1e-5, 1e16, 0.1],
    "empty and non-string keys": {"": 1, 0: "int", -(2**70): "big", True: "t", None: "n"},
    "float and tuple keys": {1.5: "f", (1, "a"): "t"},
    "empty containers": [[], {}, [[]], {"": {}}],
    "scalars": [None, True, False, 0, 1.0, "s"],
    "nested": {"a": [{"b": [None, {"c": [1, [2, [3]]]}]}]},
}


@pytest.mark.parametrize("value", SPECIAL.values(), ids=SPECIAL.keys())
def test_special_values_stay_exact(tmp_path: Path, value: Any) -> None:
    assert_exact(tmp_path, value)


def test_a_lone_surrogate_is_documented_as_opaque(tmp_path: Path) -> None:
    output, case_input, _ = through_records(tmp_path, {"s": "a\udc80"}, ["\ud800"], None)
    assert output == {"s": OpaqueValue(type="str", repr="'a\\udc80'")}
    assert case_input == [OpaqueValue(type="str", repr="'\\ud800'")]


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class Point:
    x: int
    tags: tuple[str, ...]


class Model(BaseModel):
    name: str
    when: dt.date


def test_non_json_values_have_their_documented_encoding(tmp_path: Path) -> None:
    when = dt.datetime(2026, 5, 7, 12, 0, 1, 5, tzinfo=dt.timezone(dt.timedelta(hours=-3)))
    value = {
        "bytes": b"\x00\xff",
        "bytearray": bytearray(b"ab"),
        "datetime": when,
        "naive": dt.datetime(2026, 5, 7, 12, 0),
        "date": dt.date(2024, 1, 1),
        "decimal": Decimal("1.10"),
        "set": {1, "a"},
        "frozenset": frozenset({2}),
        "tuple": (1, (2, "3")),
        "enum": Colour.RED,
        "int enum": Level.HIGH,
        "dataclass": Point(1, ("t",)),
        "model": Model(name="m", when=dt.date(2020, 2, 29)),
        "complex": 1j,
    }
    expected = {
        "bytes": b"\x00\xff",
        "bytearray": b"ab",
        "datetime": when,
        "naive": dt.datetime(2026, 5, 7, 12, 0),
        "date": dt.date(2024, 1, 1),
        "decimal": Decimal("1.10"),
        "set": {1, "a"},
        "frozenset": frozenset({2}),
        "tuple": [1, [2, "3"]],
        "enum": "red",
        "int enum": 3,
        "dataclass": {"x": 1, "tags": ["t"]},
        "model": {"name": "m", "when": dt.date(2020, 2, 29)},
        "complex": OpaqueValue(type="builtins.complex", repr="1j"),
    }
    back = through_records(tmp_path, value, value, value)
    assert canonical(back) == canonical((expected, expected, expected))
    assert str(back[0]["decimal"]) == "1.10"
    assert back[0]["datetime"].utcoffset() == dt.timedelta(hours=-3)


KEYS = (
    st.text()
    | st.sampled_from(RETYPED)
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.booleans()
    | st.none()
)
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([-0.0, math.nan, math.inf, -math.inf])
    | st.text()
    | st.sampled_from(RETYPED)
    | st.text(st.characters(codec="utf-8", categories=["Cc", "Zl", "Zp", "Cf"]))
)
JSON_LIKE = st.recursive(
    JSON_SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=25,
)
WIDER = st.recursive(
    JSON_SCALARS
    | st.binary(max_size=20)
    | st.datetimes(timezones=st.none() | st.just(dt.UTC))
    | st.dates()
    | st.decimals(allow_nan=False),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(KEYS, children, max_size=3)
        | st.sets(st.text(max_size=5) | st.integers(), max_size=3)
    ),
    max_leaves=15,
)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(output=JSON_LIKE, case_input=JSON_LIKE, expected=JSON_LIKE)
def test_any_json_like_value_round_trips_through_writer_and_replay(
    tmp_path: Path, output: Any, case_input: Any, expected: Any
) -> None:
    back = through_records(tmp_path, output, case_input, expected)
    assert canonical(back) == canonical((output, case_input, expected))


@SETTINGS
@given(value=WIDER)
def test_yaml_native_values_round_trip_through_writer_and_replay(
    tmp_path: Path, value: Any
) -> None:
    assert_exact(tmp_path, value)
