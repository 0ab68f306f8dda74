"""What the HTTPX instrumentor supports: read without importing httpx or httpx2.

The core lists and diagnoses integrations by importing this module alone, so
it imports nothing but :mod:`autobench.abp`. :data:`SUPPORTED` is the one
place the supported version ranges are declared (PEP 440 specifiers keyed by
distribution name); :meth:`HTTPXInstrumentor.check` reads it when it runs.
"""

from __future__ import annotations

from autobench.abp import AbstractionLayer, CaptureMechanism, InstrumentorInfo

SUPPORTED: dict[str, str] = {"httpx": ">=0.28,<0.29", "httpx2": ">=2.12,<3"}
"""Distribution name -> supported versions. Each flavour is checked on its own: one
inside its range is enough to install; one outside its range is left unpatched."""

INFO = InstrumentorInfo(
    id="httpx",
    version="0.1.0",
    target_distribution=None,
    mechanism=CaptureMechanism.PATCH,
    layer=AbstractionLayer.TRANSPORT,
    span_kinds=("http",),
    semantic_families=("http",),
    capabilities=("sync", "async", "streaming"),
    package="autobench-instrument-httpx",
    package_version="0.1.0",
)
"""Identity of the instrumentor. ``target_distribution`` is ``None`` because it covers two
distributions (``httpx`` and ``httpx2``); their versions are checked by ``check()``."""
