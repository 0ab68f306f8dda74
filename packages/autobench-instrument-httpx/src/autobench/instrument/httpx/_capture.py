"""What of a request and its response is recorded: the capture plan and its privacy rules.

:class:`CapturePlan` is the instrumentor's frozen reading of the settings the
core hands to :func:`~autobench.instrument.httpx.create` (any object with a
``capture`` attribute shaped like ``autobench.core.native.HTTPXCaptureSettings``).
The rules, from the spec's "HTTP Privacy Defaults":

- the path is recorded without its query, as the first 16 hex characters of
  its sha256 (``hash``, the default), as it is (``full``) or not at all
  (``none``); query strings and URL user information are never recorded;
- headers are recorded only when named, and a header that carries a
  credential (authorization, cookies, API keys, tokens, passwords, secrets) is
  replaced by the redaction marker even when named;
- header values and the full path pass the capture policy's secret patterns.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any, Protocol

from autobench.abp import DEFAULT_CAPTURE_POLICY, CapturePolicy
from autobench.abp._capture import is_secret_header as is_secret_header

PATH_MODES = ("hash", "full", "none")
DEFAULT_MAX_BODY_BYTES = 64 * 1024
"""Bytes of a text body kept when body capture is on and the settings name no bound."""


class CaptureSettings(Protocol):
    """The capture settings the core passes (``HTTPXCaptureSettings``), read-only."""

    @property
    def path(self) -> str: ...
    @property
    def request_headers(self) -> tuple[str, ...]: ...
    @property
    def response_headers(self) -> tuple[str, ...]: ...
    @property
    def request_body(self) -> bool: ...
    @property
    def response_body(self) -> bool: ...
    @property
    def max_body_bytes(self) -> int: ...


class Settings(Protocol):
    """The integration settings the core passes (``HTTPXInstrumentation``)."""

    @property
    def capture(self) -> CaptureSettings: ...


@functools.lru_cache(maxsize=4096)
def path_hash(path: str) -> str:
    """The first 16 hex characters of the sha256 of ``path`` (UTF-8), e.g. ``"5d41402abc4b2a76"``.

    Memoised (4,096 paths): a benchmark sends the same few paths again and again."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class CapturePlan:
    """The resolved capture settings of one installed instrumentor.

    ``request_headers``/``response_headers`` are ``(name, secret)`` pairs of
    lower-case header names; ``max_body_bytes`` bounds a recorded text body
    (bytes, >= 0). ``policy`` supplies the secret patterns applied to recorded
    strings and the secret key names.
    """

    path: str = "hash"
    request_headers: tuple[tuple[str, bool], ...] = ()
    response_headers: tuple[tuple[str, bool], ...] = ()
    request_body: bool = False
    response_body: bool = False
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    policy: CapturePolicy = DEFAULT_CAPTURE_POLICY

    @classmethod
    def from_settings(cls, settings: Settings | None, policy: Any = None) -> CapturePlan:
        """Read ``settings.capture`` (``None``: the defaults) and the manager's ``policy``.

        ``policy`` is used when it is a :class:`~autobench.abp.CapturePolicy`;
        anything else (``None``) means the ABP default policy. Raises
        ``ValueError`` for an unknown path mode or a negative ``max_body_bytes``.
        """
        chosen = policy if isinstance(policy, CapturePolicy) else DEFAULT_CAPTURE_POLICY
        capture = None if settings is None else settings.capture
        if capture is None:
            return cls(policy=chosen)
        path = str(capture.path)
        if path not in PATH_MODES:
            raise ValueError(f"httpx capture path must be one of {PATH_MODES}, got {path!r}")
        limit = int(capture.max_body_bytes)
        if limit < 0:
            raise ValueError(f"httpx capture max_body_bytes must be >= 0, got {limit}")
        return cls(
            path=path,
            request_headers=_headers(capture.request_headers, chosen),
            response_headers=_headers(capture.response_headers, chosen),
            request_body=bool(capture.request_body),
            response_body=bool(capture.response_body),
            max_body_bytes=limit,
            policy=chosen,
        )

    def path_value(self, path: str) -> str | None:
        """``http.path`` for a query-free ``path`` under this plan (``None``: not recorded)."""
        if self.path == "hash":
            return path_hash(path)
        if self.path == "full":
            return self.policy.text(path)
        return None

    def header_values(
        self, prefix: str, names: tuple[tuple[str, bool], ...], headers: Any
    ) -> dict[str, str]:
        """``{prefix + name: value}`` for each named header present in ``headers``.

        ``headers`` is an ``httpx.Headers`` (case-insensitive ``get``; repeated
        headers come joined by ``", "``). Secret headers get the redaction
        marker; other values pass the policy's secret patterns.
        """
        found: dict[str, str] = {}
        for name, secret in names:
            value = headers.get(name)
            if value is None:
                continue
            found[prefix + name] = (
                self.policy.redaction_marker if secret else self.policy.text(value)
            )
        return found


def _headers(names: tuple[str, ...], policy: CapturePolicy) -> tuple[tuple[str, bool], ...]:
    unique = dict.fromkeys(name.strip().lower() for name in names if name.strip())
    return tuple((name, is_secret_header(name, policy)) for name in unique)
