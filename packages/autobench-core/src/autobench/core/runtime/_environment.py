"""Provenance of an experiment: the environment it ran in and the files it read.

Both are cheap: the environment is a handful of interpreter and platform
facts (distribution versions are looked up once per process), and source
files are hashed once per experiment.
"""

from __future__ import annotations

import functools
import hashlib
import platform
import socket
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from autobench.core.distributions import DISTRIBUTIONS
from autobench.core.runtime._portable import portable_path
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


def capture_environment(base_dir: Path | None = None) -> dict[str, Any]:
    """A small description of where the experiment runs.

    Keys: ``python`` (version), ``implementation`` (``cpython``...),
    ``platform``, ``machine``, ``hostname`` (``None`` when unavailable),
    ``packages`` (``{distribution: version}`` of the installed Autobench
    distributions), and ``cwd`` only when the working directory lies inside
    ``base_dir`` (the spec's directory): then relative to it (posix form,
    ``.`` for the directory itself). No absolute path of the machine is kept,
    so a record directory reads the same anywhere. Records written before this
    rule may hold an absolute ``cwd``; readers take it as they take any other
    environment entry.
    """
    environment = dict(_static_environment())
    environment["packages"] = dict(environment["packages"])
    if base_dir is not None:
        try:
            relative = Path.cwd().resolve().relative_to(Path(base_dir).resolve())
        except (OSError, ValueError):
            pass
        else:
            environment["cwd"] = relative.as_posix()
    return environment


def file_sha256(path: Path) -> str:
    """Hex sha256 of the file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def collect_benchmark_source_files(
    spec: BenchmarkSpec | str | Path, *, spec_path: Path | str | None = None
) -> dict[str, str]:
    """``{path: sha256}`` of the files a benchmark reads: the spec file, its dataset
    files (``spec.source_files``, filled by the YAML loader) and the task module
    file (when it can be found without importing it).

    ``spec`` is a loaded spec or the path of a spec file (loaded with
    ``load_benchmark_spec``, which raises ``SpecError``). ``spec_path`` adds a
    spec file a Python-built spec did not record. Paths are relative to
    ``spec.base_dir`` (posix form, with ``..`` for a file beside it), or a
    placeholder path such as ``<site-packages>/...`` for a module of the
    interpreter (see ``_portable``); missing files are skipped.
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
            hashes.setdefault(portable_path(path, spec.base_dir), file_sha256(path))
    return hashes
