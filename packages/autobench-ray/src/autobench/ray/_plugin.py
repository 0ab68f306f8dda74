"""The ``autobench`` entry point of this distribution: the ``ray`` executor.

Listing executors must stay cheap, so this module imports neither Ray nor the
driver; the factory imports them when an experiment builds its executor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pluggy

hookimpl = pluggy.HookimplMarker("autobench")


@hookimpl
def autobench_executors() -> Mapping[str, Callable[..., Any]]:
    """``{"ray": ray_executor}`` (see :func:`autobench.ray.ray_executor`)."""
    from autobench.ray._factory import ray_executor

    return {"ray": ray_executor}
