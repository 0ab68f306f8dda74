"""Identifiers of the protocol.

Trace ids are 32 lowercase hex characters (128 random bits) and span ids 16
(64 random bits), the sizes W3C Trace Context uses, so ABP ids can be carried
into other tracing systems unchanged.

The bits come from a private :class:`random.Random` seeded from
:func:`os.urandom` and reseeded in every forked child. It is not the shared
module-level generator, so a task calling ``random.seed(...)`` cannot make ids
repeat, and unlike ``os.urandom`` it does not release the GIL on every call,
which made worker threads hand the interpreter to each other once per span.
Ids need to be unique, not secret.
"""

from __future__ import annotations

import os
import random

_generator = random.Random(os.urandom(32))


def _reseed() -> None:
    _generator.seed(os.urandom(32))


os.register_at_fork(after_in_child=_reseed)


def new_trace_id() -> str:
    """Return a fresh random trace id: 32 lowercase hex characters."""
    return f"{_generator.getrandbits(128):032x}"


def new_span_id() -> str:
    """Return a fresh random span id: 16 lowercase hex characters."""
    return f"{_generator.getrandbits(64):016x}"
