"""Install, check, uninstall: version gates, exact restoration, reference counts, parentage."""

from __future__ import annotations

import asyncio
import contextvars
import sys
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

import httpx
import httpx2
import pytest
from httpx_support import recorded_run

from autobench.abp import (
    CompatibilityState,
    InstrumentationError,
    InstrumentationManager,
    InstrumentationRuntime,
    start_span,
)
from autobench.instrument.httpx import HTTPXInstrumentor, create, package

FLAVOURS = (httpx, httpx2)


def _originals() -> dict[tuple[str, str], Any]:
    return {
        (module.__name__, cls.__name__): cls.__dict__["send"]
        for module in FLAVOURS
        for cls in (module.Client, module.AsyncClient)
    }


def _client(flavour: ModuleType) -> Any:
    return flavour.Client(transport=flavour.MockTransport(lambda request: flavour.Response(204)))


def test_check_is_compatible_with_both_installed() -> None:
    result = create(None).check()
    assert result.state is CompatibilityState.COMPATIBLE
    assert httpx.__version__ in result.reason and "httpx2" in result.reason


def test_restoration_after_close(flavour: ModuleType) -> None:
    originals = _originals()
    with InstrumentationManager() as manager:
        manager.install(create(None))
        for module in FLAVOURS:
            assert module.Client.__dict__["send"] is not originals[(module.__name__, "Client")]
            assert module.Client.send.__wrapped__ is originals[(module.__name__, "Client")]
    assert _originals() == originals
    for key, value in _originals().items():
        assert value is originals[key]
    client = _client(flavour)
    with recorded_run() as run:
        assert client.get("https://api.example.com/").status_code == 204
    assert run.http_spans() == []


def test_reference_counting(flavour: ModuleType, manager: InstrumentationManager) -> None:
    originals = _originals()
    first = manager.install(create(None))
    second = manager.install(create(None))
    assert manager.owners("httpx") == 2
    first.close()
    assert manager.owners("httpx") == 1
    client = _client(flavour)
    with recorded_run() as run:
        client.get("https://api.example.com/")
    assert len(run.http_spans()) == 1
    second.close()
    assert manager.owners("httpx") == 0
    assert _originals() == originals


def test_version_outside_range_is_refused_before_patching(
    manager: InstrumentationManager,
) -> None:
    originals = _originals()
    instrumentor = HTTPXInstrumentor(supported={"httpx": ">=0.29", "httpx2": ">=3"})
    result = manager.check(instrumentor)
    assert result.state is CompatibilityState.UNSUPPORTED
    assert "httpx 0.28.1 is outside >=0.29" in result.reason
    with pytest.raises(InstrumentationError) as raised:
        manager.install(instrumentor)
    assert raised.value.compatibility.state is CompatibilityState.UNSUPPORTED
    assert _originals() == originals
    with pytest.raises(InstrumentationError):
        instrumentor.install(InstrumentationRuntime(instrumentor.info))
    assert _originals() == originals


def test_monkeypatched_supported_ranges(
    monkeypatch: pytest.MonkeyPatch, manager: InstrumentationManager
) -> None:
    originals = _originals()
    monkeypatch.setitem(package.SUPPORTED, "httpx", "<0.20")
    monkeypatch.setitem(package.SUPPORTED, "httpx2", "<2")
    with pytest.raises(InstrumentationError, match="unsupported"):
        manager.install(create(None))
    assert _originals() == originals


def test_one_flavour_outside_its_range_degrades(manager: InstrumentationManager) -> None:
    originals = _originals()
    instrumentor = HTTPXInstrumentor(supported={"httpx": ">=0.29", "httpx2": ">=2.12,<3"})
    result = manager.check(instrumentor)
    assert result.state is CompatibilityState.DEGRADED
    assert "httpx 0.28.1 is outside >=0.29" in result.reason
    handle = manager.install(instrumentor)
    assert httpx.Client.__dict__["send"] is originals[("httpx", "Client")]
    assert httpx2.Client.__dict__["send"] is not originals[("httpx2", "Client")]
    with recorded_run() as run:
        _client(httpx).get("https://api.example.com/")
        _client(httpx2).get("https://api.example.com/")
    assert len(run.http_spans()) == 1
    handle.close()
    assert any(d.state is CompatibilityState.DEGRADED for d in manager.diagnostics)
    assert _originals() == originals


def test_no_flavour_installed_is_unavailable(manager: InstrumentationManager) -> None:
    instrumentor = HTTPXInstrumentor(supported={"autobench-no-such-httpx": ">=1"})
    result = manager.check(instrumentor)
    assert result.state is CompatibilityState.UNAVAILABLE
    assert "autobench-no-such-httpx is not installed" in result.reason
    with pytest.raises(InstrumentationError):
        manager.install(instrumentor)


def test_aliased_httpx_is_patched_once(
    monkeypatch: pytest.MonkeyPatch, manager: InstrumentationManager
) -> None:
    # What ``httpx2.alias_httpx()`` does: ``import httpx`` gives the httpx2 module.
    monkeypatch.setitem(sys.modules, "httpx", httpx2)
    manager.install(create(None))
    with recorded_run() as run:
        _client(httpx2).get("https://api.example.com/")
    assert len(run.http_spans()) == 1


def test_foreign_replacement_is_a_conflict(manager: InstrumentationManager) -> None:
    handle = manager.install(create(None))
    ours = httpx.Client.__dict__["send"]

    def foreign(self: Any, *args: Any, **kwargs: Any) -> Any:
        return ours(self, *args, **kwargs)

    httpx.Client.send = foreign  # type: ignore[method-assign]
    try:
        diagnostic = handle.close()
        assert diagnostic is not None
        assert diagnostic.state is CompatibilityState.CONFLICTING
        assert httpx.Client.__dict__["send"] is foreign
    finally:
        httpx.Client.send = ours.__wrapped__  # type: ignore[method-assign]


def test_parent_is_the_callers_span(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _client(flavour)
    with recorded_run() as run:
        with start_span("chat.completions.create", kind="llm") as client_span:
            client.get("https://api.example.com/")
        client.get("https://api.example.com/")
    trace = run.trace()
    first, second = run.http_spans()
    assert first.parent == client_span.id
    assert run.root is not None and second.parent == run.root.id
    assert trace.path(first.id) == ("task", "chat.completions.create", "HTTP GET")


async def test_concurrent_tasks_keep_their_parents(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(None))

    async def handler(request: Any) -> Any:
        await asyncio.sleep(0.001 * (hash(request.url.path) % 3))
        return flavour.Response(200, text=request.url.path)

    async with flavour.AsyncClient(transport=flavour.MockTransport(handler)) as client:
        with recorded_run() as run:

            async def worker(index: int) -> str:
                with start_span(f"worker-{index}", kind="tool") as parent:
                    for _ in range(3):
                        await client.get(f"https://api.example.com/w{index}")
                        await asyncio.sleep(0)
                    return parent.id

            parents = await asyncio.gather(*(worker(index) for index in range(6)))
    spans = run.http_spans()
    assert len(spans) == 18
    by_parent: dict[str | None, int] = {}
    for span in spans:
        by_parent[span.parent] = by_parent.get(span.parent, 0) + 1
    assert by_parent == dict.fromkeys(parents, 3)


def test_threads_keep_their_parents(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _client(flavour)

    def worker(index: int) -> str:
        with start_span(f"thread-{index}", kind="tool") as parent:
            for _ in range(5):
                client.get("https://api.example.com/")
            return parent.id

    with recorded_run() as run:
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, worker, index) for index in range(4)
            ]
            parents = [future.result() for future in futures]
    counts: dict[str | None, int] = {}
    for span in run.http_spans():
        counts[span.parent] = counts.get(span.parent, 0) + 1
    assert counts == dict.fromkeys(parents, 5)
