"""Fixtures of the HTTPX instrumentor tests: both flavours, a manager, a recorded run.

Every test drives real ``httpx``/``httpx2`` clients over their own
``MockTransport`` inside a real ABP run (a bound :class:`TraceCollector` with
a root span), installed through a real :class:`InstrumentationManager`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from autobench.abp import InstrumentationManager

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(params=["httpx", "httpx2"])
def flavour(request: pytest.FixtureRequest) -> ModuleType:
    """The SDK module under test: ``httpx`` 0.28 or ``httpx2``."""
    return importlib.import_module(request.param)


@pytest.fixture
def manager() -> Iterator[InstrumentationManager]:
    """A manager closed (everything uninstalled) at the end of the test."""
    with InstrumentationManager() as instance:
        yield instance
