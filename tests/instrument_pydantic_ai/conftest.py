"""Fixtures of the Pydantic AI instrumentor tests: a manager with the instrumentor installed.

Every test drives real Pydantic AI agents (on its ``TestModel``/``FunctionModel`` or on
the real OpenAI model over ``httpx2.MockTransport``, see ``pai_support``) inside a real
ABP run, the instrumentor installed through a real
:class:`~autobench.abp.InstrumentationManager`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from autobench.abp import InstrumentationManager
from autobench.instrument.pydantic_ai import create


@pytest.fixture
def manager() -> Iterator[InstrumentationManager]:
    """A manager closed (everything uninstalled) at the end of the test."""
    with InstrumentationManager() as instance:
        yield instance


@pytest.fixture
def installed(manager: InstrumentationManager) -> InstrumentationManager:
    """The manager with the Pydantic AI instrumentor installed with its defaults."""
    manager.install(create(None))
    return manager


@pytest.fixture
def thread_loop() -> Iterator[None]:
    """For tests of ``run_sync``: the thread's event loop Pydantic AI drives, closed after
    the test (an unclosed loop would warn in whichever test the collector runs next)."""
    import asyncio

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()
