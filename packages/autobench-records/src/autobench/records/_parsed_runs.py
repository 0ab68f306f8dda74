"""Run files parsed by earlier replays of a record, kept so a replay of a growing record
(one being recorded, or resumed) parses only the run files that are new or changed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from autobench.records._records import RunRecord

Stamp = tuple[int, int, int, int]
"""What tells a file changed: size, modification and change times (ns), inode."""


def file_stamp(path: Path) -> Stamp | None:
    """The :data:`Stamp` of the regular file at ``path`` (symbolic links followed), or
    ``None`` when there is none."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


class ParsedRuns:
    """The run records parsed from the files of one record directory, by file, with the
    :data:`Stamp` each file had just before it was read. Passed to
    :func:`~autobench.records.replay_experiment` (``parsed=``), which takes a run from here
    when its file has the same stamp and parses (and stores) it otherwise; every check,
    total and derived record is applied again to every run, so the result is the one a
    replay without it gives. Not for use by two replays at once."""

    def __init__(self) -> None:
        self._runs: dict[tuple[Path, bool], tuple[Stamp, RunRecord]] = {}
        self.pending = 0
        """How many run files the replay underway (or the last) has to parse."""
        self.last_parsed = 0
        """How many of those it has parsed so far (the rest were kept): a replay in another
        thread can be followed by these two numbers."""

    def __len__(self) -> int:
        return len(self._runs)

    def get(self, path: Path, stamp: Stamp, *, evidence_only: bool) -> RunRecord | None:
        """The run parsed from ``path`` when it had ``stamp``, else ``None``."""
        kept = self._runs.get((path, evidence_only))
        return kept[1] if kept is not None and kept[0] == stamp else None

    def put(self, path: Path, stamp: Stamp, run: RunRecord, *, evidence_only: bool) -> None:
        self._runs[(path, evidence_only)] = (stamp, run)
        self.last_parsed += 1

    def keep_only(self, paths: Iterable[Path]) -> None:
        """Forget the runs of files not in ``paths`` (removed, or no longer planned)."""
        wanted = set(paths)
        for key in [key for key in self._runs if key[0] not in wanted]:
            del self._runs[key]
