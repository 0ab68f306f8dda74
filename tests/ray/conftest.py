"""One local Ray (2 CPUs) for the whole test session, started on first use.

Ray takes seconds to start, so every test of this directory shares it: in-process runs
find it already connected (the executor keeps an existing connection), and command-line
subprocesses join it with ``--ray-address`` (the :func:`ray_address` fixture).
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import autobench.ray  # noqa: F401  (before Ray: it turns off Ray's `uv run` propagation)

ray = pytest.importorskip("ray")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """The address of the session's local Ray (GCS ``HOST:PORT``)."""
    context = ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.WARNING,
        log_to_driver=False,
    )
    try:
        yield context.address_info["gcs_address"]
    finally:
        ray.shutdown()


@pytest.fixture
def example(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A copy of ``examples/<name>`` (``name`` given by indirect parametrisation or
    ``basic``) in the test's directory."""
    name = getattr(request, "param", "basic")
    target = tmp_path / name
    shutil.copytree(EXAMPLES / name, target, ignore=shutil.ignore_patterns(".autobench"))
    return target
