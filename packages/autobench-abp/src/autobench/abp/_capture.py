"""Capture policy: what of a span's input, output and attributes is recorded.

A :class:`CapturePolicy` is applied before a value reaches the trace, so a
secret never lands in a ``run.yaml``: span input and start attributes when the
span starts, output when it ends, event and measurement attributes when they
are emitted, and the attributes a span set while it ran when the trace is
materialized (off the span path: the end signal carries them as they were).
In order, for each value:

1. ``mode``: ``full`` records the value (steps 2-4), ``hash`` replaces it by
   :func:`hash_value` (``"sha256:<64 hex>"``), ``omit`` by ``None``.
2. Redaction. A mapping entry whose key is secret (see
   :meth:`CapturePolicy.is_secret_key`) has its value replaced by
   ``redaction_marker``; every match of a secret pattern inside a string or
   bytes value (or a string key) is replaced by the marker. Entries whose key
   is in ``hash_keys`` get :func:`hash_value` of their value.
3. Truncation. Strings longer than ``max_string`` characters keep their first
   ``max_string`` characters followed by ``"...[truncated N chars]"`` (bytes:
   ``max_bytes`` bytes then ``b"...[truncated N bytes]"``). Lists, tuples,
   sets and mappings with more than ``max_items`` entries keep the first
   ``max_items`` and gain one marker entry; containers nested deeper than
   ``max_depth`` become ``"[truncated: depth > N]"``.
4. Artifact offload (span input and output only, off by default). When
   ``artifact_threshold`` is set and the value's canonical JSON text is longer
   than that many characters, the collector keeps the payload and records a
   :class:`PayloadRef` marker ``{"$artifact": {...}}`` instead; the runtime
   stores the payload as a run artifact with that id.

Values that need no change are returned as the very same object, so a clean
value round-trips unchanged. Only str, bytes, list, tuple, set, frozenset and
dict values are inspected: other objects (models, dataclasses) are kept as
they are.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from autobench.abp import _secrets
from autobench.abp._secrets import (
    CONTAINERS,
    EQUALS_NAMES,
    PAIRS,
    QUOTED_NAMES,
    container_end,
    normalise_key,
    redaction_additions,
)
from autobench.abp._secrets import DEFAULT_SECRET_KEYS as DEFAULT_SECRET_KEYS
from autobench.abp._secrets import DEFAULT_SECRET_PATTERNS as DEFAULT_SECRET_PATTERNS
from autobench.abp._secrets import DEFAULT_SECRET_QUERY_PARAMS as DEFAULT_SECRET_QUERY_PARAMS

REDACTED = "[redacted]"
"""Default replacement of a secret."""

DEFAULT_MAX_STRING = 64 * 1024
"""Characters of a string kept by the default policy (64 KiB)."""

ARTIFACT_MARKER_KEY = "$artifact"
"""Key of the mapping that stands for a payload stored as an artifact."""


class CaptureMode(StrEnum):
    """How a value is captured: in full (redacted, truncated), as a hash, or not at all."""

    FULL = "full"
    HASH = "hash"
    OMIT = "omit"


class PayloadRef(BaseModel):
    """A span payload stored as a run artifact instead of inline.

    ``id`` is the artifact id the runtime gives the payload, ``name`` what it
    was (``<operation>.input``), ``size`` the characters of its canonical JSON
    text and ``sha256`` the hex digest of that text. (ABP does not depend on
    the records package; this is the protocol's own reference shape.)
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str
    name: str
    media_type: str = "application/yaml"
    size: int
    sha256: str
    span_id: str | None = None

    def as_marker(self) -> dict[str, Any]:
        """The value recorded in place of the payload: ``{"$artifact": {...}}``."""
        return {ARTIFACT_MARKER_KEY: self.model_dump(exclude_none=True)}

    @classmethod
    def from_marker(cls, value: Any) -> PayloadRef | None:
        """The reference a recorded value stands for, or ``None`` when it is not a marker."""
        if isinstance(value, dict) and len(value) == 1 and ARTIFACT_MARKER_KEY in value:
            return cls.model_validate(value[ARTIFACT_MARKER_KEY])
        return None


def canonical_text(value: Any) -> str:
    """Canonical JSON text of ``value`` (sorted keys; non-JSON values by ``repr``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)


def hash_value(value: Any) -> str:
    """``"sha256:<64 hex>"`` of ``value`` (bytes as they are, anything else as
    :func:`canonical_text` in UTF-8)."""
    data = value if isinstance(value, bytes) else canonical_text(value).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _key_in(key: str, names: frozenset[str], suffixes: tuple[str, ...]) -> bool:
    if not names:
        return False
    normal = normalise_key(key)
    return normal in names or normal.endswith(suffixes)


@dataclass(frozen=True, slots=True)
class CapturePolicy:
    """Rules applied to span input/output/attributes and event attributes when recorded.

    See the module docstring for the order of the steps. Limits of ``None``
    disable that bound. ``secret_keys`` and ``hash_keys`` are compared after
    lowercasing and mapping ``-`` to ``_``; ``secret_patterns`` are regular
    expressions (searched anywhere in a string). Raises ``ValueError`` for a
    negative limit or an invalid pattern.
    """

    mode: CaptureMode = CaptureMode.FULL
    secret_keys: frozenset[str] = DEFAULT_SECRET_KEYS
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    hash_keys: frozenset[str] = frozenset()
    redaction_marker: str = REDACTED
    max_string: int | None = DEFAULT_MAX_STRING
    max_bytes: int | None = DEFAULT_MAX_STRING
    max_items: int | None = 10_000
    max_depth: int | None = 64
    artifact_threshold: int | None = None
    secret_query_params: frozenset[str] = DEFAULT_SECRET_QUERY_PARAMS
    _names: frozenset[str] = field(init=False, repr=False, compare=False)
    _secret_suffixes: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _hash_suffixes: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _params: frozenset[str] = field(init=False, repr=False, compare=False)
    _url_only: frozenset[str] = field(init=False, repr=False, compare=False)
    _patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    _byte_patterns: tuple[re.Pattern[bytes], ...] = field(init=False, repr=False, compare=False)
    _any_secret: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    _keys: dict[str, tuple[str | None, bool, bool]] = field(init=False, repr=False, compare=False)
    _clean: set[str] = field(init=False, repr=False, compare=False)
    _pair_names: dict[tuple[str, bool], bool] = field(init=False, repr=False, compare=False)
    _version: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("max_string", "max_bytes", "max_items", "max_depth", "artifact_threshold"):
            limit = getattr(self, name)
            if limit is not None and limit < 0:
                raise ValueError(f"capture policy {name} must be >= 0, got {limit}")
        hashed = frozenset(normalise_key(key) for key in self.hash_keys)
        object.__setattr__(self, "secret_keys", frozenset(map(normalise_key, self.secret_keys)))
        object.__setattr__(self, "hash_keys", hashed)
        object.__setattr__(
            self, "secret_query_params", frozenset(map(normalise_key, self.secret_query_params))
        )
        object.__setattr__(self, "_hash_suffixes", tuple("_" + key for key in hashed))
        object.__setattr__(self, "_version", -1)
        self._compile()

    def _compile(self) -> None:
        """Compile this policy's names and patterns with the process's additions
        (:func:`~autobench.abp.extend_redaction`); again whenever those change."""
        added = redaction_additions()
        names = self.secret_keys | added.keys
        params = self.secret_query_params | added.query_params
        sources = self.secret_patterns + tuple(
            pattern for pattern in added.patterns if pattern not in self.secret_patterns
        )
        try:
            patterns = tuple(re.compile(pattern) for pattern in sources)
            byte_patterns = tuple(re.compile(pattern.encode("utf-8")) for pattern in sources)
        except re.error as error:
            raise ValueError(f"invalid secret pattern: {error}") from error
        combined = _combined(sources)
        set_ = object.__setattr__
        set_(self, "_names", names)
        set_(self, "_secret_suffixes", tuple("_" + key for key in names))
        set_(self, "_params", params)
        # Common words as parameter names: secret in a URL query or a form body only.
        set_(self, "_url_only", self.secret_query_params - names - added.query_params)
        set_(self, "_patterns", patterns)
        set_(self, "_byte_patterns", byte_patterns)
        set_(self, "_any_secret", combined)
        set_(self, "_keys", {})
        set_(self, "_pair_names", {})
        set_(self, "_clean", set())
        set_(self, "_version", added.version)

    def _current(self) -> None:
        if self._version != _secrets.additions_version:
            self._compile()

    def is_secret_key(self, key: Any) -> bool:
        """Whether a mapping entry under ``key`` holds a secret (string keys only): its
        normal form (:func:`~autobench.abp.normalise_key`) is a secret key name or ends
        with ``_`` + one."""
        self._current()
        return isinstance(key, str) and _key_in(key, self._names, self._secret_suffixes)

    def is_secret_query_param(self, name: str) -> bool:
        """Whether the URL query or form parameter ``name`` carries a credential: a
        secret key (:meth:`is_secret_key`) or one of ``secret_query_params``."""
        return self.is_secret_key(name) or normalise_key(name) in self._params

    def redact(self, text: str) -> str:
        """``text`` with every secret :meth:`text` finds redacted, at any length (never
        truncated): for whole documents written elsewhere (cassette bodies, exports)."""
        self._current()
        return self._redacted(text)

    def redact_bytes(self, data: bytes) -> bytes:
        """``data`` with secrets redacted, never truncated: as :meth:`redact` when it is
        UTF-8 text, else every match of a secret pattern in the raw bytes."""
        self._current()
        return self._redacted_bytes(data)

    def apply(self, value: Any) -> Any:
        """``value`` as it may be recorded (the same object when nothing changes)."""
        self._current()
        if value is None or value.__class__ in _SCALARS:
            return value if self.mode is CaptureMode.FULL else self._whole(value)
        if self.mode is not CaptureMode.FULL:
            return self._whole(value)
        return self._walk(value, 0)

    def text(self, text: str) -> str:
        """``text`` with secret values redacted and truncated like any recorded string: for
        error messages and tracebacks, which may quote credentials. Applies the patterns
        :func:`~autobench.abp.extend_redaction` added since this policy last ran."""
        self._current()
        return self._string(text)

    def apply_mapping(self, values: dict[str, Any]) -> dict[str, Any]:
        """Apply the policy to a mapping of attributes; the result is a mapping again."""
        if not values:
            return values
        self._current()
        if self.mode is CaptureMode.FULL:  # the path of every span's attributes
            if self.max_depth is not None and self.max_depth <= 0:
                return {"value": f"[truncated: depth > {self.max_depth}]"}
            return self._mapping(values, 1)
        captured = self.apply(values)
        return captured if isinstance(captured, dict) else {"value": captured}

    def exceeds_artifact_threshold(self, value: Any) -> tuple[str, int] | None:
        """``(canonical text, size)`` when ``value`` should be stored as an artifact."""
        if self.artifact_threshold is None or value is None:
            return None
        text = canonical_text(value)
        return (text, len(text)) if len(text) > self.artifact_threshold else None

    def _whole(self, value: Any) -> Any:
        # Secrets are redacted before hashing: an unsalted hash of a short secret could be
        # brute-forced back to it.
        if self.mode is not CaptureMode.HASH:
            return None
        return hash_value(
            value if value is None or value.__class__ in _SCALARS else self._walk(value, 0)
        )

    def _walk(self, value: Any, depth: int) -> Any:
        cls = value.__class__
        if cls is str or isinstance(value, str):
            return self._string(value)
        if cls is bytes:
            return self._bytes(value)
        if isinstance(value, dict):
            if self.max_depth is not None and depth >= self.max_depth:
                return f"[truncated: depth > {self.max_depth}]"
            return self._mapping(value, depth + 1)
        if isinstance(value, list | tuple | set | frozenset):
            if self.max_depth is not None and depth >= self.max_depth:
                return f"[truncated: depth > {self.max_depth}]"
            return self._sequence(value, depth + 1)
        return value

    def _redacted(self, text: str) -> str:
        """``text`` with every secret pattern and secret pair redacted (not truncated)."""
        result = text
        # One search for any secret first: most recorded strings hold none.
        if self._any_secret is None or self._any_secret.search(text) is not None:
            for pattern in self._patterns:
                result = pattern.sub(self.redaction_marker, result)
        if self._secret_pair_in(result):
            result = self._containers(PAIRS.sub(self._pair, result))
        return result

    def _containers(self, text: str) -> str:
        """``text`` with the object or list under each secret quoted name replaced by the
        quoted marker (to the end of the text when it was cut)."""
        parts: list[str] = []
        done = 0
        for match in CONTAINERS.finditer(text):
            if match.start() < done or not self._secret_name(match.group(2), True):
                continue
            opening = match.end() - 1
            quote = match.group(1)
            parts += [text[done:opening], quote + self.redaction_marker + quote]
            done = container_end(text, opening)
        return text if not parts else "".join(parts) + text[done:]

    def _secret_name(self, name: str, quoted: bool) -> bool:
        known = self._pair_names.get((name, quoted))
        return self._secret_pair_name(name, quoted) if known is None else known

    def _secret_pair_in(self, text: str) -> bool:
        """Whether a pair in ``text`` has a secret name (one scan for the names of each
        kind, each distinct name decided once)."""
        known = self._pair_names
        for finder, quoted, mark in ((EQUALS_NAMES, False, "="), (QUOTED_NAMES, True, ":")):
            if mark not in text:
                continue
            for name in finder.findall(text):
                secret = known.get((name, quoted))
                if secret is None:
                    secret = self._secret_pair_name(name, quoted)
                if secret:
                    return True
        return False

    def _secret_pair_name(self, name: str, quoted: bool) -> bool:
        """Whether a pair named ``name`` is secret: a secret key, or for a ``name=value``
        pair also a secret query parameter (remembered, up to a bound)."""
        secret = self.is_secret_key(name) if quoted else self.is_secret_query_param(name)
        if len(self._pair_names) < _KEY_MEMO_LIMIT:
            self._pair_names[name, quoted] = secret
        return secret

    def _pair(self, match: re.Match[str]) -> str:
        """One ``name=value`` or ``"name": "value"`` match, its value redacted when the
        name is secret: a secret key, or for a ``name=value`` pair that starts the text or
        follows ``?``, ``&`` or ``;`` (a URL query or a form body) also a secret query
        parameter; a built-in query parameter name (``key``, ``sig``, ...) counts only where
        it starts the text or follows ``?``, ``&`` or ``;`` (a URL query or a form body), so
        ``KEY=VALUE`` in a usage message stays as it is."""
        name = match.group("name")
        quoted = name is None
        if quoted:
            name = match.group("qname")
        secret = self._pair_names.get((name, quoted))
        if secret is None:
            secret = self._secret_pair_name(name, quoted)
        if not secret:
            return match.group(0)
        if not quoted and normalise_key(name) in self._url_only:
            start = match.start()
            if start > 0 and match.string[start - 1] not in "?&;":
                return match.group(0)
        group = "qvalue" if quoted else "value"
        if match.group(group) == self.redaction_marker:
            return match.group(0)
        start, end = match.span(group)
        offset = match.start()
        whole = match.group(0)
        return whole[: start - offset] + self.redaction_marker + whole[end - offset :]

    def _string(self, text: str) -> str:
        clean = self._clean
        if text in clean:
            return text
        result = self._redacted(text)
        limit = self.max_string
        if limit is not None and len(result) > limit:
            result = f"{result[:limit]}...[truncated {len(result) - limit} chars]"
        if result == text:
            if len(text) <= _CLEAN_MEMO_LENGTH:
                # The same short values (methods, hosts, models, path hashes) come back on
                # every span, and a secret-pattern search costs microseconds per string.
                # Only strings that passed unchanged are remembered: a string holding a
                # secret is never kept alive by the memo. Bounded: emptied when full.
                if len(clean) >= _CLEAN_MEMO_LIMIT:
                    clean.clear()
                clean.add(text)
            return text
        return result

    def _redacted_bytes(self, data: bytes) -> bytes:
        try:  # text in bytes gets the pair rule as well as the patterns
            redacted = self._redacted(data.decode("utf-8")).encode("utf-8")
        except UnicodeDecodeError:
            marker = self.redaction_marker.encode("utf-8")
            redacted = data
            for pattern in self._byte_patterns:
                redacted = pattern.sub(marker, redacted)
        return data if redacted == data else redacted

    def _bytes(self, data: bytes) -> bytes:
        result = self._redacted_bytes(data)
        limit = self.max_bytes
        if limit is not None and len(result) > limit:
            cut = len(result) - limit
            result = result[:limit] + f"...[truncated {cut} bytes]".encode()
        return result

    def _mapping(self, mapping: dict[Any, Any], depth: int) -> dict[Any, Any]:
        if self._clean_mapping(mapping):
            return mapping
        limit = self.max_items
        if limit is not None and len(mapping) > limit:
            entries: Iterable[tuple[Any, Any]] = list(mapping.items())[:limit]
        else:
            entries = mapping.items()
        changed = False
        out: dict[Any, Any] = {}
        keys = self._keys
        clean = self._clean
        for key, item in entries:
            if key.__class__ is str or isinstance(key, str):
                rewritten, secret, hashed = keys.get(key) or self._key(key)
                new_key = key if rewritten is None else rewritten
            else:
                new_key, secret, hashed = key, False, False
            if secret:
                new_item: Any = self.redaction_marker
            elif hashed:
                new_item = hash_value(item)
            elif item.__class__ is str:
                new_item = item if item in clean else self._string(item)
            elif item is None or item.__class__ in _SCALARS:
                new_item = item  # numbers and flags hold no secret
            else:
                new_item = self._walk(item, depth)
            if new_key is not key or new_item is not item:
                changed = True
            out[new_key] = new_item
        if limit is not None and len(mapping) > limit:
            out["[truncated]"] = f"{len(mapping) - limit} more entries"
            return out
        return out if changed else mapping

    def _clean_mapping(self, mapping: dict[Any, Any]) -> bool:
        """Whether ``mapping`` needs no change, known without building a copy: every key a
        remembered clean string key, every value ``None``, a number, a flag or a remembered
        clean string (the attributes of most spans). ``False`` means "look closer"."""
        limit = self.max_items
        if limit is not None and len(mapping) > limit:
            return False
        keys = self._keys
        clean = self._clean
        for key, item in mapping.items():
            if keys.get(key) is not _CLEAN_KEY:
                return False
            cls = item.__class__
            if cls is str:
                if item not in clean:
                    return False
            elif item is not None and cls not in _SCALARS:
                return False
        return True

    def _key(self, key: str) -> tuple[str | None, bool, bool]:
        """``(the key as recorded when it changes, else None; secret?; hashed?)``, memoised:
        the same keys come back on every span (at most :data:`_KEY_MEMO_LIMIT` of them are
        remembered). The unchanged key is never returned from the memo: an equal key is not
        always the same object, and a clean mapping must come back as itself."""
        known = self._keys.get(key)
        if known is None:
            recorded = self._string(key)
            known = (
                None if recorded is key else recorded,
                _key_in(key, self._names, self._secret_suffixes),
                _key_in(key, self.hash_keys, self._hash_suffixes),
            )
            if known == _CLEAN_KEY:
                known = _CLEAN_KEY  # one object: the clean-mapping check compares identity
            if len(self._keys) < _KEY_MEMO_LIMIT:
                self._keys[key] = known
        return known

    def _sequence(self, items: Iterable[Any], depth: int) -> Any:
        original = items
        listed = list(items)
        limit = self.max_items
        out = [self._walk(item, depth) for item in listed[:limit]]
        changed = any(new is not old for new, old in zip(out, listed, strict=False))
        if limit is not None and len(listed) > limit:
            out.append(f"[truncated {len(listed) - limit} items]")
            changed = True
        if not changed:
            return original
        if isinstance(original, tuple):
            return tuple(out)
        return out


_SCALARS = frozenset({int, float, bool, complex})
_KEY_MEMO_LIMIT = 4096
_CLEAN_KEY: tuple[str | None, bool, bool] = (None, False, False)
"""The memo entry of a key recorded as it is, neither secret nor hashed (one shared object)."""
_CLEAN_MEMO_LIMIT = 4096
"""At most this many clean strings are remembered (see :meth:`CapturePolicy._string`)."""
_CLEAN_MEMO_LENGTH = 256
"""Only strings of at most this many characters are remembered as clean."""
_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")


def _combined(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern matching wherever any of ``patterns`` matches (a leading ``(?i)`` becomes
    a scoped ``(?i:...)``); ``None`` when they cannot be combined, and each is then searched
    on its own."""
    if not patterns:
        return None
    parts = []
    for pattern in patterns:
        flags = _LEADING_FLAGS.match(pattern)
        body = pattern[flags.end() :] if flags else pattern
        parts.append(f"(?{flags.group(1)}:{body})" if flags else f"(?:{body})")
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


DEFAULT_CAPTURE_POLICY = CapturePolicy()
"""Redact secrets (default keys and patterns), truncate strings and bytes over 64 KiB,
containers over 10,000 entries or 64 levels deep; no hashing, no artifact offload."""


SECRET_HEADER_WORDS = frozenset(
    {
        "auth",
        "authorization",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "apikey",
        "key",
        "password",
        "passwd",
        "secret",
        "signature",
        "token",
    }
)
"""A header whose name contains one of these words (split at ``-`` and ``_``) is a secret:
``x-api-key``, ``x-auth-token``, ``proxy-authorization``, ``set-cookie``, ``x-amz-security-token``."""


def is_secret_header(name: str, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> bool:
    """Whether HTTP header ``name`` (any case) carries a credential: the capture policy's
    secret keys match it, or one of its words is in :data:`SECRET_HEADER_WORDS`."""
    if policy.is_secret_key(name) or DEFAULT_CAPTURE_POLICY.is_secret_key(name):
        return True
    words = name.lower().replace("_", "-").split("-")
    return any(word in SECRET_HEADER_WORDS for word in words)
