"""Autobench native instrumentor for HTTPX (``httpx`` 0.28 and ``httpx2`` 2.x clients).

Transport layer: one ABP span (kind ``http``, operation ``"HTTP <METHOD>"``)
per ``Client.send``/``AsyncClient.send``, i.e. per logical request of any
client, including clients created by other libraries and clients on a
``MockTransport``. The span is a child of the caller's active span (an
OpenAI client span, say), stays open while a streamed body is read, and
records only what the privacy defaults allow: a hashed query-free path, no
headers or bodies unless named or enabled, credentials always redacted
(spec "HTTP Privacy Defaults").

Importing this package imports neither ``httpx`` nor ``httpx2``: they are
imported by :meth:`HTTPXInstrumentor.install`, after the version check.

>>> from autobench.abp import InstrumentationManager
>>> from autobench.instrument.httpx import create
>>> with InstrumentationManager() as manager:  # doctest: +SKIP
...     manager.install(create(None))
"""

from __future__ import annotations

from autobench.instrument.httpx._capture import CapturePlan, Settings, is_secret_header
from autobench.instrument.httpx._instrumentor import HTTPXInstrumentor
from autobench.instrument.httpx.package import INFO, SUPPORTED

__all__ = [
    "INFO",
    "SUPPORTED",
    "CapturePlan",
    "HTTPXInstrumentor",
    "Settings",
    "create",
    "is_secret_header",
]


def create(settings: Settings | None = None) -> HTTPXInstrumentor:
    """The instrumentor for ``settings`` (the core's ``HTTPXInstrumentation``; ``None``:
    the privacy-safe defaults). Raises ``ValueError`` for invalid capture settings."""
    return HTTPXInstrumentor(settings)
