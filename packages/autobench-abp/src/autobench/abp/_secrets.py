"""What counts as a secret, for the whole project: key names, value patterns and URL query
parameter names, with the additions a spec or a program registers.

Every :class:`~autobench.abp.CapturePolicy` (the default one included) reads these, so
the headers, bodies, URLs, cassettes, span attributes, errors, terminal output and
exports that Autobench writes share one definition. Additions accumulate for the life of
the process and are never removed: a program that reads two records redacts what either
names (stricter, never looser).

Key names are compared in a normal form (:func:`normalise_key`): camelCase split at each
lower-to-upper step, lowercased, ``-`` and ``.`` mapped to ``_``; a key is secret when
its normal form equals a name or ends with ``_`` + a name (``x-api-key``, ``accessToken``,
``OPENAI_API_KEY``, ``aws_secret_access_key``), so ``max_tokens`` and ``input_tokens``
are not.
"""

from __future__ import annotations

import re

# The standard library's own parser of regular expressions (sre_parse before 3.11; typeshed
# describes only that deprecated name).
import re._parser as re_parser  # type: ignore[import-not-found]
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

DEFAULT_SECRET_KEYS: frozenset[str] = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "auth",
        "api_key",
        "apikey",
        "access_key",
        "secret_key",
        "password",
        "passwd",
        "passphrase",
        "token",
        "secret",
        "credential",
        "credentials",
        "cookie",
        "set_cookie",
        "private_key",
        "client_secret",
    }
)
"""Secret key names (normal form, see the module docstring). A mapping entry under such a
key has its whole value replaced, whatever it is (``auth: {key: ...}`` included)."""

DEFAULT_SECRET_QUERY_PARAMS: frozenset[str] = frozenset(
    {"key", "sig", "signature", "x_amz_signature", "x_amz_credential", "x_amz_security_token"}
)
"""Names that are secret as URL query or form parameters (a ``name=value`` pair that
starts a text or follows ``?``, ``&`` or ``;``) on top of the secret keys: Gemini's ``key=``, Azure SAS ``sig=``, AWS presigned
``X-Amz-Signature`` / ``X-Amz-Credential`` / ``X-Amz-Security-Token``. They are not secret
as mapping keys (a ``key`` field of a JSON document is usually not a credential)."""

DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    r"(?i)bearer(?:\s+|%20|\+)[A-Za-z0-9._~+/=-]+",
    r"(?i)basic\s+[A-Za-z0-9+/=]{8,}",
    r"sk-[A-Za-z0-9_-]{16,}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"xox[abprs]-[A-Za-z0-9-]{10,}",
    r"(?<=://)[^/\s:@\"'<>]+:[^/\s@\"'<>]+(?=@)",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
)
"""Secret value patterns (regular expressions, searched anywhere in a string): HTTP bearer
(also percent- or plus-encoded) and basic credentials, ``sk-...`` API keys, Google
``AIza...`` API keys, JSON web tokens, AWS access key ids, GitHub and Slack tokens, the
``user:password`` of a URL, PEM private keys."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_key(key: str) -> str:
    """The normal form secret key names are compared in (see the module docstring)."""
    return _CAMEL.sub("_", key).lower().replace("-", "_").replace(".", "_")


@dataclass(frozen=True, slots=True)
class RedactionAdditions:
    """Names and patterns added to the defaults (:func:`extend_redaction`), and a
    ``version`` that grows with every change (policies recompile when it moves)."""

    keys: frozenset[str] = frozenset()
    patterns: tuple[str, ...] = ()
    query_params: frozenset[str] = frozenset()
    version: int = 0

    def as_dict(self) -> dict[str, list[str]]:
        """``{"keys": [...], "patterns": [...], "query_params": [...]}``, sorted names, the
        patterns in the order they were added; empty lists left out."""
        found = {
            "keys": sorted(self.keys),
            "patterns": list(self.patterns),
            "query_params": sorted(self.query_params),
        }
        return {name: items for name, items in found.items() if items}


_lock = threading.Lock()
_additions = RedactionAdditions()
additions_version = 0
"""``redaction_additions().version``, read by every policy on each call (one attribute)."""


def redaction_additions() -> RedactionAdditions:
    """What :func:`extend_redaction` has added in this process so far."""
    return _additions


MAX_PATTERN_LENGTH = 1000
"""Characters of an added secret pattern, at most."""


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a secret pattern, or ``None``: it is longer than
    :data:`MAX_PATTERN_LENGTH`, is not a regular expression, matches the empty string (it
    would redact nothing, everywhere), or repeats a group that itself holds an unbounded
    repetition (``(a+)+``, ``(\\w*\\s?)*``: the shape whose backtracking takes exponential
    time on a text that almost matches, which would let a spec or a record stall every
    command that writes text)."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"is longer than {MAX_PATTERN_LENGTH} characters"
    try:
        compiled = re.compile(pattern)
        tree = re_parser.parse(pattern)
    except re.error as error:
        return f"is not a regular expression: {error}"
    if compiled.search("") is not None:
        return "matches the empty string"
    if _nested_repeat(tree.data, inside=False):
        return (
            "repeats a group that holds an unbounded repetition (such as (a+)+), which can "
            "take exponential time; write it with one level of repetition"
        )
    return None


_REPEATS = (re_parser.MAX_REPEAT, re_parser.MIN_REPEAT, re_parser.POSSESSIVE_REPEAT)


def _nested_repeat(items: Any, *, inside: bool) -> bool:
    """Whether the parsed ``items`` hold an unbounded repetition within a repetition
    (``inside``: these items are already repeated more than once)."""
    for op, argument in items:
        if op in _REPEATS:
            _, high, sub = argument
            if (inside and high == re_parser.MAXREPEAT) or _nested_repeat(
                sub, inside=inside or high > 1
            ):
                return True
        elif any(_nested_repeat(sub, inside=inside) for sub in _subpatterns(argument)):
            return True
    return False


def _subpatterns(argument: Any) -> list[Any]:
    """The parsed subpatterns inside one node's argument (a group, the branches of an
    alternation, an assertion, a conditional)."""
    if isinstance(argument, re_parser.SubPattern):
        return [argument]
    if isinstance(argument, tuple | list):
        return [sub for item in argument for sub in _subpatterns(item)]
    return []


def extend_redaction(
    *,
    keys: Iterable[str] = (),
    patterns: Iterable[str] = (),
    query_params: Iterable[str] = (),
) -> RedactionAdditions:
    """Add secret key names, value patterns (regular expressions) and query parameter
    names to every capture policy of this process, and return all additions so far.

    Names may be given in any spelling (``sessionId``, ``X-Session-Id``): they are
    compared in normal form. Raises ``ValueError`` naming the pattern when
    :func:`pattern_problem` finds one."""
    global _additions, additions_version
    names = frozenset(normalise_key(str(key)) for key in keys if str(key).strip())
    params = frozenset(normalise_key(str(key)) for key in query_params if str(key).strip())
    added = tuple(str(pattern) for pattern in patterns)
    for pattern in added:
        problem = pattern_problem(pattern)
        if problem is not None:
            raise ValueError(f"secret pattern {pattern!r} {problem}")
    with _lock:
        current = _additions
        new_patterns = current.patterns + tuple(p for p in added if p not in current.patterns)
        if (
            names <= current.keys
            and params <= current.query_params
            and new_patterns == current.patterns
        ):
            return current
        _additions = RedactionAdditions(
            current.keys | names,
            new_patterns,
            current.query_params | params,
            current.version + 1,
        )
        additions_version = _additions.version
        return _additions


PAIRS = re.compile(
    r"(?<![\w.%-])(?P<name>[\w-]{1,64}+)=(?P<value>[\w%~-][^&\s#\"'<>,;()\[\]{}]*+)"
    r"|(?P<q>[\"'])(?P<qname>[\w.-]{1,64}+)(?P=q)\s*:\s*"
    r"(?P<q2>[\"'])(?P<qvalue>(?:\\.|(?!(?P=q2))[^\\])++)(?P=q2)"
)
"""``name=value`` pairs (URL queries, form bodies, log lines) and ``"name": "value"`` pairs
(JSON or a Python ``repr``, single or double quotes) in free text. The caller decides from
the name (group ``name`` or ``qname``) whether to redact the value (group ``value`` or
``qvalue``). A ``name=value`` name has no dot and its value starts with a letter, digit,
``%``, ``~``, ``_`` or ``-``, so program text (``this.accessToken=e``,
``match(/^access_token=(.*)$/)`` in a script embedded in an HTML report) is not a pair.
Possessive quantifiers keep the search linear: a name is read once from its first
character."""

EQUALS_NAMES = re.compile(r"(?<![\w.%-])([\w-]{1,64}+)=[\w%~-]")
QUOTED_NAMES = re.compile(r"[\"']([\w.-]{1,64}+)[\"']\s*:\s*[\"'{\[]")
"""The names of the ``name=value`` and of the quoted pairs :data:`PAIRS` (and
:data:`CONTAINERS`) find, one C scan each, so a text whose pairs all have innocent names
(most text) costs no Python call per pair. Each is searched only in a text holding an
``=`` (a ``:``); the second starts at a quote, which the engine skips to quickly. It may
name a pair :data:`PAIRS` does not match (mismatched quotes): that only costs a search."""

CONTAINERS = re.compile(r"([\"'])([\w.-]{1,64}+)\1\s*:\s*[{\[]")
"""A quoted name whose value is an object or a list (``"auth": {"key": ...}``): the value
is found by :func:`container_end`, to the end of the text when it was cut."""


def container_end(text: str, start: int) -> int:
    """The index just past the object or list opening at ``text[start]`` (brackets inside
    quoted strings do not count), or ``len(text)`` when it is not closed (a cut text)."""
    depth, quote, index = 0, "", start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)
