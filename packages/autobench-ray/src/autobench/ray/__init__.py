"""The ``ray`` executor: an experiment's runs executed on a Ray cluster.

Installed by the ``autobench-ray`` distribution (the ``ray`` extra of ``autobench``),
which registers the executor named ``ray`` through the ``autobench_executors`` hook.
Choose it with ``autobench run SPEC --executor ray [--ray-address ADDRESS]``,
``executor: {name: ray, address: ...}`` in the spec, or ``Benchmark.executor("ray",
address=...)``. Without an address it starts a local Ray; with one it joins that
cluster. Each remote worker executes whole runs and returns their evidence; the
driver's sink records them, so the record directory is the one a local run writes.

Importing this package does not import Ray: only building the executor does (options in
:mod:`autobench.ray._options`, the driver in :mod:`autobench.ray._executor`, the remote
side in :mod:`autobench.ray._worker`).

The executor ships the spec's directory to the workers itself (Ray's ``working_dir``), so
Ray's own propagation of ``uv run`` is turned off here, before Ray is imported, unless
``RAY_ENABLE_UV_RUN_RUNTIME_ENV`` is set: when the driver runs under ``uv run``, Ray
would start every worker with ``uv run`` inside the unpacked spec directory, outside the
user's project and its environment, and the workers would never start (Ray retries them
forever). Workers of a local Ray run this interpreter; a cluster's run its own.
"""

import os
from typing import TYPE_CHECKING

from autobench.abp._lazy import lazy_attributes

os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

if TYPE_CHECKING:
    from autobench.ray._factory import ray_executor
    from autobench.ray._lost import WorkerLostError
    from autobench.ray._options import RayOptionError, RayOptions

# The names below are imported on first use (PEP 562): the plugin manager imports this
# package (for ``autobench.ray._plugin``) in every command that loads the plugins, and
# ``_lost`` imports Autobench's runtime, which a command that only reads records never uses.
_WHERE = {
    "RayOptionError": "_options",
    "RayOptions": "_options",
    "WorkerLostError": "_lost",
    "ray_executor": "_factory",
}

__all__ = sorted(_WHERE)

__getattr__ = lazy_attributes(__name__, _WHERE)
