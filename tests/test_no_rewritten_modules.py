"""Autobench's own modules are imported as in a user's program, not through pytest's
assert-rewriting hook (see tests/conftest.py): a module first imported on another thread,
as the live index's modules are on the record writer's thread, then never goes through
Python 3.11's AST state, which is not thread-safe."""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path

import pytest


def test_a_module_imported_on_another_thread_is_not_rewritten_by_pytest() -> None:
    name = "autobench.index._round_trip"
    if name in sys.modules:
        pytest.skip(f"{name} was imported by an earlier test in this process")
    imported: list[object] = []
    thread = threading.Thread(target=lambda: imported.append(importlib.import_module(name)))
    thread.start()
    thread.join()
    loader = sys.modules[name].__loader__
    assert type(loader).__name__ != "AssertionRewritingHook"
    assert imported == [sys.modules[name]]


def test_pytests_import_hook_declines_autobench_modules(pytestconfig: pytest.Config) -> None:
    """The same, asked of pytest's hook itself, whichever modules this process imported:
    it declines Autobench's modules and still takes this test file."""
    import autobench.index

    hook = pytestconfig.pluginmanager.rewrite_hook
    assert hook.find_spec("autobench.index._round_trip", list(autobench.index.__path__)) is None
    here = str(Path(__file__).parent)
    assert hook.find_spec("test_no_rewritten_modules", [here]) is not None
