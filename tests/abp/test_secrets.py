"""The one definition of a secret: key names in any spelling, query and form parameters,
pairs in free text (also cut and nested), value patterns; properties over generated names
and values, and the fixed shapes the providers use."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autobench.abp import DEFAULT_CAPTURE_POLICY as POLICY
from autobench.abp import (
    DEFAULT_SECRET_PATTERNS,
    REDACTED,
    CapturePolicy,
    extend_redaction,
    normalise_key,
    pattern_problem,
)
from autobench.abp._secrets import container_end

SECRET_NAMES = [
    "api_key", "apikey", "access_token", "token", "client_secret", "password",
    "refresh_token", "session_token", "aws_secret_access_key", "access_key", "credentials",
    "private_key", "authorization",
]  # fmt: skip
QUERY_ONLY = ["key", "sig", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token"]
INNOCENT = ["max_tokens", "input_tokens", "token_count", "page", "model", "keys", "monkey"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _spellings(name: str) -> list[str]:
    return [name, name.upper(), name.replace("_", "-"), _camel(name), "x-" + name]


values = st.text(
    st.characters(whitelist_categories=("Lu", "Ll", "Nd"), max_codepoint=127), min_size=12
).filter(lambda text: len(set(text)) > 4)


@given(name=st.sampled_from(SECRET_NAMES), spelling=st.integers(0, 4), value=values)
def test_a_secret_name_in_any_spelling_hides_its_value_in_every_text_form(
    name: str, spelling: int, value: str
) -> None:
    key = _spellings(name)[spelling]
    assert POLICY.is_secret_key(key), key
    forms = [
        f"{key}={value}",
        f"https://h.test/p?a=1&{key}={value}&b=2",
        f'{{"{key}": "{value}", "n": 1}}',
        repr({key: value, "n": 1}),
        json.dumps({"outer": {key: value}}),
        json.dumps({key: {"id": value, "more": [value]}}),
        json.dumps({key: [value, value]})[:-3],  # cut inside the list
        urlencode({key: value, "grant_type": "password"}),
    ]
    for text in forms:
        redacted = POLICY.text(text)
        assert value not in redacted, (text, redacted)
        assert REDACTED in redacted
    assert POLICY.apply({key: value}) == {key: REDACTED}


@given(name=st.sampled_from(QUERY_ONLY), value=values)
def test_query_only_names_are_secret_in_urls_and_forms_not_as_mapping_keys(
    name: str, value: str
) -> None:
    assert POLICY.is_secret_query_param(name)
    assert POLICY.text(f"https://h.test/v1?{name}={value}&q=1") == (
        f"https://h.test/v1?{name}={REDACTED}&q=1"
    )
    if name in ("key", "sig"):
        assert POLICY.apply({name: value}) == {name: value}


@given(name=st.sampled_from(INNOCENT), value=values)
def test_innocent_names_keep_their_values(name: str, value: str) -> None:
    for text in (f"{name}={value}", json.dumps({name: value}), f"a.{name}=b"):
        assert POLICY.text(text) == text
    assert POLICY.apply({name: value}) == {name: value}


@pytest.mark.parametrize(
    "text",
    [
        "this.accessToken=e.accessToken,this.styleObj=null",
        "U.match(/^access_token=(.*)$/)",
        "e.filter(function(it){return!it.match(/^access_token=/)})",
        "Invalid value for '--executor-option': 'address' is not KEY=VALUE",
        "the signature=valid check passed",
    ],
)
def test_program_text_is_not_a_pair(text: str) -> None:
    """Code embedded in an HTML report (a charting library) keeps working, and a query
    parameter's name in prose (not after ``?``, ``&`` or ``;``) is not a credential."""
    assert POLICY.text(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key AIza" + "A" * 35 + " end", "key [redacted] end"),
        ("jwt eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2Q", "jwt [redacted]"),
        ("https://ada:pa55w0rd@host.test/x", "https://[redacted]@host.test/x"),
        ("q=Bearer%20abcdef123456", "q=[redacted]"),
        (
            "Client error '401' for url 'https://h.test/denied?key=zz9&x=1'",
            "Client error '401' for url 'https://h.test/denied?key=[redacted]&x=1'",
        ),
    ],
)
def test_value_patterns(text: str, expected: str) -> None:
    assert POLICY.text(text) == expected


@given(st.recursive(st.none() | st.integers() | st.text(), lambda inner: st.lists(inner)))
def test_container_end_finds_the_close_of_any_json_list(value: object) -> None:
    text = json.dumps([value]) + ', "after": 1'
    assert text[: container_end(text, 0)] == json.dumps([value])
    cut = json.dumps([value])[:-1]
    assert container_end(cut, 0) == len(cut)


def test_redaction_is_idempotent_and_a_marker_is_not_a_secret() -> None:
    once = POLICY.text('password=hunter22&{"token": "abc"} Bearer xyz')
    assert POLICY.text(once) == once


def test_normal_form() -> None:
    assert normalise_key("X-Amz-Security-Token") == "x_amz_security_token"
    assert normalise_key("clientSecret") == "client_secret"
    assert normalise_key("gen_ai.usage.input_tokens") == "gen_ai_usage_input_tokens"


def test_a_policy_keeps_its_own_names_beside_the_shared_ones() -> None:
    policy = CapturePolicy(secret_keys=frozenset({"pin"}), secret_patterns=(r"PIN-\d{4}",))
    assert policy.apply({"pin": 1234, "userPin": "x", "password": "y"}) == {
        "pin": REDACTED,
        "userPin": REDACTED,
        "password": "y",  # a policy's secret_keys replace the default names
    }
    assert policy.text("code PIN-1234") == "code [redacted]"
    assert re.search("PIN-", POLICY.text("code PIN-1234"))  # the default policy is unchanged


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"(a+)+$", "exponential time"),
        (r"(x|y+)*z", "exponential time"),
        (r"(?=(a+)+)b", "exponential time"),
        (r"(?>(\w+\s?))+", "exponential time"),
        (r"x*", "matches the empty string"),
        (r"(unclosed", "not a regular expression"),
        ("a" * 1001, "longer than 1000"),
        (r"acme_[A-Za-z0-9]{32}", None),
        (r"(?:ab){2,}[0-9]+", None),
        (r"[a-z]+@[a-z]+\.com", None),
    ],
)
def test_pattern_problem(pattern: str, problem: str | None) -> None:
    found = pattern_problem(pattern)
    assert found is None if problem is None else problem in (found or "")


def test_every_built_in_pattern_passes_its_own_check() -> None:
    assert [pattern_problem(pattern) for pattern in DEFAULT_SECRET_PATTERNS] == [None] * len(
        DEFAULT_SECRET_PATTERNS
    )
    with pytest.raises(ValueError, match="exponential time"):
        extend_redaction(patterns=[r"(a+)+$"])
