"""Fixtures of the OpenAI instrumentor tests: a manager with the instrumentor installed.

Every test drives the real ``openai`` clients over ``httpx2.MockTransport``
(``openai_support``) inside a real ABP run, the instrumentor installed through
a real :class:`~autobench.abp.InstrumentationManager`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from autobench.abp import InstrumentationManager
from autobench.instrument.openai import create


@pytest.fixture
def manager() -> Iterator[InstrumentationManager]:
    """A manager closed (everything uninstalled) at the end of the test."""
    with InstrumentationManager() as instance:
        yield instance


@pytest.fixture
def installed(manager: InstrumentationManager) -> InstrumentationManager:
    """The manager with the OpenAI instrumentor installed with its defaults."""
    manager.install(create(None))
    return manager
