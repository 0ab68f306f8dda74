"""Cassettes of pairwise judging (``autobench judge pairwise --cassette``).

The judge's HTTP exchanges of one pairwise judging are kept in one file beside its derived
record: ``<baseline>~<candidate>.cassette.json`` next to ``<baseline>~<candidate>.yaml``
(the cassette format of :mod:`autobench.abp._cassette`). Replaying reads the cassette
files of the same judge name and pair in the source record directory, whatever their
definition hash (a changed rubric sends other requests, which match nothing); each case
gets a cassette of its own over those exchanges, matched by method, URL and body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from autobench.abp import AutobenchError
from autobench.abp._cassette import (
    CassetteMode,
    Exchange,
    RunCassette,
    dump_cassette,
    load_cassette,
)
from autobench.core.runtime._cassette import CassetteSourceError, ensure_transports
from autobench.records import pairwise_path

CASSETTE_SUFFIX = ".cassette.json"
"""How the cassette file of a pairwise record ends (in place of ``.yaml``)."""


def cassette_path(record_path: str) -> str:
    """The cassette file of the pairwise record stored at ``record_path`` (relative)."""
    return record_path.removesuffix(".yaml") + CASSETTE_SUFFIX


@dataclass
class PairwiseCassettes:
    """The cassettes of one pairwise judging: ``mode`` and, to replay, the source's
    exchanges (``recorded``). :meth:`open` gives each case its cassette; :meth:`exchanges`
    are what they recorded, in the order the cases were opened."""

    mode: CassetteMode
    recorded: list[Exchange] = field(default_factory=list)
    absent: str | None = None
    opened: list[RunCassette] = field(default_factory=list)

    def open(self, name: str) -> RunCassette:
        """A fresh cassette for one case (``name`` is the judge's cassette name)."""
        ensure_transports()
        recorded = self.recorded if self.mode != "record" else []
        cassette = RunCassette(self.mode, recorded, absent=self.absent)
        self.opened.append(cassette)
        return cassette

    def exchanges(self) -> list[Exchange]:
        return [exchange for cassette in self.opened for exchange in cassette.exchanges]

    def store(self, root: Path, record_path: str) -> Path | None:
        """Write the recorded exchanges beside the record at ``record_path`` (none: no file).
        Raises :class:`~autobench.abp.AutobenchError` when it cannot be written."""
        exchanges = self.exchanges()
        if not exchanges:
            return None
        target = Path(root).joinpath(*PurePosixPath(cassette_path(record_path)).parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(dump_cassette(exchanges))
        except OSError as exc:
            raise AutobenchError(f"cannot write the judge's cassette {target}: {exc}") from exc
        return target


def pairwise_cassettes(
    mode: CassetteMode, source: Path, judge: str, baseline: str, candidate: str
) -> PairwiseCassettes:
    """The cassettes of judging ``candidate`` against ``baseline`` with the judge named
    ``judge``: empty to record, else the exchanges of every cassette of that judge and pair
    in the record directory ``source``. Raises :class:`CassetteSourceError` when replaying
    (``replay``) from a directory holding none, or a file that is not a cassette."""
    if mode == "record":
        return PairwiseCassettes(mode)
    pattern = PurePosixPath(cassette_path(pairwise_path(judge, "x", baseline, candidate)))
    directory = Path(source).joinpath(*pattern.parent.parent.parts)
    files = sorted(directory.glob(f"*/{pattern.name}")) if directory.is_dir() else []
    absent = f"{source} holds no cassette of judge {judge!r} for {baseline} against {candidate}"
    if not files and mode == "replay":
        raise CassetteSourceError(f"{absent}: judge the pair there with --cassette record first")
    recorded: list[Exchange] = []
    for path in files:
        try:
            recorded.extend(load_cassette(path.read_bytes(), source=str(path)))
        except (OSError, AutobenchError) as exc:
            raise CassetteSourceError(f"cannot replay the cassette {path}: {exc}") from exc
    return PairwiseCassettes(mode, recorded, absent=None if files else absent)
