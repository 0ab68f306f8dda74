"""Ids and times of the export: ABP ids and timestamps as OTLP's integers.

ABP trace ids are 32 lowercase hex characters and span ids 16 (the W3C sizes), so an
id written by Autobench is kept as it is: its hex value is the OTLP id. An id of any
other shape (a trace attached from another system, a hand-written one) is mapped
deterministically: the first 16 (trace) or 8 (span) bytes of the SHA-256 of the id,
so every reference to it (parent, link) maps to the same OTLP id. OTLP forbids the
all-zero id; a zero result becomes 1.

Times are integers of nanoseconds since the Unix epoch (UTC), exact for the
microsecond datetimes records hold.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

TRACE_ID_BITS = 128
SPAN_ID_BITS = 64
_HEX = frozenset("0123456789abcdef")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _id(value: str, bits: int, salt: str) -> int:
    if len(value) == bits // 4 and _HEX.issuperset(value):
        number = int(value, 16)
        if number:
            return number
    digest = hashlib.sha256(f"{salt}:{value}".encode()).digest()
    return int.from_bytes(digest[: bits // 8], "big") or 1


def trace_id_of(value: str) -> int:
    """The OTLP trace id (a non-zero 128-bit integer) of the ABP trace id ``value``."""
    return _id(value, TRACE_ID_BITS, "trace")


def span_id_of(value: str) -> int:
    """The OTLP span id (a non-zero 64-bit integer) of the ABP span id ``value``."""
    return _id(value, SPAN_ID_BITS, "span")


def unix_nanos(moment: datetime) -> int:
    """Nanoseconds since the Unix epoch of ``moment`` (a naive datetime is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def nanos(seconds: float) -> int:
    """``seconds`` (a duration or an offset) as whole nanoseconds, rounded."""
    return round(seconds * 1e9)


def datetime_of(unix_nano: int) -> datetime:
    """The UTC datetime of ``unix_nano`` (nanoseconds since the epoch), to the microsecond
    (the inverse of :func:`unix_nanos` for the datetimes records hold)."""
    return _EPOCH + timedelta(microseconds=unix_nano // 1_000)
