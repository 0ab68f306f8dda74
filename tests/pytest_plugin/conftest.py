"""Each pytester directory gets an ini file: pytest-asyncio, installed here, warns about an
unset loop scope in any session without one.

pytester's in-process runs drop the modules they imported when they end; numpy and scipy
cannot be imported twice in one process, so what the reports' statistics use is imported
here, before any run."""

from __future__ import annotations

import pytest

from autobench.report._compare import prepare_statistics

prepare_statistics()


@pytest.fixture(autouse=True)
def _ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
