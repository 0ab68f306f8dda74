"""A record holds only its own runs, and every path it names stays inside it.

:func:`check_own_run` compares a ``run.yaml`` with the ``experiment.yaml`` of the
directory it was read from: the experiment id, the benchmark id, the case and variant the
plan puts at that path, the variant's factors and (for records that list it in their
plan) the sha256 of the case input (:func:`case_input_hash`). A run copied from another
experiment, or one whose factors or case input were edited, raises
:class:`RecordFormatError` at the line and column of the value that disagrees; replay,
reports, exports, comparisons and ``--resume`` all read runs through it, and refuse the
record as they refuse a run file they cannot parse.

:func:`record_file` is the one way a path named inside a record (an artifact, an
offloaded trace, a cassette, a run file of the plan) becomes a file to open: a path that
is absolute, climbs out with ``..`` or resolves outside the record directory through a
symlink is refused, located, before anything is opened.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import stat
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import Any

from autobench.records._errors import RecordFormatError
from autobench.records._locate import locate_value
from autobench.records._records import ExperimentRecord, PlannedRun, RunRecord
from autobench.records._values import OpaqueValue, encode_value


def case_input_hash(value: Any) -> str:
    """sha256 hex digest of a case input as a record stores it (:func:`encode_value`, then
    canonical JSON: sorted keys, no whitespace; dates, decimals, bytes, sets and opaque
    values in a fixed text form), so the value read back from ``run.yaml`` hashes alike."""
    encoded = encode_value(value)
    try:
        text = json.dumps(encoded, sort_keys=True, separators=(",", ":"), default=_json_form)
    except (TypeError, ValueError):  # keys of mixed types cannot be sorted
        text = repr(encoded)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _json_form(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return {"!date": value.isoformat()}
    if isinstance(value, Decimal):
        return {"!decimal": str(value)}
    if isinstance(value, bytes):
        return {"!bytes": value.hex()}
    if isinstance(value, frozenset | set):
        return {
            "!set": sorted(json.dumps(item, sort_keys=True, default=_json_form) for item in value)
        }
    if isinstance(value, OpaqueValue):
        return {"!opaque": [value.type, value.repr]}
    return {"!repr": repr(value)}


def check_own_run(
    experiment: ExperimentRecord, planned: PlannedRun, run: RunRecord, *, source: Path
) -> None:
    """Raise :class:`RecordFormatError` (``source``, line:column of the value, the field and
    both values) when ``run``, read from ``source`` where the plan entry ``planned`` puts
    it, is not that run of ``experiment``. The case input is compared only when the run was
    read with its case (not evidence-only) and the plan lists its hash."""
    found = _disagreement(experiment, planned, run)
    if found is None:
        return
    loc, field, recorded, expected = found
    try:
        where = locate_value(source.read_text(encoding="utf-8"), loc)
    except (OSError, UnicodeDecodeError):
        where = None
    raise RecordFormatError(
        f"this run does not belong to this record: {field} {recorded} here, {expected} in "
        "experiment.yaml; move the file out of the record (resuming the experiment then "
        "runs it again)",
        path=source,
        line=None if where is None else where[0],
        column=None if where is None else where[1],
    )


def _disagreement(
    experiment: ExperimentRecord, planned: PlannedRun, run: RunRecord
) -> tuple[tuple[str | int, ...], str, str, str] | None:
    """``(location in run.yaml, field, recorded, expected)`` of the first disagreement."""
    info = run.run
    for loc, field, recorded, expected in (
        (("run", "experiment"), "experiment id", info.experiment, experiment.experiment_id),
        (("run", "benchmark"), "benchmark id", info.benchmark, experiment.benchmark_id),
        (("run", "case"), "case", info.case, planned.case),
        (("run", "variant"), "variant", info.variant, planned.variant),
    ):
        if recorded != expected:
            return loc, field, repr(recorded), repr(expected)
    variant = next((v for v in experiment.benchmark.variants if v.id == planned.variant), None)
    if variant is not None and _factors(run.variant.factors) != _factors(variant.factors):
        return (
            ("variant", "factors"),
            f"variant {planned.variant!r} factors",
            _factor_text(run.variant.factors),
            _factor_text(variant.factors),
        )
    if planned.input is not None and run.case.input is not None:
        digest = case_input_hash(run.case.input)
        if digest != planned.input:
            return (
                ("case", "input"),
                f"case {planned.case!r} input (sha256)",
                digest[:12],
                planned.input[:12],
            )
    return None


def _factors(factors: Sequence[Any]) -> dict[str, str]:
    return {factor.name: case_input_hash(factor.value) for factor in factors}


def _factor_text(factors: Sequence[Any]) -> str:
    text = ", ".join(f"{factor.name}={factor.value!r}" for factor in factors)
    return f"{{{text[:200]}}}"


def record_file(
    root: Path,
    relative: str,
    *,
    what: str,
    source: Path,
    at: Sequence[str | int] = (),
) -> Path:
    """``root / relative`` for a path named inside a record (``what`` it is, for the
    message), when it stays inside the record directory ``root``: not absolute, no ``..``,
    and resolving (symlinks followed) inside ``root``. Otherwise raises
    :class:`RecordFormatError` naming ``source`` (the file that named the path) and the
    line:column of the value at ``at`` in it. Nothing is opened. To check many paths of
    one record, :class:`RecordPaths` remembers what it has looked at."""
    return RecordPaths(root).file(relative, what=what, source=source, at=at)


class RecordPaths:
    """:func:`record_file` for many paths of one record directory ``root`` (a replay checks
    every run file, artifact and trace path): ``root`` is resolved at most once, and the
    directories already found not to be symbolic links are not looked at again.

    A path with no symbolic link among its parts below ``root`` lies inside ``root`` (it has
    no ``..`` part), so each part is looked at with ``lstat`` (links not followed) and only a
    path that goes through a link is resolved and compared, as :func:`record_file` does. A
    part that does not exist ends the walk: nothing below it can lead out."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._base = os.fspath(self.root)
        self._real: Path | None = None
        self._plain: set[str] = set()

    def file(self, relative: str, *, what: str, source: Path, at: Sequence[str | int] = ()) -> Path:
        """``root / relative``; raises :class:`RecordFormatError` as :func:`record_file`."""
        parts = tuple(relative.split("/"))
        if (
            relative[:1] not in ("/", "\\", "")
            and relative[1:2] != ":"
            and "\\" not in relative
            and "" not in parts
            and "." not in parts
            and ".." not in parts
        ):  # the usual plain relative path: no parsing needed
            target = Path(self._base, relative)
            if self._inside(parts, target):
                return target
        return self._checked(relative, what=what, source=source, at=at)

    def _checked(self, relative: str, *, what: str, source: Path, at: Sequence[str | int]) -> Path:
        pure = PurePosixPath(relative)
        windows_absolute = (len(relative) > 1 and relative[1] == ":") or relative.startswith("\\")
        problem = None
        if pure.is_absolute() or windows_absolute:
            problem = "is absolute"
        elif ".." in pure.parts or "\\" in relative:
            problem = "climbs out with '..'" if ".." in pure.parts else "holds a backslash"
        elif not pure.parts:
            problem = "is empty"
        target = self.root.joinpath(*pure.parts)
        if problem is None and not self._inside(pure.parts, target):
            problem = "resolves outside it (through a symlink)"
        if problem is None:
            return target
        where = None
        if at:
            try:
                where = locate_value(source.read_text(encoding="utf-8"), at)
            except (OSError, UnicodeDecodeError):
                where = None
        raise RecordFormatError(
            f"the {what} path {relative!r} leaves the record directory {self.root}: it {problem}",
            path=source,
            line=None if where is None else where[0],
            column=None if where is None else where[1],
        )

    def _inside(self, parts: tuple[str, ...], target: Path) -> bool:
        here = self._base
        last = len(parts) - 1
        for index, part in enumerate(parts):
            here = os.path.join(here, part)
            if here in self._plain:
                continue
            try:
                mode = os.lstat(here).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return True  # nothing there, so no link below this part either
            except (OSError, ValueError):
                return False
            if stat.S_ISLNK(mode):
                return self._resolves_inside(target)
            if index < last:
                self._plain.add(here)
        return True

    def _resolves_inside(self, target: Path) -> bool:
        try:
            if self._real is None:
                self._real = self.root.resolve()
            return target.resolve().is_relative_to(self._real)
        except (OSError, RuntimeError):  # a symlink loop
            return False
