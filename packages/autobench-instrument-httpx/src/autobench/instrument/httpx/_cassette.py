"""Cassettes on the HTTPX transport seam: record a run's exchanges, or answer them offline.

:func:`install_cassettes` patches ``Client._transport_for_url`` and
``AsyncClient._transport_for_url`` of each installed flavour (``httpx``, ``httpx2``):
while a run's cassette is active (:func:`autobench.abp.active_cassette`) the client
gets its transport wrapped in a :class:`CassetteTransport` (or the async one), so every
request the client sends goes through the cassette whatever the transport is (the
default one, a proxy, ``MockTransport``). Outside a run with a cassette the client gets
its own transport, unchanged. The patch is below ``send``: redirects, authentication,
cookies, the response's decoding and the ``httpx`` instrumentor's spans work on a
replayed response as on a live one.

A replayed response is built from the recorded status, headers and chunks (the body is
delivered chunk by chunk as recorded, as the server sent it, encoded as it was); nothing
is sent. A recorded response is read from the real transport and its chunks are kept as
the client reads them (``abp._cassette.RunCassette.start_exchange``).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from autobench.abp._cassette import CassetteRequest, Exchange, RunCassette, active_cassette
from autobench.abp._patching import MethodPatch

_installed: list[MethodPatch] = []
_lock = threading.Lock()


def install_cassettes() -> bool:
    """Patch every importable flavour once per process (idempotent); whether any is
    patched."""
    with _lock:
        if _installed:
            return True
        seen: set[int] = set()
        for name in ("httpx", "httpx2"):
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            if id(module.Client) in seen:
                continue
            seen.add(id(module.Client))
            _installed.append(
                MethodPatch(module.Client, "_transport_for_url", _factory(module, False))
            )
            _installed.append(
                MethodPatch(module.AsyncClient, "_transport_for_url", _factory(module, True))
            )
        return bool(_installed)


def uninstall_cassettes() -> None:
    """Restore what :func:`install_cassettes` patched."""
    with _lock:
        for patch in reversed(_installed):
            patch.restore()
        _installed.clear()


def _factory(module: Any, is_async: bool) -> Callable[..., Callable[..., Any]]:
    def make(original: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        def transport_for_url(self: Any, url: Any) -> Any:
            transport = original(self, url)
            cassette = active_cassette()
            if cassette is None:
                return transport
            if is_async:
                return AsyncCassetteTransport(module, transport, cassette)
            return CassetteTransport(module, transport, cassette)

        return transport_for_url

    return make


def _request(cassette: RunCassette, request: Any) -> CassetteRequest:
    return cassette.request(
        request.method, str(request.url), request.content, request.headers.get("content-type")
    )


class _Cassetted:
    """What both transports share: the replayed response of a request, or the recording of
    a sent one."""

    is_async = False

    def __init__(self, module: Any, inner: Any, cassette: RunCassette) -> None:
        self._module, self._inner, self._cassette = module, inner, cassette

    def _replay(self, request: Any) -> tuple[CassetteRequest, Any]:
        """The request as the cassette sees it, and its replayed response (``None``: send it).
        Raises the cassette's :class:`~autobench.abp._cassette.CassetteMiss` when nothing
        matches and the cassette does not record."""
        cassette = self._cassette
        sent = _request(cassette, request)
        if cassette.replays and (found := cassette.take(sent)) is not None:
            stream = _stream_class(self._module, _Replay, self.is_async)(found.chunks)
            return sent, _replayed(self._module, found, stream)
        if not cassette.records:
            raise cassette.miss(sent)
        return sent, None

    def _record(self, sent: CassetteRequest, response: Any) -> Any:
        exchange = self._cassette.start_exchange(
            sent, response.status_code, response.headers.multi_items()
        )
        content = getattr(response, "_content", None)  # a response built with its body
        if content is not None:
            exchange.chunks.append(bytes(content))
        else:
            recording = _stream_class(self._module, _Recording, self.is_async)
            response.stream = recording(response.stream, exchange)
        return response


class CassetteTransport(_Cassetted):
    """A sync transport answering from ``cassette`` or recording through ``inner``."""

    def handle_request(self, request: Any) -> Any:
        request.read()
        sent, replayed = self._replay(request)
        if replayed is not None:
            return replayed
        return self._record(sent, self._inner.handle_request(request))

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> CassetteTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncCassetteTransport(_Cassetted):
    """The async :class:`CassetteTransport`."""

    is_async = True

    async def handle_async_request(self, request: Any) -> Any:
        await request.aread()
        sent, replayed = self._replay(request)
        if replayed is not None:
            return replayed
        return self._record(sent, await self._inner.handle_async_request(request))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AsyncCassetteTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _replayed(module: Any, exchange: Exchange, stream: Any) -> Any:
    return module.Response(
        exchange.status,
        headers=list(exchange.headers),
        stream=stream,
        extensions={"autobench_cassette": "replayed"},
    )


class _Replay:
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


class _Recording:
    """The response's stream, keeping the chunks of its first reading: a client may read a
    stream again to drain it (the OpenAI SDK does), which a network stream answers with
    nothing more."""

    def __init__(self, inner: Any, exchange: Exchange) -> None:
        self._inner, self._exchange, self._read = inner, exchange, False

    def _chunks(self) -> list[bytes] | None:
        if self._read:
            return None
        self._read = True
        return self._exchange.chunks

    def __iter__(self) -> Iterator[bytes]:
        kept = self._chunks()
        for chunk in self._inner:
            if kept is not None:
                kept.append(bytes(chunk))
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        kept = self._chunks()
        async for chunk in self._inner:
            if kept is not None:
                kept.append(bytes(chunk))
            yield chunk

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()


_classes: dict[tuple[int, str], type] = {}


def _stream_class(module: Any, kind: type, is_async: bool) -> type:
    """``kind`` (:class:`_Replay` or :class:`_Recording`) as a subclass of the flavour's
    ``SyncByteStream`` or ``AsyncByteStream`` (the client checks the stream's type)."""
    base = module.AsyncByteStream if is_async else module.SyncByteStream
    key = (id(base), kind.__name__)
    found = _classes.get(key)
    if found is None:
        found = _classes[key] = type(kind.__name__.lstrip("_"), (kind, base), {})
    return found
