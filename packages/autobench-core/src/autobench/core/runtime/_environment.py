"""Provenance of an experiment: the environment it ran in and the files it read.

Both are cheap: the environment is a handful of interpreter and platform
facts (distribution versions are looked up once per process), and source
files are hashed once per experiment.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import socket
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from autobench.core.distributions import DISTRIBUTIONS
from autobench.core.runtime._tasks import task_module_file
from autobench.core.spec import BenchmarkSpec, load_benchmark_spec


@functools.cache
def _static_environment() -> dict[str, Any]:
    versions: dict[str, str] = {}
    for name in DISTRIBUTIONS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    try:
        hostname: str | None = socket.gethostname()
    except OSError:
        hostname = None
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "hostname": hostname,
        "packages": versions,
    }


def capture_environment() -> dict[str, Any]:
    """A small description of where the experiment runs.

    Keys: ``python`` (version), ``implementation`` (``cpython``...),
    ``platform``, ``machine``, ``hostname`` (``None`` when unavailable),
    ``packages`` (``{distribution: version}`` of the installed Autobench
    distributions) and ``cwd``.
    """
    environment = dict(_static_environment())
    environment["packages"] = dict(environment["packages"])
    environment["cwd"] = os.getcwd()
    return environment


def file_sha256(path: Path) -> str:
    """Hex sha256 of the file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _display_path(path: Path, base_dir: Path | None) -> str:
    if base_dir is not None:
        try:
            return path.resolve().relative_to(base_dir.resolve()).as_posix()
        except ValueError:
            pass
    return path.resolve().as_posix()


def collect_benchmark_source_files(
    spec: BenchmarkSpec | str | Path, *, spec_path: Path | str | None = None
) -> dict[str, str]:
    """``{path: sha256}`` of the files a benchmark reads: the spec file, its dataset
    files (``spec.source_files``, filled by the YAML loader) and the task module
    file (when it can be found without importing it).

    ``spec`` is a loaded spec or the path of a spec file (loaded with
    ``load_benchmark_spec``, which raises ``SpecError``). ``spec_path`` adds a
    spec file a Python-built spec did not record. Paths are relative to
    ``spec.base_dir`` when they lie under it (posix form), absolute otherwise;
    missing files are skipped.
    """
    if not isinstance(spec, BenchmarkSpec):
        spec_path = Path(spec)
        spec = load_benchmark_spec(spec_path)
    files: list[Path] = [] if spec_path is None else [Path(spec_path)]
    files.extend(spec.source_files)
    task_file = task_module_file(spec)
    if task_file is not None:
        files.append(task_file)
    hashes: dict[str, str] = {}
    for path in files:
        if not path.is_absolute() and spec.base_dir is not None:
            path = spec.base_dir / path
        if path.is_file():
            hashes.setdefault(_display_path(path, spec.base_dir), file_sha256(path))
    return hashes
