"""The options of the ``ray`` executor, as written beside its name.

``executor: {name: ray, address: ..., num_cpus: ..., excludes: [...]}`` in a spec,
``Benchmark.executor("ray", address=...)``, or ``--ray-address`` /
``--executor-option KEY=VALUE`` on ``autobench run``. Command-line values arrive as
strings; numbers are converted here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from autobench.abp import AutobenchError

DEFAULT_EXCLUDES: tuple[str, ...] = (".autobench", ".git", ".venv", "__pycache__", "*.pyc")
"""Paths of the spec's directory never shipped to the workers: records, VCS data,
virtual environments and bytecode (Ray also honours ``.gitignore`` and ``.rayignore``)."""


class RayOptionError(AutobenchError, ValueError):
    """An option the ``ray`` executor does not take, or a value of the wrong kind."""


@dataclass(frozen=True, slots=True)
class RayOptions:
    """The ``ray`` executor's options.

    ``address``: the cluster to join (``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``);
    ``None`` starts a local Ray (or uses the one this process already started with
    ``ray.init``). ``num_cpus``: the CPUs one run asks for; ``None`` shares the cluster's
    CPUs among ``concurrency`` runs (at most one each), so the concurrency bound, not the
    CPU count, decides how many runs are active. ``excludes``: extra gitignore-style
    patterns of the spec's directory not to ship (added to :data:`DEFAULT_EXCLUDES`).
    """

    address: str | None = None
    num_cpus: float | None = None
    excludes: tuple[str, ...] = ()

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> RayOptions:
        """The options from ``options``; raises :class:`RayOptionError` naming an unknown option
        or a value of the wrong kind."""
        unknown = sorted(set(map(str, options)) - {"address", "num_cpus", "excludes"})
        if unknown:
            raise RayOptionError(
                f"the ray executor takes the options address, num_cpus and excludes; "
                f"got unknown: {', '.join(unknown)}"
            )
        address = options.get("address")
        if address is not None and (not isinstance(address, str) or not address):
            raise RayOptionError(
                f"ray executor option address must be a non-empty string, got {address!r}"
            )
        return cls(
            address=address,
            num_cpus=_num_cpus(options.get("num_cpus")),
            excludes=_excludes(options.get("excludes")),
        )


def _num_cpus(value: Any) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RayOptionError(
            f"ray executor option num_cpus must be a number, got {value!r}"
        ) from None
    if number < 0 or isinstance(value, bool):
        raise RayOptionError(f"ray executor option num_cpus must be a number >= 0, got {value!r}")
    return number


def _excludes(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(part for part in value.split(",") if part)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise RayOptionError(f"ray executor option excludes must be a list of patterns, got {value!r}")
