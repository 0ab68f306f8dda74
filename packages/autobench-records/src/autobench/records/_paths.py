"""Safe, distinct paths inside a record directory for ids of any text.

Case, variant and run ids are user text: they may contain ``/``, ``..``,
unicode, reserved device names (``CON``, ``NUL``), leading dots or differ only
in letter case. :func:`safe_segment` maps an id to one path segment that is
portable (ASCII letters, digits, ``_``, ``-``, ``.``; no leading dot; at most
80 characters) and distinct for distinct ids, also on case-insensitive file
systems: whenever the readable part is not the id itself in lowercase, a
10-hex-digit sha256 prefix of the exact id is appended.
"""

from __future__ import annotations

import functools
import hashlib
import re

_UNSAFE = re.compile(r"[^a-z0-9_.-]+")
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
)
_MAX_READABLE = 64


@functools.lru_cache(maxsize=4096)  # a plan and its records repeat each id many times
def safe_segment(identifier: str) -> str:
    """One portable path segment for ``identifier`` (see the module docstring for the rule)."""
    readable = _UNSAFE.sub("_", identifier.lower()).strip("._-")[:_MAX_READABLE].rstrip("._-")
    plain = readable == identifier and readable != "" and readable.split(".")[0] not in _RESERVED
    if plain:
        return readable
    digest = hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{readable}-{digest}" if readable else f"id-{digest}"


def run_record_path(case_id: str, variant_id: str, repeat: int = 1) -> str:
    """The record path of a run, relative to the experiment directory: repeat ``r >= 2``
    of a case x variant lives in an ``r<r>`` directory beside the first repeat's file."""
    directory = f"cases/{safe_segment(case_id)}/{safe_segment(variant_id)}"
    return f"{directory}/run.yaml" if repeat == 1 else f"{directory}/r{repeat}/run.yaml"


def artifact_dir(run_id: str) -> str:
    """The directory of a run's artifacts, relative to the experiment directory."""
    return f"artifacts/{safe_segment(run_id)}"
