"""Reading and writing extraction records, and merging them into the runs they derive from.

Layout and sections: :mod:`autobench.records._extraction_record`. A run may have
derived records of several extractors (``derived/<extractor>/<version>/...``)
and several versions of each; :meth:`DerivedRecords.latest_extractions` gives, per extractor
name, the record of the highest version that exists for the run, and
:func:`merge_extractions` appends their observations to the run (replay does
this for every run, so reports include extracted evidence).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from autobench.records._codec import record_body, validate_record
from autobench.records._errors import RecordFormatError
from autobench.records._extraction_record import (
    DERIVED_DIR,
    EXTRACTION_FILE,
    EXTRACTION_RECORD_VERSION,
    ExtractionRecord,
)
from autobench.records._ownership import record_file
from autobench.records._paths import safe_segment
from autobench.records._records import RunRecord
from autobench.records._rescore_record import RESCORE_DIR
from autobench.records._values import encode_value
from autobench.records._yaml import dump_record


def extraction_record_to_yaml(record: ExtractionRecord) -> str:
    """The ``extraction.yaml`` text of ``record`` (observations without case/variant)."""
    sections = record.model_dump(mode="python", exclude_defaults=True)
    for observation in sections.get("observations", ()):
        observation.pop("case", None)
        observation.pop("variant", None)
    return dump_record("extraction", EXTRACTION_RECORD_VERSION, encode_value(sections))


def extraction_record_from_yaml(text: str, *, source: Path | str | None = None) -> ExtractionRecord:
    """Read ``extraction.yaml`` text (header checked like every record file); each
    observation gets the lineage's case and variant back."""
    body = record_body(text, "extraction", source=source)
    lineage = body.get("lineage")
    if isinstance(lineage, dict):
        for observation in body.get("observations") or ():
            if isinstance(observation, dict):
                observation.setdefault("case", lineage.get("case"))
                observation.setdefault("variant", lineage.get("variant"))
    return validate_record(ExtractionRecord, body, source=source, text=text)


def load_extraction_record(path: Path, *, root: Path | None = None) -> ExtractionRecord:
    """Read the derived record at ``path``; ``root`` (the experiment directory) lets the
    returned record know its relative path."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordFormatError("no extraction record here", path=path) from None
    record = extraction_record_from_yaml(text, source=path)
    if root is not None:
        record = record.stored_at(path.relative_to(root).as_posix())
    return record


def extraction_path(run_path: str, extractor: str, version: str) -> str:
    """Where the extraction of the run stored at ``run_path`` by ``extractor`` ``version`` goes."""
    run_dir = PurePosixPath(run_path).parent.as_posix()
    return f"{DERIVED_DIR}/{safe_segment(extractor)}/{safe_segment(version)}/{run_dir}/{EXTRACTION_FILE}"


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key for versions: parts split on ``.``, ``-``, ``+``, ``@``; numbers numerically."""
    parts = [part for part in re.split(r"[.\-+@]", version) if part]
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts)


def extractions_of(root: Path, run_path: str, extractor: str) -> tuple[ExtractionRecord, ...]:
    """Every derived record of ``extractor`` (any version) for the run at ``run_path``."""
    base = Path(root) / DERIVED_DIR / safe_segment(extractor)
    run_dir = PurePosixPath(run_path).parent
    if not base.is_dir():
        return ()
    found = []
    for version_dir in sorted(base.iterdir()):
        candidate = version_dir.joinpath(*run_dir.parts, EXTRACTION_FILE)
        if candidate.is_file():
            found.append(load_extraction_record(_inside(Path(root), candidate), root=Path(root)))
    return tuple(found)


def _inside(root: Path, candidate: Path) -> Path:
    """``candidate`` (a derived record under ``root``) when it resolves inside ``root``;
    a symlinked directory leading out raises :class:`RecordFormatError`."""
    relative = candidate.relative_to(root).as_posix()
    return record_file(root, relative, what="derived record", source=candidate)


class DerivedRecords:
    """The ``derived/`` directory of one experiment: its extractor and version directories,
    listed once, highest version first (``derived/rescore/``, re-scoring's, is not one)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        base = self.root / DERIVED_DIR
        self._versions: list[list[Path]] = []
        if base.is_dir():
            for extractor_dir in sorted(p for p in base.iterdir() if p.is_dir()):
                if extractor_dir.name == RESCORE_DIR:  # re-scoring's, not an extractor's
                    continue
                versions = [p for p in extractor_dir.iterdir() if p.is_dir()]
                versions.sort(key=lambda p: version_key(p.name), reverse=True)
                self._versions.append(versions)

    def __bool__(self) -> bool:
        return bool(self._versions)

    def latest_extractions(self, run_path: str) -> tuple[ExtractionRecord, ...]:
        """Per extractor, the highest-version derived record of the run stored at
        ``run_path`` (relative to the experiment directory), if it has one."""
        parts = PurePosixPath(run_path).parent.parts
        found: list[ExtractionRecord] = []
        for versions in self._versions:
            for version_dir in versions:
                candidate = version_dir.joinpath(*parts, EXTRACTION_FILE)
                if candidate.is_file():
                    found.append(
                        load_extraction_record(_inside(self.root, candidate), root=self.root)
                    )
                    break
        return tuple(found)


def merge_extractions(run: RunRecord, records: Sequence[ExtractionRecord]) -> RunRecord:
    """``run`` with the observations of its derived ``records`` appended, each once: an
    observation already merged from another record (same id, extractor and version, as
    when one extractor ran alone and inside a composite) is skipped."""
    seen: set[tuple[str, str | None, str | None]] = set()
    for record in records:
        owned = [
            o
            for o in record.observations
            if (o.id, o.tags.get("extractor"), o.tags.get("extractor_version")) not in seen
        ]
        seen.update((o.id, o.tags.get("extractor"), o.tags.get("extractor_version")) for o in owned)
        run = record.model_copy(update={"observations": tuple(owned)}).apply(run)
    return run
