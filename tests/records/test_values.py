"""Value encoding and YAML text: document -> text -> document is the identity."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import uuid
from decimal import Decimal
from pathlib import PurePosixPath

import pytest
from _canonical import canonical
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from autobench.records import OpaqueValue, RecordFormatError, encode_value
from autobench.records._yaml import dump_document, load_document

ZONES = st.sampled_from(
    [
        None,
        dt.UTC,
        dt.timezone(dt.timedelta(hours=5, minutes=30)),
        dt.timezone(-dt.timedelta(hours=8)),
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.binary()
    | st.datetimes(timezones=ZONES)
    | st.dates()
    | st.decimals(allow_nan=False)
)
KEYS = st.text() | st.integers() | st.booleans() | st.none()
DOCUMENTS = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(KEYS, children, max_size=4)
        | st.frozensets(st.text() | st.integers(), max_size=3)
        | st.sets(st.text() | st.integers(), max_size=3)
    ),
    max_leaves=20,
)


def round_trip(document: object) -> object:
    return load_document(dump_document(document))


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS)
def test_document_text_document_is_identity(document: object) -> None:
    assert canonical(round_trip(document)) == canonical(document)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS)
def test_encoding_a_document_changes_nothing(document: object) -> None:
    assert canonical(encode_value(document)) == canonical(document)


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "no",
        "on",
        "null",
        "Null",
        "~",
        "",
        "1e3",
        "0x10",
        "0o7",
        "007",
        "-0",
        ".5",
        "2024-01-01",
        "2024-01-01 10:00:00",
        "true",
        "True",
        ".nan",
        "-.inf",
        "<<",
        "=",
        "!decimal 1",
        "&anchor",
        "*alias",
        "- item",
        "key: value",
        "# comment",
        " lead",
        "trail ",
        "a\nb",
        "tab\there",
        "\x00\x01\x7f",
        "\x85\u2028\u2029",
        "\ufeffbom",
        "é ü 中文 🙂",
        "'\"",
        "x" * 5000,
    ],
)
def test_strings_yaml_might_retype_stay_strings(text: str) -> None:
    assert round_trip({text: [text]}) == {text: [text]}


def test_special_numbers_and_keys() -> None:
    document = {
        "big": 2**64 + 1,
        "negative_big": -(2**100),
        "negative_zero": -0.0,
        "nan": float("nan"),
        "inf": float("inf"),
        "-inf": float("-inf"),
        "": "empty key",
        1: "int key",
        None: "null key",
        False: "bool key",
        (1, "a"): "tuple key",
    }
    assert canonical(round_trip(document)) == canonical(document)


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: tuple[int, ...]


class Model(BaseModel):
    name: str
    tags: list[str]


def test_non_native_values_have_one_encoding() -> None:
    when = dt.datetime(2026, 5, 7, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    value = {
        "bytes": b"\x00\xff",
        "bytearray": bytearray(b"ab"),
        "datetime": when,
        "date": dt.date(2024, 1, 1),
        "decimal": Decimal("1.10"),
        "set": {1, 2},
        "frozenset": frozenset({"a"}),
        "tuple": (1, (2, 3)),
        "enum": Colour.RED,
        "dataclass": Point(1, (2,)),
        "model": Model(name="m", tags=["t"]),
        "path": PurePosixPath("/a/b"),
        "uuid": uuid.UUID(int=1),
        "other": 1j,
    }
    back = round_trip(encode_value(value))
    assert back == {
        "bytes": b"\x00\xff",
        "bytearray": b"ab",
        "datetime": when,
        "date": dt.date(2024, 1, 1),
        "decimal": Decimal("1.10"),
        "set": {1, 2},
        "frozenset": frozenset({"a"}),
        "tuple": [1, [2, 3]],
        "enum": "red",
        "dataclass": {"x": 1, "y": [2]},
        "model": {"name": "m", "tags": ["t"]},
        "path": "/a/b",
        "uuid": "00000000-0000-0000-0000-000000000001",
        "other": OpaqueValue(type="builtins.complex", repr="1j"),
    }
    assert str(back["decimal"]) == "1.10"


def test_user_mappings_that_look_like_encodings_stay_mappings() -> None:
    value = {"!decimal": "1", "type": "builtins.complex", "repr": "1j", "__bytes__": "AA=="}
    assert round_trip(encode_value(value)) == value


def test_offsets_that_are_not_whole_minutes_become_utc() -> None:
    odd = dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(seconds=3601)))
    back = round_trip(encode_value(odd))
    assert back == odd
    assert back.utcoffset() == dt.timedelta(0)


def test_loader_refuses_python_object_tags() -> None:
    with pytest.raises(
        RecordFormatError, match=r"evil.yaml:1:1: .*could not determine a constructor"
    ):
        load_document("!!python/object/apply:os.system ['true']\n", source="evil.yaml")
    with pytest.raises(RecordFormatError, match=r"evil.yaml:1:\d+"):
        load_document("x: !!python/name:os.system\n", source="evil.yaml")


def test_duplicate_keys_are_malformed() -> None:
    with pytest.raises(RecordFormatError, match=r"dup.yaml:2:1: .*duplicate key"):
        load_document("a: 1\na: 2\n", source="dup.yaml")


@pytest.mark.parametrize("fold", [0, 1])
def test_a_utc_datetime_is_encoded_as_the_same_plain_utc_datetime(fold: int) -> None:
    """A run's times (UTC) take a shortcut; the value is what the general rule gives: the
    same instant in UTC, ``fold`` dropped, exactly a ``datetime``."""

    class Stamp(dt.datetime):
        pass

    when = dt.datetime(2026, 12, 7, 4, 0, 1, 5, tzinfo=dt.UTC, fold=fold)
    for value in (when, Stamp(2026, 12, 7, 4, 0, 1, 5, tzinfo=dt.UTC, fold=fold)):
        encoded = encode_value(value)
        assert type(encoded) is dt.datetime
        assert (encoded, encoded.tzinfo, encoded.fold) == (when, dt.UTC, 0)
