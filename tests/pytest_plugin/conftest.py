"""Each pytester directory gets an ini file: pytest-asyncio, installed here, warns about an
unset loop scope in any session without one.

pytester's in-process runs drop the modules they imported when they end. numpy and scipy
cannot be imported twice in one process, so what the reports' statistics use is imported
here, before any run; so is every module of the runtime and the run command: one imported
again after a run dropped it would define its classes again (a second ``RunInterrupted``
that the session's ``except`` does not catch), and the later tests of the session that run
benchmarks would see the two mixed."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import autobench.cli._run
import autobench.core.runtime
from autobench.report._compare import prepare_statistics

prepare_statistics()
for _module in pkgutil.iter_modules(autobench.core.runtime.__path__, "autobench.core.runtime."):
    importlib.import_module(_module.name)


@pytest.fixture(autouse=True)
def _ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
