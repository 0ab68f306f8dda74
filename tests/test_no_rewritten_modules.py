"""Autobench's own modules are imported as in a user's program, not through pytest's
assert-rewriting hook (see tests/conftest.py): a module first imported on another thread,
as the live index's modules are on the record writer's thread, then never goes through
Python 3.11's AST state, which is not thread-safe."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_pytests_import_hook_declines_autobench_modules(pytestconfig: pytest.Config) -> None:
    """Asked of pytest's hook itself, whichever modules this process imported already: it
    declines Autobench's modules and still takes this test file."""
    import autobench.index

    hook = pytestconfig.pluginmanager.rewrite_hook
    assert hook.find_spec("autobench.index._round_trip", list(autobench.index.__path__)) is None
    here = str(Path(__file__).parent)
    assert hook.find_spec("test_no_rewritten_modules", [here]) is not None
