"""Types shared by the report tests."""

from __future__ import annotations

from collections.abc import Callable

from autobench.records import ExperimentResult

RunBench = Callable[..., ExperimentResult]
