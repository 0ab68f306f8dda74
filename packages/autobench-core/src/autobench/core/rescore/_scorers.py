"""Which scorers a re-scoring runs: named ones of the recorded spec, or of a spec file.

The experiment record keeps the spec's scorers (``benchmark.spec.snapshot.scoring`` of
``experiment.yaml``); a spec file given instead supplies new or changed ones (a new
rubric, another threshold). Scorers are validated by kind through the plugins' scorer
registry, as the spec loader does, so every kind (built-in or a plugin's) re-scores the
same way. A name the spec does not have is a :class:`SpecError` at the spec's scorers,
with the closest name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from autobench.core._keys import did_you_mean
from autobench.core.planning import canonical_json
from autobench.core.plugins import AutobenchPlugins, default_plugins
from autobench.core.scoring import ScorerSpec
from autobench.core.spec import SpecError, load_benchmark_spec
from autobench.core.spec._errors import Location, one_of
from autobench.records import RECORDED_SPEC, ExperimentRecord, ScorerDefinition
from autobench.records._locate import locate_value
from autobench.records._yaml import compose_yaml

EXPERIMENT_FILE = "experiment.yaml"
_SNAPSHOT_SCORING = ("benchmark", "spec", "snapshot", "scoring")


class UnknownScorerError(SpecError):
    """A re-scoring names a scorer its spec does not have: located at the spec's scorers,
    with the closest name and every known one (``expected``)."""


@dataclass(frozen=True)
class RescoreScorers:
    """The scorers of a re-scoring, prepared (targets resolved) and in the order named.

    ``definitions`` gives each one's :class:`ScorerDefinition` (name, kind, definition
    and its hash); ``spec`` is ``"recorded"`` or the path of the spec file, and
    ``spec_sha256`` that file's digest (``None`` for the recorded spec); ``base_dir`` is
    where ``module:attribute`` targets were resolved from.
    """

    scorers: tuple[ScorerSpec, ...]
    definitions: tuple[ScorerDefinition, ...]
    spec: str
    spec_sha256: str | None
    base_dir: Path | None


def definition_of(scorer: ScorerSpec) -> ScorerDefinition:
    """The :class:`ScorerDefinition` of ``scorer``: its JSON dump (with, under ``content``,
    the digests of the files it names and has read, :meth:`ScorerSpec.definition_content`)
    and the sha256 of that dump's canonical JSON (where the spec wrote it is not part of it)."""
    definition: dict[str, Any] = scorer.model_dump(mode="json", exclude_defaults=True)
    definition = {"kind": scorer.kind, **definition}
    if content := scorer.definition_content():
        definition["content"] = dict(sorted(content.items()))
    digest = hashlib.sha256(canonical_json(definition).encode()).hexdigest()
    return ScorerDefinition(name=scorer.name, kind=scorer.kind, hash=digest, definition=definition)


def rescore_scorers(
    root: Path,
    experiment: ExperimentRecord,
    names: Sequence[str],
    *,
    spec: Path | str | None = None,
    plugins: AutobenchPlugins | None = None,
) -> RescoreScorers:
    """The scorers ``names`` of the experiment recorded in ``root`` (its recorded spec), or
    of the spec file ``spec`` when given, prepared to score.

    Targets of the recorded spec resolve from the directory that holds the experiment's
    recorded files (the current directory, or one above ``root``), else the current
    directory; those of a spec file from its directory. Raises :class:`SpecError` for a
    name that is not a scorer of that spec (located at its scorers, with the closest
    name) or a recorded scorer whose kind no installed plugin provides, the spec loader's
    errors for a bad spec file, and :class:`ScorerResolutionError` for a target that
    does not resolve.
    """
    plugins = plugins if plugins is not None else default_plugins()
    if spec is not None:
        loaded = load_benchmark_spec(spec, plugins=plugins)
        spec_path = Path(spec)
        available = {scorer.name: scorer for scorer in loaded.scoring}
        where = _spec_location(spec_path, loaded.benchmark.id)
        source, digest, base_dir = str(spec_path), _sha256(spec_path), loaded.base_dir
        what = f"the spec {spec_path}"
    else:
        available = _recorded_scorers(root, experiment, plugins)
        where = _recorded_location(root)
        source, digest, base_dir = RECORDED_SPEC, None, _recorded_spec_dir(root, experiment)
        what = "the experiment's recorded spec"
    chosen: list[ScorerSpec] = []
    for name in dict.fromkeys(names):
        scorer = available.get(name)
        if scorer is None:
            raise UnknownScorerError(
                where,
                f"no scorer {name!r} in {what}{did_you_mean(name, available)}",
                expected=one_of(available) if available else "a spec with a `score` section",
            )
        chosen.append(scorer.prepare(base_dir))
    return RescoreScorers(
        scorers=tuple(chosen),
        definitions=tuple(definition_of(scorer) for scorer in chosen),
        spec=source,
        spec_sha256=digest,
        base_dir=base_dir,
    )


def _recorded_scorers(
    root: Path, experiment: ExperimentRecord, plugins: AutobenchPlugins
) -> dict[str, ScorerSpec]:
    snapshot = experiment.benchmark.spec.snapshot if experiment.benchmark.spec else {}
    items = snapshot.get("scoring") or ()
    scorers: dict[str, ScorerSpec] = {}
    for index, item in enumerate(items):
        try:
            scorer = plugins.scorers.validate(item)
        except (ValueError, ValidationError) as error:
            raise SpecError(
                _recorded_location(root, index),
                f"recorded scorer {index + 1} cannot be rebuilt: {error}",
                expected="a scorer kind an installed plugin provides",
            ) from None
        scorers[scorer.name] = scorer
    return scorers


def _recorded_location(root: Path, index: int | None = None) -> Location:
    path = Path(root) / EXPERIMENT_FILE
    loc: tuple[str | int, ...] = _SNAPSHOT_SCORING if index is None else (*_SNAPSHOT_SCORING, index)
    try:
        found = locate_value(path.read_text(encoding="utf-8"), loc)
    except OSError:
        found = None
    return Location(path, *found) if found else Location(path)


def _spec_location(path: Path, benchmark: str) -> Location:
    """Where a spec file lists its scorers: ``scoring`` (structured form) or the
    benchmark's ``score`` (authoring form)."""
    try:
        text = path.read_text(encoding="utf-8")
        node = compose_yaml(text)
    except (OSError, ValueError):
        return Location(path)
    keys = {key.value for key, _ in getattr(node, "value", ()) if hasattr(key, "value")}
    loc: tuple[str, ...] = ("scoring",) if "scoring" in keys else ("benchmark", benchmark, "score")
    found = locate_value(text, loc)
    return Location(path, *found) if found else Location(path)


def _recorded_spec_dir(root: Path, experiment: ExperimentRecord) -> Path:
    """The first of the current directory and the directories above ``root`` that holds
    every file of the spec's directory the experiment recorded; else the current one."""
    files = [name for name in experiment.files if not name.startswith(("<", "~", "..", "/"))]
    for directory in (Path.cwd(), *Path(root).resolve().parents):
        if files and all((directory / name).is_file() for name in files):
            return directory
    return Path.cwd()


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
