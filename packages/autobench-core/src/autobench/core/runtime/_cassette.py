"""Cassettes of a session (``autobench run --cassette MODE``): which one each run gets, and
what a run keeps of it.

* ``record``: each run's task call records the HTTP exchanges its clients make; the run
  stores them as its artifact ``cassette`` (media type
  :data:`~autobench.abp._cassette.CASSETTE_MEDIA_TYPE`, one JSON file per run in the
  record directory) when there was at least one.
* ``replay`` (from a record directory): each run's requests are answered from the
  cassette of the source run with the same case, variant and repeat; nothing is sent. A
  request that matches nothing fails: the run is errored with an error of stage
  ``cassette`` naming the request (whatever the client made of the failure).
* ``replay-or-record``: as ``replay``, but a request that matches nothing is sent and
  recorded; the run's cassette then holds every exchange of the call, replayed or not.

A replaying run has the observation ``cassette.replayed`` (the number of its requests
answered from the cassette) and, under ``replay-or-record``, ``cassette.sent`` (those
that went out), so reports can tell replayed evidence from live evidence.
Each attempt of a retried run starts from the beginning of its cassette.

The HTTP clients are reached through the ``autobench_cassette_transports`` hook (the
``autobench-instrument-httpx`` distribution patches HTTPX); core imports no HTTP client.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autobench.abp import AutobenchError
from autobench.abp._cassette import (
    CASSETTE_MEDIA_TYPE,
    CASSETTE_MODES,
    CassetteMiss,
    CassetteMode,
    Exchange,
    RunCassette,
    dump_cassette,
    load_cassette,
)
from autobench.records import CassetteInfo, ObservationKind, ObservationRole

if TYPE_CHECKING:
    from autobench.core.planning import MatrixRunSpec

CASSETTE_ARTIFACT = "cassette"
"""The artifact name of a run's cassette."""

REPLAYED = "cassette.replayed"
"""Observation of a replaying run: how many of its requests the cassette answered."""

SENT = "cassette.sent"
"""Observation of a ``replay-or-record`` run: how many of its requests went to the network."""


class CassetteSourceError(AutobenchError):
    """The record directory to replay from cannot give cassettes (the message says why)."""


@dataclass(frozen=True, slots=True)
class CassetteSetup:
    """The session's cassette mode and, to replay, where each run's cassette file is.

    ``sources`` maps ``(case id, variant id, repeat)`` to the cassette file of the
    source run (absolute: a worker whose working directory is elsewhere reads it);
    ``source`` describes the source record for the new record (``record_dir`` as given,
    ``experiment_id``, ``sha256`` over the cassette files' digests)."""

    mode: CassetteMode
    sources: Mapping[tuple[str, str, int], Path] = field(default_factory=dict)
    source: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mode not in CASSETTE_MODES:
            raise ValueError(f"cassette mode must be one of {', '.join(CASSETTE_MODES)}")

    @classmethod
    def replaying(cls, mode: CassetteMode, source_dir: Path) -> CassetteSetup:
        """The setup replaying from the record directory ``source_dir``. Raises
        :class:`CassetteSourceError` when it is not a readable record directory."""
        from autobench.records import RecordFormatError, record_file, replay_experiment

        source_dir = Path(source_dir)
        try:
            result = replay_experiment(source_dir, extractions=False)
        except AutobenchError as exc:
            raise CassetteSourceError(f"cannot replay cassettes from {source_dir}: {exc}") from exc
        except OSError as exc:
            raise CassetteSourceError(f"cannot replay cassettes from {source_dir}: {exc}") from exc
        sources: dict[tuple[str, str, int], Path] = {}
        root = source_dir.resolve()  # runs may read their cassette elsewhere (ray workers)
        digest = hashlib.sha256()
        for run in result.runs:
            for artifact in run.artifacts:
                if artifact.name == CASSETTE_ARTIFACT and artifact.path is not None:
                    key = (run.case_id, run.variant_id, run.run.repeat or 1)
                    try:
                        path = record_file(root, artifact.path, what="cassette", source=source_dir)
                    except RecordFormatError as exc:
                        raise CassetteSourceError(
                            f"cannot replay cassettes from {source_dir}: {exc}"
                        ) from exc
                    sources[key] = path
                    _check_digest(path, artifact.sha256)
                    digest.update(f"{key}:{artifact.sha256}\n".encode())
        if not sources:
            raise CassetteSourceError(
                f"{source_dir} holds no cassette: record it with --cassette record (a record "
                "made with --cassette replay holds none; one made with replay-or-record does)"
            )
        source = {
            "record_dir": str(source_dir),
            "experiment_id": result.experiment.experiment.id,
            "sha256": digest.hexdigest(),
        }
        return cls(mode, sources, source)

    def for_run(self, planned: MatrixRunSpec) -> RunCassette:
        """A fresh cassette for one attempt of ``planned`` (the source's exchanges, read once
        per file). Installs the cassette transports in this process first (a worker
        process of another executor has not)."""
        ensure_transports()
        if self.mode == "record":
            return RunCassette("record")
        key = (planned.case.id, planned.variant.id, planned.repeat or 1)
        path = self.sources.get(key)
        if path is None:
            source = self.source.get("record_dir", "the source record")
            return RunCassette(
                self.mode,
                (),
                absent=f"{source} has no cassette for case {key[0]!r}, variant {key[1]!r}, "
                f"repeat {key[2]}",
            )
        return RunCassette(self.mode, _read(path))


@functools.lru_cache(maxsize=64)
def _read(path: Path) -> list[Exchange]:
    """The exchanges of the cassette file ``path`` (kept for the next attempts and runs)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CassetteSourceError(f"cannot read the cassette {path}: {exc}") from exc
    return load_cassette(data, source=str(path))


def _check_digest(path: Path, recorded: str | None) -> None:
    """Raise :class:`CassetteSourceError` when the file at ``path`` is not the one its run
    recorded (sha256 ``recorded``): a changed cassette is refused, not replayed."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CassetteSourceError(f"cannot read the cassette {path}: {exc}") from exc
    if recorded is not None and hashlib.sha256(data).hexdigest() != recorded:
        raise CassetteSourceError(
            f"the cassette {path} changed since it was recorded: its sha256 is not the "
            f"{recorded} its run.yaml lists"
        )


def ensure_transports() -> None:
    """Install the cassette transports of every plugin in this process (each installer
    patches once and then only says it is installed, so this is cheap to call for every
    run). Raises :class:`CassetteSourceError` when no plugin patched an HTTP client (no
    ``autobench-instrument-httpx``, or neither ``httpx`` nor ``httpx2`` installed): a replay
    would otherwise send its requests, and a recording would keep nothing."""
    from autobench.core.plugins import plugin_manager

    patched = [
        install()
        for installers in plugin_manager().hook.autobench_cassette_transports()
        for install in installers
    ]
    if not any(patched):
        raise CassetteSourceError(
            "cassettes need an HTTP client integration: install autobench-instrument-httpx "
            '(pip install "autobench[httpx]") with httpx or httpx2'
        )


def close_cassette(cassette: RunCassette, evidence: Any) -> bool:
    """Keep what one attempt's ``cassette`` holds in its run's ``evidence``: the recorded
    exchanges as the artifact ``cassette``, the count of replayed requests as the
    observation ``cassette.replayed``, and an error of stage ``cassette`` for each request
    that matched nothing. Whether any request matched nothing."""
    from autobench.core.runtime._evidence import error_record

    if cassette.records and cassette.exchanges:
        evidence.add_artifact(
            CASSETTE_ARTIFACT,
            dump_cassette(cassette.exchanges, cassette.policy),
            media_type=CASSETTE_MEDIA_TYPE,
            tags={"mode": cassette.mode},
            span_id=None,
        )
    counts = {REPLAYED: cassette.replayed} if cassette.replays else {}
    if cassette.mode == "replay-or-record":
        counts[SENT] = cassette.sent
    for name, count in counts.items():
        evidence.add_observation(
            name, count, kind=ObservationKind.METRIC, span_id=None, role=ObservationRole.DIAGNOSTIC
        )
    for message in cassette.misses:
        evidence.add_error(error_record(CassetteMiss(message), stage="cassette"))
    return bool(cassette.misses)


def check_resumed_cassette(
    root: Path, recorded: CassetteInfo | None, cassette: CassetteSetup | None
) -> None:
    """Raise :class:`~autobench.core.runtime.ResumeError` unless ``cassette`` is what the
    experiment recorded in ``root`` began with (``recorded``, its ``experiment.yaml``
    section): the same mode and, to replay, the same source experiment and cassettes. A
    resumed replay that forgot ``--cassette`` would otherwise call the network."""
    from autobench.core.runtime._resume import ResumeError

    def said(info: CassetteInfo | None) -> str:
        if info is None:
            return "without --cassette"
        if info.mode == "record":
            return "with --cassette record"
        return f"with --cassette {info.mode} {info.record_dir} (experiment {info.experiment_id})"

    given = None if cassette is None else CassetteInfo(mode=cassette.mode, **cassette.source)
    same = (recorded is None) == (given is None) and (
        recorded is None
        or given is None
        or (recorded.mode, recorded.experiment_id, recorded.sha256)
        == (given.mode, given.experiment_id, given.sha256)
    )
    if not same:
        raise ResumeError(
            f"{root} was recorded {said(recorded)}; it cannot be resumed {said(given)}: "
            "resume it with the cassette it began with",
            path=root / "experiment.yaml",
        )
