"""The output redaction pass (autobench.report._redaction): redacts at any length, keeps
clean text as it is, knows the credentials of a URL, and leaves documents' shapes alone."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from autobench.abp import CapturePolicy
from autobench.report import (
    redact_content,
    redact_known,
    redact_strings,
    redact_text,
    redact_url,
    url_secrets,
)

_ALNUM = string.ascii_letters + string.digits
clean_text = st.text(alphabet=" .,:;\n" + string.ascii_lowercase, max_size=300)
secrets = st.text(_ALNUM, min_size=20, max_size=40).map(lambda body: "sk-" + body)


@given(before=clean_text, secret=secrets, after=clean_text)
def test_a_secret_anywhere_in_text_is_replaced_by_the_marker(
    before: str, secret: str, after: str
) -> None:
    shown = redact_text(f"{before} {secret} {after}")
    assert secret not in shown
    assert shown == f"{before} [redacted] {after}"


@given(text=clean_text)
def test_clean_text_comes_back_as_the_same_object(text: str) -> None:
    assert redact_text(text) is text


def test_redaction_never_truncates_what_it_writes() -> None:
    page = "x" * 300_000 + " Bearer abcdefgh12345678 " + "y" * 300_000
    shown = redact_text(page)
    assert shown == "x" * 300_000 + " [redacted] " + "y" * 300_000
    # the capture policy itself truncates strings over 64 KiB; the output pass does not
    assert len(CapturePolicy().text(page)) < len(shown)


def test_a_policy_s_own_patterns_and_marker_apply() -> None:
    policy = CapturePolicy(secret_patterns=(r"acme_[a-z]{8}",), redaction_marker="***")
    assert redact_text("key acme_abcdefgh here", policy) == "key *** here"
    assert redact_content(b"key acme_abcdefgh here", policy) == b"key *** here"


def test_url_credentials_are_known_and_redacted_where_a_message_quotes_them() -> None:
    url = "https://bob:hunter2pass@otel.example:4318/v1/traces?api_key=k3y%2Fv4lue&region=eu"
    assert set(url_secrets(url)) >= {"bob:hunter2pass", "hunter2pass", "k3y/v4lue", "k3y%2Fv4lue"}
    assert redact_url(url) == (
        "https://[redacted]@otel.example:4318/v1/traces?api_key=[redacted]&region=eu"
    )
    message = "HTTPConnectionPool(host='otel.example'): url: /v1/traces?api_key=k3y%2Fv4lue"
    assert redact_known(message, url_secrets(url)) == (
        "HTTPConnectionPool(host='otel.example'): url: /v1/traces?api_key=[redacted]"
    )
    assert url_secrets("http://localhost:4318/v1/traces?service=x") == []


def test_a_query_value_shaped_like_a_secret_is_a_credential_whatever_its_name() -> None:
    url = "http://h/x?q=sk-abcdefghijklmnopqrstuv"
    assert "sk-abcdefghijklmnopqrstuv" in url_secrets(url)
    assert "sk-" not in redact_url(url)


@given(secret=secrets)
def test_documents_keep_their_shape_and_only_strings_change(secret: str) -> None:
    document = {
        "runs": 2,
        "cases": {"one": {"reason": f"got {secret}", "metrics": {"x": 1.5}}},
        "diagnostics": ["fine", ("a", secret)],
        secret: None,
    }
    shown = redact_strings(document)
    assert shown == {
        "runs": 2,
        "cases": {"one": {"reason": "got [redacted]", "metrics": {"x": 1.5}}},
        "diagnostics": ["fine", ("a", "[redacted]")],
        "[redacted]": None,
    }
    clean = {"runs": 2, "cases": {"one": {"reason": "ok"}}, "list": [1, "a"]}
    assert redact_strings(clean) is clean
