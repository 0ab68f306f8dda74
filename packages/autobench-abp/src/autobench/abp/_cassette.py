"""Cassettes: the HTTP exchanges of one run, recorded once and replayed offline.

A :class:`RunCassette` is bound to the context of one run's task call
(:func:`bind_cassette`); the HTTP client integration (``autobench.instrument.httpx``)
consults :func:`active_cassette` for every request that client sends, and either
answers it from the cassette or sends it and records the exchange. This module knows no
HTTP library: requests arrive as a method, a URL, a body and a content type.

What is stored (after the capture policy, :data:`~autobench.abp.DEFAULT_CAPTURE_POLICY`
unless another is given):

* the request's method, its URL without user information and with the value of every
  secret query parameter (``api_key``, ``token``, ... as
  :meth:`CapturePolicy.is_secret_key` decides) replaced by the redaction marker and the
  query parameters sorted, and its
  body normalised (:func:`normalise_body`): a JSON body as canonical JSON (sorted keys,
  secret keys redacted, secret patterns masked, the per-call random keys of
  :data:`VOLATILE_BODY_KEYS` left out), a text body with secret patterns
  masked, any other body as ``sha256:<hex>`` of its bytes. No request header is stored.
* the response's status, its headers except those that carry credentials
  (:func:`is_secret_header`: authorization, cookies, API keys, tokens), and its body as
  the chunks the client read, in order (a streamed body keeps its chunking).

Matching (:meth:`RunCassette.take`): a request is answered by the first exchange not
yet used whose method, URL and body (all normalised as above) equal the request's, so
repeated identical calls are answered in the order they were recorded.

The file (:func:`dump_cassette`, :func:`load_cassette`) is JSON, one object:
``{"format": "autobench.cassette/1", "exchanges": [...]}``; a chunk is ``{"text": str}``
when it is UTF-8 and ``{"base64": str}`` otherwise.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import hashlib
import json
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from autobench.abp._capture import DEFAULT_CAPTURE_POLICY, CapturePolicy
from autobench.abp._capture import is_secret_header as is_secret_header
from autobench.abp._errors import AutobenchError

CASSETTE_FORMAT = "autobench.cassette/1"
CASSETTE_MEDIA_TYPE = "application/vnd.autobench.cassette+json"
CassetteMode = Literal["record", "replay", "replay-or-record"]
CASSETTE_MODES: tuple[CassetteMode, ...] = ("record", "replay", "replay-or-record")


class CassetteError(AutobenchError):
    """A cassette file could not be read (the message names what was expected)."""


class CassetteMiss(AutobenchError):
    """A request that no exchange of the run's cassette matches (replay mode)."""


def normalise_url(url: str, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> str:
    """``url`` without user information, with the value of each secret query parameter
    (:meth:`CapturePolicy.is_secret_query_param`) and each secret-shaped value redacted,
    and the query parameters sorted. The request replayed and the one recorded go through
    the same function, so a redacted value matches as redacted on both sides."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    query = parse_qsl(parts.query, keep_blank_values=True)
    cleaned = sorted(
        (
            key,
            policy.redaction_marker if policy.is_secret_query_param(key) else policy.redact(value),
        )
        for key, value in query
    )
    return urlunsplit((parts.scheme, host, parts.path, urlencode(cleaned), ""))


VOLATILE_BODY_KEYS = frozenset({"prompt_cache_key"})
"""Top-level JSON body keys left out of a request as matched and stored: values a client
draws afresh for every call of the same work, which no answer depends on (the OpenAI
Agents SDK sends ``prompt_cache_key: agents-sdk:run:<random uuid>`` per ``Runner.run``
unless the application sets one)."""


def normalise_body(
    body: bytes, content_type: str | None = None, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY
) -> str:
    """The request body as matched and stored: canonical JSON (sorted keys, compact, secret
    keys and patterns redacted, without the top-level keys of :data:`VOLATILE_BODY_KEYS`)
    when it parses as JSON (whatever ``content_type`` says: clients send JSON as
    ``text/plain`` too), else the UTF-8 text with secrets redacted (patterns and secret
    ``name=value`` pairs of a form body, see :meth:`CapturePolicy.redact`), else
    ``sha256:<hex>``; ``""`` for no body."""
    if not body:
        return ""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "sha256:" + hashlib.sha256(body).hexdigest()
    if content_type is None or "json" in content_type.lower() or text.lstrip()[:1] in "{[":
        try:
            value = json.loads(text)
        except ValueError:
            pass
        else:
            if isinstance(value, dict):
                value = {k: v for k, v in value.items() if k not in VOLATILE_BODY_KEYS}
            clean = policy.apply(value) if isinstance(value, dict | list) else value
            return json.dumps(clean, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return policy.redact(text)


@dataclass(slots=True)
class Exchange:
    """One request and its response. ``chunks`` grows while the response is read."""

    method: str
    url: str
    body: str
    status: int
    headers: list[tuple[str, str]]
    chunks: list[bytes] = field(default_factory=list)
    digest: str = ""
    """sha256 of the request body's bytes as sent (``""``: none)."""

    def key(self) -> tuple[str, str, str]:
        return (self.method, self.url, self.body)


@dataclass
class RunCassette:
    """The cassette of one run's task call (one attempt): what it replays from and what it
    records. Safe to use from the run's threads."""

    mode: CassetteMode
    recorded: Sequence[Exchange] = ()
    policy: CapturePolicy = DEFAULT_CAPTURE_POLICY
    exchanges: list[Exchange] = field(default_factory=list)
    """What this call recorded (``record`` and ``replay-or-record``), in request order."""
    misses: list[str] = field(default_factory=list)
    """The messages of the requests that matched nothing in ``replay`` mode (:meth:`miss`)."""
    absent: str | None = None
    """Why the run has no recorded exchange at all, when it has none (shown on a miss)."""
    replayed: int = 0
    sent: int = 0
    """Requests sent to the network and recorded (``record``, ``replay-or-record``)."""
    _by_digest: dict[tuple[str, str, str], deque[Exchange]] | None = None
    _by_body: dict[tuple[str, str, str], deque[Exchange]] | None = None
    _used: set[int] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def replays(self) -> bool:
        return self.mode != "record"

    @property
    def records(self) -> bool:
        return self.mode != "replay"

    def request(
        self, method: str, url: str, body: bytes, content_type: str | None
    ) -> CassetteRequest:
        """A request as this cassette matches and stores it."""
        return CassetteRequest(
            method.upper(), normalise_url(url, self.policy), body, content_type, self.policy
        )

    def take(self, request: CassetteRequest) -> Exchange | None:
        """The first unused recorded exchange matching ``request`` (then used), or ``None``.

        An exchange recorded from the same body bytes is found by their digest, without
        normalising the body; otherwise the normalised bodies are compared."""
        with self._lock:
            if self._by_digest is None:  # built on the first request
                self._by_digest, self._by_body = {}, {}
                for exchange in self.recorded:
                    self._by_body.setdefault(exchange.key(), deque()).append(exchange)
                    if exchange.digest:
                        digest_key = (exchange.method, exchange.url, exchange.digest)
                        self._by_digest.setdefault(digest_key, deque()).append(exchange)
            assert self._by_body is not None
            found = self._unused(self._by_digest.get((request.method, request.url, request.digest)))
            if found is None:
                found = self._unused(self._by_body.get(request.key()))
            if found is not None:
                self._used.add(id(found))
                self.replayed += 1
                if self.records:  # replay-or-record: the new cassette holds every exchange
                    self.exchanges.append(found)
            return found

    def _unused(self, queue: deque[Exchange] | None) -> Exchange | None:
        while queue:
            exchange = queue.popleft()
            if id(exchange) not in self._used:
                return exchange
        return None

    def miss(self, request: CassetteRequest) -> CassetteMiss:
        """The error for a ``request`` that matches nothing (remembered in :attr:`misses`),
        naming the request and what the cassette holds instead."""
        method, url, body = request.key()
        same_url = [e for e in self.recorded if e.method == method and e.url == url]
        if same_url:
            recorded, sent = _difference(same_url[0].body, body)
            hint = (
                f"{len(same_url)} recorded request(s) to this URL have another body "
                f"(they differ at {recorded} recorded, {sent} sent)"
            )
        elif self.recorded:
            hint = "recorded: " + ", ".join(sorted({f"{e.method} {e.url}" for e in self.recorded}))
        else:
            hint = self.absent or "the cassette of this case and variant holds no request"
        error = CassetteMiss(f"no recorded exchange matches {method} {url}: {hint}")
        with self._lock:
            self.misses.append(str(error))
        return error

    def start_exchange(
        self, request: CassetteRequest, status: int, headers: Sequence[tuple[str, str]]
    ) -> Exchange:
        """Record a response as it arrives (its chunks are appended as they are read)."""
        exchange = Exchange(
            request.method,
            request.url,
            request.body,
            status,
            [
                (name, self.policy.redact(value))
                for name, value in headers
                if not is_secret_header(name, self.policy)
            ],
            # The digest of a body that held a secret could be matched against guesses.
            digest="" if request.redacted else request.digest,
        )
        with self._lock:
            self.exchanges.append(exchange)
            self.sent += 1
        return exchange


@dataclass(slots=True)
class CassetteRequest:
    """A request as a cassette sees it: the method, the normalised URL, the body's bytes
    and their sha256 (``digest``); the normalised body is computed when first needed."""

    method: str
    url: str
    raw: bytes
    content_type: str | None
    policy: CapturePolicy
    _body: str | None = None
    _digest: str | None = None

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = hashlib.sha256(self.raw).hexdigest() if self.raw else ""
        return self._digest

    @property
    def body(self) -> str:
        if self._body is None:
            self._body = normalise_body(self.raw, self.content_type, self.policy)
        return self._body

    @property
    def redacted(self) -> bool:
        """Whether the stored body had a secret redacted (its marker is new)."""
        marker = self.policy.redaction_marker
        return marker in self.body and marker.encode("utf-8") not in self.raw

    def key(self) -> tuple[str, str, str]:
        return (self.method, self.url, self.body)


def _difference(recorded: str, sent: str, context: int = 30) -> tuple[str, str]:
    """Both texts around the first character where they differ (quoted, ``...`` cut)."""
    at = next(
        (i for i, (a, b) in enumerate(zip(recorded, sent, strict=False)) if a != b),
        min(len(recorded), len(sent)),
    )
    start = max(0, at - context)

    def excerpt(text: str) -> str:
        end = at + context
        return (
            ("..." if start else "")
            + repr(text[start:end])[1:-1]
            + ("..." if end < len(text) else "")
        )

    return f"{excerpt(recorded)!r}", f"{excerpt(sent)!r}"


_active: contextvars.ContextVar[RunCassette | None] = contextvars.ContextVar(
    "autobench_cassette", default=None
)


def active_cassette() -> RunCassette | None:
    """The cassette of the run whose task is executing in this context, if any."""
    return _active.get()


@contextlib.contextmanager
def bind_cassette(cassette: RunCassette | None) -> Iterator[RunCassette | None]:
    """Make ``cassette`` the active one in this context for the ``with`` block."""
    token = _active.set(cassette)
    try:
        yield cassette
    finally:
        _active.reset(token)


def dump_cassette(
    exchanges: Sequence[Exchange], policy: CapturePolicy = DEFAULT_CAPTURE_POLICY
) -> bytes:
    """The cassette file of ``exchanges`` (see the module docstring), with secrets in the
    response chunks redacted by ``policy`` (a replayed response then holds the marker
    where the recorded one held a secret)."""
    return json.dumps(
        {
            "format": CASSETTE_FORMAT,
            "exchanges": [
                {
                    "method": e.method,
                    "url": e.url,
                    "body": e.body,
                    "digest": e.digest,
                    "status": e.status,
                    "headers": [list(pair) for pair in e.headers],
                    "chunks": [_chunk(chunk, policy) for chunk in e.chunks],
                }
                for e in exchanges
            ],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")


def _chunk(chunk: bytes, policy: CapturePolicy) -> dict[str, str]:
    try:
        return {"text": policy.redact(chunk.decode("utf-8"))}
    except UnicodeDecodeError:  # binary (or compressed): its secret-shaped bytes only
        return {"base64": base64.b64encode(policy.redact_bytes(chunk)).decode("ascii")}


def load_cassette(data: bytes | str, source: str = "<cassette>") -> list[Exchange]:
    """The exchanges of a cassette file. Raises :class:`CassetteError` naming ``source``
    and what was expected when ``data`` is not one."""
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise CassetteError(f"{source}: not a cassette (invalid JSON: {exc})") from exc
    if not isinstance(document, dict) or document.get("format") != CASSETTE_FORMAT:
        raise CassetteError(f"{source}: expected an object with format {CASSETTE_FORMAT!r}")
    try:
        return [
            Exchange(
                str(item["method"]),
                str(item["url"]),
                str(item["body"]),
                int(item["status"]),
                [(str(name), str(value)) for name, value in item["headers"]],
                [_unchunk(chunk) for chunk in item["chunks"]],
                str(item.get("digest", "")),
            )
            for item in document["exchanges"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise CassetteError(
            f"{source}: malformed exchange ({type(exc).__name__}: {exc}); expected method, url, "
            "body, status, headers and chunks"
        ) from exc


def _unchunk(chunk: Any) -> bytes:
    if "text" in chunk:
        return str(chunk["text"]).encode("utf-8")
    return base64.b64decode(chunk["base64"], validate=True)
