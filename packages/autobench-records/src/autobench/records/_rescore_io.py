"""Reading and writing re-scoring records, finding the re-scorings of an experiment and
laying one over a replayed result.

Layout and sections: :mod:`autobench.records._rescore_record`. A re-scoring is the
directory ``derived/rescore/<scorer>/<hash>/`` of one scorer definition; it is named
``<scorer>`` (its newest re-scoring) or ``<scorer>@<hash prefix>``.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from autobench.abp import AutobenchError
from autobench.records._atomic import AtomicFiles
from autobench.records._codec import record_body, validate_record
from autobench.records._directory import payload_file
from autobench.records._errors import RecordFormatError, RecordingError
from autobench.records._extraction_record import DERIVED_DIR
from autobench.records._ownership import record_file
from autobench.records._paths import safe_segment
from autobench.records._records import RunRecord
from autobench.records._rescore_record import (
    RESCORE_DIR,
    RESCORE_FILE,
    RESCORE_RECORD_VERSION,
    RescoreRecord,
)
from autobench.records._result import ExperimentResult
from autobench.records._values import encode_value
from autobench.records._yaml import dump_record

HASH_DIGITS = 12
"""How many hex digits of the scorer definition's hash name its directory."""


class UnknownRescoringError(AutobenchError, LookupError):
    """No re-scoring of that name in the record directory; the message names the
    directory, the closest known name and every known one."""


def rescore_record_to_yaml(record: RescoreRecord) -> str:
    """The ``score.yaml`` text of ``record``."""
    sections = record.model_dump(mode="python", exclude_defaults=True)
    return dump_record("rescore", RESCORE_RECORD_VERSION, encode_value(sections))


def rescore_record_from_yaml(text: str, *, source: Path | str | None = None) -> RescoreRecord:
    """Read ``score.yaml`` text (header checked like every record file). Raises
    :class:`RecordFormatError` naming ``source`` (and the line of a bad value)."""
    body = record_body(text, "rescore", source=source)
    return validate_record(RescoreRecord, body, source=source, text=text)


def load_rescore_record(path: Path, *, root: Path | None = None) -> RescoreRecord:
    """Read the derived record at ``path``; ``root`` (the experiment directory) lets the
    returned record know its relative path. Raises :class:`RecordFormatError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordFormatError("no re-scoring record here", path=path) from None
    record = rescore_record_from_yaml(text, source=path)
    if root is not None:
        record = record.stored_at(path.relative_to(root).as_posix())
    return record


def rescore_path(run_path: str, scorer: str, definition_hash: str) -> str:
    """Where the re-scoring of the run stored at ``run_path`` by the scorer named ``scorer``
    with definition hash ``definition_hash`` goes (relative to the experiment directory)."""
    run_dir = PurePosixPath(run_path).parent.as_posix()
    return (
        f"{DERIVED_DIR}/{RESCORE_DIR}/{safe_segment(scorer)}/"
        f"{definition_hash[:HASH_DIGITS]}/{run_dir}/{RESCORE_FILE}"
    )


def store_rescore_record(
    root: Path,
    run_path: str,
    record: RescoreRecord,
    payloads: Mapping[str, Any] | None = None,
) -> RescoreRecord:
    """Write ``record`` (the re-scoring of the run stored at ``run_path``) under ``root``;
    returns it knowing its path. ``payloads`` maps the id of each of the record's
    artifacts to its payload, written beside ``score.yaml`` (stored as a run's artifact
    payloads are, see :mod:`autobench.records._directory`) before it, the artifact
    given its path, size and sha256. Raises :class:`RecordingError` when that file
    exists (derived records are never overwritten) or the storage fails."""
    root = Path(root)
    relative = rescore_path(run_path, record.scorer.name, record.scorer.hash)
    target = root.joinpath(*PurePosixPath(relative).parts)
    if target.exists():
        raise RecordingError(
            f"cannot write {target}: scorer {record.scorer.name!r} with this definition was "
            "already re-scored for this run, and derived records are never overwritten",
            path=target,
        )
    files = AtomicFiles(root, schema_root=root.joinpath(*PurePosixPath(relative).parts[:4]))
    files.ensure_dir(target.parent, for_path=target)
    if payloads:
        folder = PurePosixPath(relative).parent
        used = {RESCORE_FILE}
        artifacts = []
        for ref in record.artifacts:
            if ref.id not in payloads:
                artifacts.append(ref)
                continue
            extension, data = payload_file(ref, payloads[ref.id])
            stem = safe_segment(ref.name)
            name = stem if stem.endswith(extension) else stem + extension
            if name in used:
                name = safe_segment(f"{ref.name}#{ref.id}") + extension
            used.add(name)
            stored = (folder / name).as_posix()
            path = root.joinpath(*PurePosixPath(stored).parts)
            data = files.localize(path, data)  # hashed as written
            files.create(path, data)
            artifacts.append(
                ref.model_copy(
                    update={
                        "path": stored,
                        "size": len(data),
                        "sha256": hashlib.sha256(data).hexdigest(),
                    }
                )
            )
        record = record.model_copy(update={"artifacts": tuple(artifacts)})
    files.create(target, rescore_record_to_yaml(record).encode("utf-8"))
    files.sync()
    return record.stored_at(relative)


def run_sha256(root: Path, run_path: str) -> str | None:
    """sha256 hex digest of the bytes of the run file at ``run_path`` (``None`` if absent)."""
    path = Path(root).joinpath(*PurePosixPath(run_path).parts)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


@dataclass(frozen=True)
class Rescoring:
    """One re-scoring of an experiment: the derived records of one scorer definition.

    ``name`` is the scorer's name, ``hash`` its definition hash (full), ``directory`` the
    ``derived/rescore/<scorer>/<hash>`` directory, ``records`` maps each re-scored run's
    record path (``cases/<case>/<variant>/run.yaml``) to its record, and ``rescored_at``
    is the newest record's time.
    """

    name: str
    hash: str
    directory: Path
    records: dict[str, RescoreRecord]
    rescored_at: datetime

    @property
    def label(self) -> str:
        """``<name>@<hash prefix>``: how ``--rescored`` names exactly this re-scoring."""
        return f"{self.name}@{self.hash[:HASH_DIGITS]}"


def rescorings(root: Path) -> tuple[Rescoring, ...]:
    """Every re-scoring stored in the experiment directory ``root``, oldest first. Raises
    :class:`RecordFormatError` for a damaged derived record."""
    root = Path(root)
    base = root / DERIVED_DIR / RESCORE_DIR
    if not base.is_dir():
        return ()
    found = []
    for scorer_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        for hash_dir in sorted(p for p in scorer_dir.iterdir() if p.is_dir()):
            records: dict[str, RescoreRecord] = {}
            for path in sorted(hash_dir.rglob(RESCORE_FILE)):
                relative = path.relative_to(root).as_posix()
                inside = record_file(root, relative, what="derived record", source=path)
                record = load_rescore_record(inside, root=root)
                records[record.lineage.run_record] = record
            if records:
                first = next(iter(records.values()))
                found.append(
                    Rescoring(
                        name=first.scorer.name,
                        hash=first.scorer.hash,
                        directory=hash_dir,
                        records=records,
                        rescored_at=max(r.lineage.rescored_at for r in records.values()),
                    )
                )
    return tuple(sorted(found, key=lambda item: item.rescored_at))


def rescoring_labels(root: Path) -> tuple[str, ...]:
    """``<scorer>@<hash prefix>`` of every re-scoring in ``root``, reading one derived
    record of each (cheap enough for a note beside every report)."""
    base = Path(root) / DERIVED_DIR / RESCORE_DIR
    if not base.is_dir():
        return ()
    labels = []
    for scorer_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        for hash_dir in sorted(p for p in scorer_dir.iterdir() if p.is_dir()):
            first = next(hash_dir.rglob(RESCORE_FILE), None)
            if first is not None:
                record = load_rescore_record(first)
                labels.append(f"{record.scorer.name}@{record.scorer.hash[:HASH_DIGITS]}")
    return tuple(labels)


def find_rescoring(root: Path, name: str) -> Rescoring:
    """The re-scoring ``name`` designates in ``root``: ``<scorer>`` for the newest
    re-scoring of that scorer, ``<scorer>@<hash prefix>`` for one definition. Raises
    :class:`UnknownRescoringError` (closest name and every known one in the message)."""
    known = rescorings(root)
    scorer, _, prefix = name.partition("@")
    matches = [
        item
        for item in known
        if item.name == scorer and (not prefix or item.hash.startswith(prefix.lower()))
    ]
    if matches:
        return matches[-1]
    names = sorted({item.name for item in known} | {item.label for item in known})
    if not names:
        raise UnknownRescoringError(
            f"{root}: no re-scoring named {name!r}: this experiment has not been re-scored "
            f"(`autobench rescore {root} --score NAME` writes one)"
        )
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownRescoringError(
        f"{root}: no re-scoring named {name!r}{hint}; known: {', '.join(names)}"
    )


def with_rescored(result: ExperimentResult, names: tuple[str, ...]) -> ExperimentResult:
    """``result`` (replayed from its record directory) with the scores of the re-scorings
    ``names`` (see :func:`find_rescoring`) in place of the recorded ones, run by run; a run
    a re-scoring did not cover keeps its recorded score. Statuses stay as recorded.
    Raises ``TypeError`` for a result without ``root_dir`` and
    :class:`UnknownRescoringError` for an unknown name."""
    if not names:
        return result
    if result.root_dir is None:
        raise TypeError("with_rescored needs a result replayed from a record directory")
    chosen = [find_rescoring(result.root_dir, name) for name in names]
    paths = {planned.id: planned.path for planned in result.experiment.plan}
    runs: list[RunRecord] = []
    for run in result.runs:
        path = paths.get(run.run_id)
        for rescoring in chosen:
            record = rescoring.records.get(path) if path is not None else None
            if record is not None:
                run = record.apply(run)
        runs.append(run)
    return dataclasses.replace(result, runs=tuple(runs))
