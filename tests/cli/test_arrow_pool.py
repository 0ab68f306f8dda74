"""The allocator Arrow uses for a console-script command reading a large index
(``autobench.cli._replayed.arrow_pool``): jemalloc, whether pyarrow is imported yet or not
(``autobench run`` imports it before its closing report), and never over a pool the user
named in ``ARROW_DEFAULT_MEMORY_POOL``. Each case in a fresh interpreter, as the choice is
process-wide."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

PROGRAM = """
import sys
if sys.argv[1] == "imported":
    import pyarrow
from autobench.cli._replayed import arrow_pool
arrow_pool()
import pyarrow
print(pyarrow.default_memory_pool().backend_name)
"""


def _backend(when: str, named: str | None) -> str:
    env = {key: value for key, value in os.environ.items() if key != "ARROW_DEFAULT_MEMORY_POOL"}
    if named is not None:
        env["ARROW_DEFAULT_MEMORY_POOL"] = named
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, when], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.parametrize("when", ["imported", "not imported"])
def test_a_command_reading_an_index_allocates_with_jemalloc(when: str) -> None:
    assert _backend(when, None) == "jemalloc"


@pytest.mark.parametrize("when", ["imported", "not imported"])
def test_a_pool_the_user_named_is_kept(when: str) -> None:
    assert _backend(when, "system") == "system"
