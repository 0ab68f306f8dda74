"""Finding experiments (directories holding ``experiment.yaml``) under the given roots."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

EXPERIMENT_FILE = "experiment.yaml"


@dataclass(frozen=True)
class Found:
    """One experiment directory: ``key`` is its URL segment (its path relative to the
    root it was found under, with ``root`` the index of that root), ``path`` is resolved."""

    key: str
    root: int
    path: Path


def find_experiments(roots: tuple[Path, ...]) -> list[Found]:
    """Every directory at or below each of ``roots`` (resolved) holding ``experiment.yaml``,
    sorted by root then relative path. The walk does not descend into an experiment
    directory it found (its thousands of run folders hold no experiment). Symbolic links to
    directories are not followed, so nothing outside the roots is found."""
    found: list[Found] = []
    for index, root in enumerate(roots):
        for here, dirs, files in os.walk(root, followlinks=False):
            dirs.sort()
            if EXPERIMENT_FILE in files:
                relative = Path(here).relative_to(root).as_posix()
                key = f"{index}/{'' if relative == '.' else relative}".rstrip("/")
                found.append(Found(key=key, root=index, path=Path(here)))
                dirs[:] = []  # an experiment's own folders (runs, artifacts) hold no other
    return found


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, with every symbolic link resolved, lies at or below ``root``
    (already resolved)."""
    try:
        path.resolve(strict=True).relative_to(root)
    except (OSError, ValueError):
        return False
    return True


def split_key(keys: list[str], path: str) -> tuple[str, str] | None:
    """``path`` (what follows ``/x/`` in an address) split into the experiment key it starts
    with and the rest (``""`` for the experiment page itself), or ``None`` when it starts
    with none of ``keys``. The longest key wins, so an experiment directory named ``run``,
    ``compare``, ``file`` or ``live`` (or lying under one) is still reached by its own key.
    The walk never finds an experiment inside another, so at most one key can match a
    path segment by segment: the longest one is that key."""
    best = None
    for key in keys:
        if (path == key or path.startswith(key + "/")) and (best is None or len(key) > len(best)):
            best = key
    if best is None:
        return None
    return best, path[len(best) :].lstrip("/")
