"""Bounded body capture: a prefix, a running digest and the size, whatever the body's length.

A body is fed chunk by chunk (a stream) or at once (a loaded body); memory
stays at most ``limit`` bytes plus one sha256 state. :meth:`BodyCapture.value`
then gives what is recorded (only when body capture is enabled):

- a text body (a textual ``Content-Type``, or none and valid UTF-8) as its
  first ``limit`` bytes decoded, a JSON document's secret-keyed values redacted
  (when it was not cut), then every secret the policy finds in text (patterns,
  secret ``name=value`` pairs of a form body, ``"name": "value"`` pairs of a cut
  JSON document): redacted first, then bounded;
- any other body (binary types, content-encoded streams, undecodable text) as
  ``{"size": <bytes>, "sha256": "<64 hex>"}``, never its bytes.
"""

from __future__ import annotations

import codecs
import hashlib
import json
from typing import Any

from autobench.abp import CapturePolicy

_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/x-ndjson",
        "application/xml",
        "application/javascript",
        "application/x-www-form-urlencoded",
        "application/graphql",
        "application/yaml",
    }
)
_IDENTITY = frozenset({"", "identity"})


def _media(content_type: str | None) -> tuple[str, str | None]:
    """``(media type, charset)`` of a ``Content-Type`` value (``("", None)`` when absent)."""
    if not content_type:
        return "", None
    media, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip().strip('"')
    return media.strip().lower(), charset


def _is_text_media(media: str) -> bool:
    return (
        media.startswith("text/")
        or media in _TEXT_TYPES
        or media.endswith("+json")
        or media.endswith("+xml")
    )


class BodyCapture:
    """The bounded capture of one body; feed it bytes, then read :meth:`value`.

    ``limit`` is the number of bytes of prefix kept (>= 0).
    """

    __slots__ = ("_digest", "_prefix", "limit", "size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._prefix = bytearray()
        self._digest = hashlib.sha256()

    def feed(self, chunk: bytes) -> None:
        """Account for the next ``chunk`` of the body."""
        self.size += len(chunk)
        self._digest.update(chunk)
        room = self.limit - len(self._prefix)
        if room > 0:
            self._prefix += chunk[:room]

    @property
    def truncated(self) -> bool:
        """Whether the body is longer than the kept prefix."""
        return self.size > len(self._prefix)

    def digest(self) -> dict[str, Any]:
        """``{"size": bytes, "sha256": hex}`` of the whole body."""
        return {"size": self.size, "sha256": self._digest.hexdigest()}

    def value(
        self,
        content_type: str | None,
        policy: CapturePolicy,
        *,
        content_encoding: str | None = None,
    ) -> str | dict[str, Any]:
        """What is recorded of the body: its text prefix or its :meth:`digest`.

        ``content_encoding`` is the ``Content-Encoding`` of bytes fed before
        decoding (a stream): such bytes are never text.
        """
        media, charset = _media(content_type)
        if (content_encoding or "").strip().lower() not in _IDENTITY:
            return self.digest()
        if media and not _is_text_media(media):
            return self.digest()
        text = self._decode(charset or "utf-8", strict=not media)
        if text is None:
            return self.digest()
        if not self.truncated:  # a cut document does not parse: the text rules apply
            text = _redact_structured(text, media, policy)
        return policy.text(text)

    def _decode(self, encoding: str, *, strict: bool) -> str | None:
        try:
            decoder = codecs.getincrementaldecoder(encoding)("strict" if strict else "replace")
        except LookupError:
            return None
        try:
            # A cut prefix may end inside a character: not final, so that tail is dropped.
            return str(decoder.decode(bytes(self._prefix), final=not self.truncated))
        except UnicodeDecodeError:
            return None


def _redact_structured(text: str, media: str, policy: CapturePolicy) -> str:
    """``text`` with secret-keyed values of a JSON document redacted, whatever the declared
    type (a client may send JSON as ``text/plain``); else unchanged."""
    if media == "application/json" or media.endswith("+json") or text.lstrip()[:1] in ("{", "["):
        try:
            parsed = json.loads(text)
        except ValueError:
            return text
        redacted = policy.apply(parsed)
        return text if redacted is parsed else json.dumps(redacted, ensure_ascii=False)
    return text  # a form body: its secret pairs are redacted as any text's
