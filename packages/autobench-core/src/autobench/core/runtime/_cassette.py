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

**Scorers' cassettes.** A scorer that calls a model (a judge) asks the run's
:class:`ScorerCassettes` for a cassette of its own, named like an artifact
(``judge.<scorer name>.cassette``): its exchanges are kept as that artifact of the run
(or of a re-scoring's derived record), beside the application's ``cassette``, and a
replay answers the scorer's requests from the source run's artifact of the same name
only, so a scorer's request is never answered with an application response (nor with
another scorer's).

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
    from autobench.core.scoring._base import ScorerArtifact, ScorerObservation

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
    scorer_sources: Mapping[tuple[str, str, int], Mapping[str, tuple[Path, ...]]] = field(
        default_factory=dict
    )
    """The scorers' cassette files of each source run: artifact name -> the files of that
    name (the run's, then its re-scorings', oldest first)."""

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
        scorer_sources: dict[tuple[str, str, int], dict[str, tuple[Path, ...]]] = {}
        root = source_dir.resolve()  # runs may read their cassette elsewhere (ray workers)
        digest = hashlib.sha256()
        rescored = _rescored_artifacts(root)
        for run in result.runs:
            key = (run.case_id, run.variant_id, run.run.repeat or 1)
            artifacts = [*run.artifacts, *rescored.get(run.run_id, ())]
            for artifact in artifacts:
                if artifact.path is None or not (
                    artifact.name == CASSETTE_ARTIFACT or artifact.media_type == CASSETTE_MEDIA_TYPE
                ):
                    continue
                try:
                    path = record_file(root, artifact.path, what="cassette", source=source_dir)
                except RecordFormatError as exc:
                    raise CassetteSourceError(
                        f"cannot replay cassettes from {source_dir}: {exc}"
                    ) from exc
                _check_digest(path, artifact.sha256)
                if artifact.name == CASSETTE_ARTIFACT:
                    sources[key] = path
                    digest.update(f"{key}:{artifact.sha256}\n".encode())
                else:
                    named = scorer_sources.setdefault(key, {})
                    named[artifact.name] = (*named.get(artifact.name, ()), path)
                    digest.update(f"{key}:{artifact.name}:{artifact.sha256}\n".encode())
        if not sources and not scorer_sources:
            raise CassetteSourceError(
                f"{source_dir} holds no cassette: record it with --cassette record (a record "
                "made with --cassette replay holds none; one made with replay-or-record does)"
            )
        source = {
            "record_dir": str(source_dir),
            "experiment_id": result.experiment.experiment.id,
            "sha256": digest.hexdigest(),
        }
        return cls(mode, sources, source, scorer_sources)

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

    def for_scoring(self, case_id: str, variant_id: str, repeat: int | None) -> ScorerCassettes:
        """The cassettes the scorers of one run (case, variant, repeat) record to or
        replay from."""
        key = (case_id, variant_id, repeat or 1)
        source = self.source.get("record_dir", "the source record")
        return ScorerCassettes(
            self.mode,
            dict(self.scorer_sources.get(key, {})),
            f"{source} has no {{name}} for case {key[0]!r}, variant {key[1]!r}, repeat {key[2]}",
        )


@dataclass(frozen=True, slots=True)
class ScorerCassettes:
    """The cassettes of one run's scorers (see the module docstring): ``mode``, and to
    replay, the source run's scorer cassette files by artifact name (``recorded``);
    ``absent`` is the message of a name with no file (``{name}`` is filled in)."""

    mode: CassetteMode
    recorded: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)
    absent: str = "the source record has no {name}"

    def open(self, name: str) -> RunCassette:
        """A fresh cassette for the scorer whose cassette artifact is ``name``
        (``judge.<scorer>.cassette``): empty to record, else the source's exchanges of that
        name only. Raises :class:`CassetteSourceError` when no HTTP client integration is
        installed or the file cannot be read."""
        ensure_transports()
        if self.mode == "record":
            return RunCassette("record")
        paths = self.recorded.get(name)
        if not paths:
            return RunCassette(self.mode, (), absent=self.absent.format(name=name))
        return RunCassette(self.mode, [exchange for path in paths for exchange in _read(path)])


REPLAYED_SUFFIX = ".replayed"
"""A scorer cassette's observation ``<artifact name>.replayed``: how many of the
scorer's requests it answered (``.sent``: how many went out, ``replay-or-record``)."""


def keep_scorer_cassette(
    cassette: RunCassette, name: str, tags: Mapping[str, str]
) -> tuple[list[ScorerArtifact], list[ScorerObservation]]:
    """What a scorer keeps of its ``cassette`` (artifact ``name``): the recorded exchanges
    as that artifact (media type :data:`CASSETTE_MEDIA_TYPE`) when there are any, and the
    counts ``<name>.replayed`` (replaying) and ``<name>.sent`` (``replay-or-record``) as
    diagnostic metrics, all tagged ``tags``."""
    from autobench.core.scoring._base import ScorerArtifact, ScorerObservation

    artifacts = []
    if cassette.records and cassette.exchanges:
        artifacts.append(
            ScorerArtifact(
                name,
                dump_cassette(cassette.exchanges, cassette.policy),
                media_type=CASSETTE_MEDIA_TYPE,
                tags={**tags, "mode": cassette.mode},
            )
        )
    counts = {f"{name}.replayed": cassette.replayed} if cassette.replays else {}
    if cassette.mode == "replay-or-record":
        counts[f"{name}.sent"] = cassette.sent
    observations = [
        ScorerObservation(
            key, count, None, unit="requests", tags={**tags, "cassette": key.rpartition(".")[2]}
        )
        for key, count in counts.items()
    ]
    return artifacts, observations


def _rescored_artifacts(root: Path) -> dict[str, list[Any]]:
    """The artifacts of the derived records of every re-scoring in ``root``, by run id
    (oldest re-scoring first). Raises :class:`CassetteSourceError` for a damaged one."""
    from autobench.records import rescorings

    try:
        found = rescorings(root)
    except AutobenchError as exc:
        raise CassetteSourceError(f"cannot replay cassettes from {root}: {exc}") from exc
    by_run: dict[str, list[Any]] = {}
    for rescoring in found:
        for record in rescoring.records.values():
            by_run.setdefault(record.run_id, []).extend(record.artifacts)
    return by_run


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
