"""A run's cassettes (``--cassette record``) as the exchanges the page lists: each request's
method, URL and body and the response's status, headers and body, exactly as stored (the
capture policy redacted them before they were written; nothing is redacted or
reconstructed here)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from autobench.abp._cassette import CASSETTE_MEDIA_TYPE, CassetteError, load_cassette
from autobench.records import ArtifactRef

BODY_LIMIT = 200_000
"""Characters of one request or response body shown; the rest is in the cassette file."""


@dataclass(frozen=True)
class ShownExchange:
    """One exchange: ``request_body`` pretty-printed when it is JSON; ``response_body`` the
    chunks joined and decoded (``None`` when they are not UTF-8: ``response_bytes`` says
    how many bytes); ``cut`` whether a body was shortened to :data:`BODY_LIMIT`."""

    method: str
    url: str
    request_body: str
    status: int
    headers: list[tuple[str, str]]
    response_body: str | None
    response_bytes: int
    chunks: int
    cut: bool


@dataclass(frozen=True)
class ShownCassette:
    """The cassette artifact ``name`` and its exchanges, or the ``problem`` that kept them
    from being read."""

    name: str
    exchanges: list[ShownExchange]
    problem: str | None = None


def is_cassette(ref: ArtifactRef) -> bool:
    """Whether the artifact ``ref`` is a cassette: by its media type, or by its name
    (``cassette``, ``judge.<scorer>.cassette``)."""
    base = ref.media_type.split(";")[0].strip().lower()
    return base == CASSETTE_MEDIA_TYPE or ref.name == "cassette" or ref.name.endswith(".cassette")


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _cut(text: str) -> tuple[str, bool]:
    return (text[:BODY_LIMIT], True) if len(text) > BODY_LIMIT else (text, False)


def read_cassette(name: str, path: Path) -> ShownCassette:
    """The exchanges of the cassette file at ``path``; a file that is not a cassette gives
    a :class:`ShownCassette` with its ``problem`` and no exchange (never raises for it)."""
    try:
        exchanges = load_cassette(path.read_bytes(), source=name)
    except (CassetteError, OSError) as exc:
        return ShownCassette(name, [], str(exc))
    shown = []
    for exchange in exchanges:
        body = b"".join(exchange.chunks)
        try:
            response: str | None = _pretty_json(body.decode("utf-8"))
        except UnicodeDecodeError:
            response = None
        request, cut_request = _cut(_pretty_json(exchange.body))
        cut_response = False
        if response is not None:
            response, cut_response = _cut(response)
        shown.append(
            ShownExchange(
                method=exchange.method,
                url=exchange.url,
                request_body=request,
                status=exchange.status,
                headers=list(exchange.headers),
                response_body=response,
                response_bytes=len(body),
                chunks=len(exchange.chunks),
                cut=cut_request or cut_response,
            )
        )
    return ShownCassette(name, shown)
