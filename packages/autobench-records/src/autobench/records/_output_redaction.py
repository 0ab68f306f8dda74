"""Redaction of what Autobench shows and writes from a record: the last pass before output.

A record is redacted when it is captured; the outputs made from it (the terminal's
tables and panels, error messages, every export file, the spans sent to an OTLP
endpoint) pass once more through the same :class:`~autobench.abp.CapturePolicy`, so a
secret that reached a record through another channel, or one that a record's policy
names, never reaches a screen or a file. The pass redacts only: it never truncates,
hashes or drops anything, since an export must hold every row of its record.

One regular-expression search over a clean text (the common case), so a report of
several megabytes costs a fraction of a second. It lives beside the record model and
imports only the capture policy, so the report, the CLI and the OpenTelemetry exporter
share it; ``autobench.report`` exports its names.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

from autobench.abp import DEFAULT_CAPTURE_POLICY, CaptureMode, CapturePolicy
from autobench.records._yaml_limits import MAX_INPUT_NESTING

if TYPE_CHECKING:
    from autobench.records._result import ExperimentResult

_Value = TypeVar("_Value")

_UNBOUNDED: dict[int, tuple[CapturePolicy, CapturePolicy]] = {}
_UNBOUNDED_LIMIT = 32


def output_policy(result: ExperimentResult | None = None) -> CapturePolicy:
    """The capture policy of the record ``result`` was read from (its secret keys,
    patterns and redaction marker), which every output made from that record applies;
    :data:`~autobench.abp.DEFAULT_CAPTURE_POLICY` for output that comes from no record
    (``None``)."""
    return DEFAULT_CAPTURE_POLICY


def _redacting(policy: CapturePolicy) -> CapturePolicy:
    """``policy`` with its limits, hashing and artifact offload off: it only redacts. Its
    walk stops at :data:`MAX_INPUT_NESTING` levels (a record holds no deeper value), so a
    value that contains itself (a task's output, say) ends in a marker, never in a
    ``RecursionError`` that ended the whole experiment."""
    known = _UNBOUNDED.get(id(policy))
    if known is not None and known[0] is policy:
        return known[1]
    unbounded = dataclasses.replace(
        policy,
        mode=CaptureMode.FULL,
        hash_keys=frozenset(),
        max_string=None,
        max_bytes=None,
        max_items=None,
        max_depth=MAX_INPUT_NESTING,
        artifact_threshold=None,
    )
    if len(_UNBOUNDED) >= _UNBOUNDED_LIMIT:
        _UNBOUNDED.clear()
    _UNBOUNDED[id(policy)] = (policy, unbounded)  # keeps ``policy`` alive: the id stays its own
    return unbounded


def redact_text(text: str, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> str:
    """``text`` with every secret ``policy`` recognises in free text (see
    :meth:`~autobench.abp.CapturePolicy.text`) replaced by its redaction marker, at any
    length (never truncated). The very same object when nothing was redacted."""
    return _redacting(policy).text(text)


def redact_content(
    content: str | bytes, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY
) -> str | bytes:
    """An export's content redacted by ``policy``: text as :func:`redact_text`, bytes by
    the policy's secret patterns over the raw bytes (a binary format holding a secret is
    changed where the secret was, which is preferred to writing it)."""
    if isinstance(content, str):
        return redact_text(content, policy)
    redacted = _redacting(policy).apply(content)
    assert isinstance(redacted, bytes)
    return redacted


def redact_value(value: _Value, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> _Value:
    """``value`` as :meth:`~autobench.abp.CapturePolicy.apply` records it (entries under
    secret keys replaced, secrets in strings and bytes redacted) without any limit: nothing
    is truncated, hashed or offloaded. For what a run returns, which is recorded whole.
    The very same object when nothing was redacted."""
    return _redacting(policy).apply(value)


def redact_strings(value: _Value, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> _Value:
    """``value`` with every string in it, mapping keys included, passed through
    :func:`redact_text`; mappings, lists and tuples are rebuilt only where something
    changed, other values are kept. For documents a format serialises itself, so the
    marker is written as the string it is (quoted where the format needs it)."""
    redacting = _redacting(policy)
    return _strings(value, redacting)


def _strings(value: Any, policy: CapturePolicy) -> Any:
    if isinstance(value, str):
        return policy.text(value)
    if isinstance(value, dict):
        out = {_strings(key, policy): _strings(item, policy) for key, item in value.items()}
        same = len(out) == len(value) and all(
            new_key is old_key and out[new_key] is old
            for new_key, (old_key, old) in zip(out, value.items(), strict=True)
        )
        return value if same else out
    if isinstance(value, list | tuple):
        items = [_strings(item, policy) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return tuple(items) if isinstance(value, tuple) else items
    return value


def url_secrets(url: str, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> list[str]:
    """The credentials ``url`` carries: its userinfo (``user:password``), the password
    alone, and the value of each query parameter whose name ``policy`` calls secret
    (:meth:`~autobench.abp.CapturePolicy.is_secret_query_param`), each also as it is percent-encoded
    in the URL; longest first, so replacing them in turn leaves no part behind."""
    parts = urlsplit(url)
    found: set[str] = set()
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        found.update((userinfo, userinfo.partition(":")[2]))
    for key, value in parse_qsl(parts.query, keep_blank_values=False):
        if policy.is_secret_query_param(key) or redact_text(value, policy) != value:
            found.add(value)
    for item in list(found):
        found.add(quote(item, safe=""))
        found.add(quote_plus(item, safe=""))
    return sorted((item for item in found if item), key=len, reverse=True)


def redact_url(url: str, policy: CapturePolicy = DEFAULT_CAPTURE_POLICY) -> str:
    """``url`` as it may be shown: its userinfo replaced by the policy's marker
    (``https://[redacted]@host/...``) and the value of each secret query parameter
    (see :func:`url_secrets`) too; then :func:`redact_text`."""
    return redact_known(url, url_secrets(url, policy), policy)


def redact_known(
    text: str, secrets: list[str], policy: CapturePolicy = DEFAULT_CAPTURE_POLICY
) -> str:
    """``text`` with each of ``secrets`` (strings known to be credentials, such as
    :func:`url_secrets` of a URL the text may quote) replaced by the policy's marker
    wherever it occurs, then :func:`redact_text`."""
    marker = policy.redaction_marker
    for secret in secrets:
        text = text.replace(secret, marker)
    return redact_text(text, policy)
