"""Identifiers of the protocol.

Trace ids are 32 lowercase hex characters (128 random bits) and span ids 16
(64 random bits), the sizes W3C Trace Context uses, so ABP ids can be carried
into other tracing systems unchanged.
"""

from __future__ import annotations

import os


def new_trace_id() -> str:
    """Return a fresh random trace id: 32 lowercase hex characters."""
    return os.urandom(16).hex()


def new_span_id() -> str:
    """Return a fresh random span id: 16 lowercase hex characters."""
    return os.urandom(8).hex()
