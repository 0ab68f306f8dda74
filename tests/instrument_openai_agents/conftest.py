"""Fixtures of the OpenAI Agents instrumentor tests.

Every test drives the real ``agents`` SDK offline (``agents_support``) inside a real
ABP run, the instrumentor installed through a real
:class:`~autobench.abp.InstrumentationManager`. The SDK's default exporter (which
would upload traces to OpenAI when a key is set) is taken off the global trace
provider for each test and the provider's processors are restored afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from agents import set_trace_processors
from agents_support import registered

from autobench.abp import InstrumentationManager
from autobench.instrument.openai_agents import create


@pytest.fixture(autouse=True)
def offline_tracing() -> Iterator[None]:
    """No exporter during the test; the provider's processors as they were afterwards."""
    before = registered()
    set_trace_processors([])
    try:
        yield
    finally:
        set_trace_processors(list(before))


@pytest.fixture
def manager() -> Iterator[InstrumentationManager]:
    """A manager closed (everything uninstalled) at the end of the test."""
    with InstrumentationManager() as instance:
        yield instance


@pytest.fixture
def installed(manager: InstrumentationManager) -> InstrumentationManager:
    """The manager with the OpenAI Agents instrumentor installed with its defaults."""
    manager.install(create(None))
    return manager
