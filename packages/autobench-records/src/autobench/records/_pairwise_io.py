"""Reading and writing pairwise records, and finding those of an experiment.

Layout and sections: :mod:`autobench.records._pairwise_record`.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from autobench.records._atomic import AtomicFiles
from autobench.records._codec import record_body, validate_record
from autobench.records._errors import RecordFormatError, RecordingError
from autobench.records._extraction_record import DERIVED_DIR
from autobench.records._pairwise_record import (
    PAIRWISE_DIR,
    PAIRWISE_RECORD_VERSION,
    PairwiseRecord,
)
from autobench.records._paths import safe_segment
from autobench.records._rescore_io import HASH_DIGITS
from autobench.records._values import encode_value
from autobench.records._yaml import dump_record


def pairwise_record_to_yaml(record: PairwiseRecord) -> str:
    """The text of ``record``'s file."""
    sections = record.model_dump(mode="python", exclude_defaults=True, by_alias=True)
    return dump_record("pairwise", PAIRWISE_RECORD_VERSION, encode_value(sections))


def pairwise_record_from_yaml(text: str, *, source: Path | str | None = None) -> PairwiseRecord:
    """Read a pairwise record's text (header checked like every record file). Raises
    :class:`RecordFormatError` naming ``source`` (and the line of a bad value)."""
    body = record_body(text, "pairwise", source=source)
    return validate_record(PairwiseRecord, body, source=source, text=text)


def pairwise_path(judge: str, definition_hash: str, baseline: str, candidate: str) -> str:
    """Where the judging of ``baseline`` against ``candidate`` by the judge named ``judge``
    with definition hash ``definition_hash`` is stored (relative to the experiment dir)."""
    pair = f"{safe_segment(baseline)}~{safe_segment(candidate)}.yaml"
    return (
        f"{DERIVED_DIR}/{PAIRWISE_DIR}/{safe_segment(judge)}/{definition_hash[:HASH_DIGITS]}/{pair}"
    )


def load_pairwise_record(path: Path, *, root: Path | None = None) -> PairwiseRecord:
    """Read the pairwise record at ``path``; ``root`` (the experiment directory) lets the
    record know its relative path. Raises :class:`RecordFormatError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordFormatError("no pairwise record here", path=path) from None
    record = pairwise_record_from_yaml(text, source=path)
    if root is not None:
        record = record.stored_at(path.relative_to(root).as_posix())
    return record


def store_pairwise_record(root: Path, record: PairwiseRecord) -> PairwiseRecord:
    """Write ``record`` under ``root``; returns it knowing its path. Raises
    :class:`RecordingError` when that file exists (derived records are never overwritten)
    or the storage fails."""
    root = Path(root)
    lineage = record.lineage
    relative = pairwise_path(
        lineage.judge.name, lineage.judge.hash, lineage.baseline, lineage.candidate
    )
    target = root.joinpath(*PurePosixPath(relative).parts)
    if target.exists():
        raise RecordingError(
            f"cannot write {target}: this judge already compared {lineage.baseline} with "
            f"{lineage.candidate}, and derived records are never overwritten",
            path=target,
        )
    files = AtomicFiles(root, schema_root=root.joinpath(*PurePosixPath(relative).parts[:4]))
    files.ensure_dir(target.parent, for_path=target)
    files.create(target, pairwise_record_to_yaml(record).encode("utf-8"))
    files.sync()
    return record.stored_at(relative)


def pairwise_records(root: Path | str) -> tuple[PairwiseRecord, ...]:
    """Every pairwise record stored under ``root`` (an experiment directory), the newest
    judging of each (judge name, baseline, candidate) only, in path order. Raises
    :class:`RecordFormatError` for a damaged one."""
    directory = Path(root) / DERIVED_DIR / PAIRWISE_DIR
    if not directory.is_dir():
        return ()
    found = [
        load_pairwise_record(path, root=Path(root)) for path in sorted(directory.glob("*/*/*.yaml"))
    ]
    newest: dict[tuple[str, str, str], PairwiseRecord] = {}
    for record in found:
        lineage = record.lineage
        key = (lineage.judge.name, lineage.baseline, lineage.candidate)
        if key not in newest or newest[key].lineage.judged_at < lineage.judged_at:
            newest[key] = record
    return tuple(record for record in found if record in newest.values())
