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
"""

from __future__ import annotations

import os
import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "logfire-plugin")

# pytest's own `pytester` fixture, for the autobench-pytest plugin's tests (tests/pytest_plugin).
pytest_plugins = ("pytester",)
