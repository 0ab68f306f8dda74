"""Set-up for the whole suite.

- A shell starts a background job (``pytest ... &``, ``nohup``) with SIGINT ignored, and
  processes inherit an ignored signal across ``exec``: the ``autobench`` processes that the
  Ctrl-C tests interrupt would then ignore the SIGINT they are sent and run to the end. The
  suite gives SIGINT its default Python handler back, so the processes it starts get the
  default disposition whatever shell started the suite.
- Logfire, installed for the tests that run applications instrumented with it, registers a
  pydantic plugin that imports OpenTelemetry in every process on its first model class. The
  tests that check what Autobench itself imports (no OpenTelemetry, no provider SDK for a
  replay) would see pydantic's imports as Autobench's, so the suite turns that plugin off
  for itself and the processes it starts; the Logfire tests configure Logfire directly.
- ``AUTOBENCH_HOME`` (where the record schemas are cached for editors) points at a temporary
  directory for the whole session, so the suite never writes into the user's ``~/.autobench``.
- pytest rewrites the asserts of the modules of each installed pytest plugin's outermost
  package; for the autobench-pytest plugin installed editable, as here, that is ``autobench``
  itself, so every Autobench module imported during a test would be parsed and recompiled by
  pytest's import hook, in whatever thread imports it. Python 3.11's AST state is not
  thread-safe: a module imported on the record writer's thread (the live index's, when the
  first runs are durable) while the test's thread imported another raised
  ``SystemError: AST constructor recursion depth mismatch`` now and then, and the index was
  not written. The suite imports Autobench's modules as a user's program does: only test
  files, conftests and the plugin itself are rewritten.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "logfire-plugin")


def pytest_configure(config: pytest.Config) -> None:
    rewritten = getattr(config.pluginmanager.rewrite_hook, "_must_rewrite", None)
    if isinstance(rewritten, set):  # pytest's own attribute; absent: nothing marked to undo
        rewritten.discard("autobench")


@pytest.fixture(autouse=True, scope="session")
def _autobench_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("autobench-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOBENCH_HOME", str(home))
        yield home


# pytest's own `pytester` fixture, for the autobench-pytest plugin's tests (tests/pytest_plugin).
pytest_plugins = ("pytester",)


@pytest.fixture(params=["thread", "process"])
def record_writer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test using it runs twice: runs stored on a thread of the recording process, then
    by a record writer process (``AUTOBENCH_RECORD_WRITER``, inherited by the processes the
    test starts), whatever the experiment's size."""
    value: str = request.param
    monkeypatch.setenv("AUTOBENCH_RECORD_WRITER", value)
    return value
