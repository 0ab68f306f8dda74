"""The distribution's shape: lazy imports, the declared identity, settings and defaults."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import autobench.instrument.httpx as integration
from autobench.abp import (
    DEFAULT_CAPTURE_POLICY,
    AbstractionLayer,
    CaptureMechanism,
    CapturePolicy,
    Instrumentor,
)
from autobench.core.native import HTTPXCaptureSettings, HTTPXInstrumentation
from autobench.instrument.httpx import CapturePlan, HTTPXInstrumentor, create, is_secret_header
from autobench.instrument.httpx.package import INFO, SUPPORTED

SOURCE = Path(integration.__file__).resolve().parents[2]


def _imports(statement: str) -> str:
    code = f"import sys\n{statement}\nprint(sorted(m for m in ('httpx', 'httpx2') if m in sys.modules))"
    return subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_package_module_imports_no_sdk() -> None:
    assert _imports("import autobench.instrument.httpx.package") == "[]"


def test_package_imports_no_sdk_until_install() -> None:
    statement = (
        "from autobench.instrument.httpx import create\n"
        "instrumentor = create(None)\n"
        "assert instrumentor.check().installable"
    )
    assert _imports(statement) == "[]"


def test_namespace_has_no_init() -> None:
    assert SOURCE.name == "autobench"
    assert not (SOURCE / "__init__.py").exists()
    assert not (SOURCE / "instrument" / "__init__.py").exists()


def test_info_declares_the_transport_patch() -> None:
    assert INFO.id == "httpx" and INFO.version == "0.1.0"
    assert INFO.target_distribution is None
    assert INFO.mechanism is CaptureMechanism.PATCH
    assert INFO.layer is AbstractionLayer.TRANSPORT
    assert INFO.span_kinds == ("http",) and INFO.semantic_families == ("http",)
    assert INFO.capabilities == ("sync", "async", "streaming")
    assert (INFO.package, INFO.package_version) == ("autobench-instrument-httpx", "0.1.0")
    assert SUPPORTED == {"httpx": ">=0.28,<0.29", "httpx2": ">=2.12,<3"}


def test_create_returns_an_instrumentor() -> None:
    instrumentor = create(None)
    assert isinstance(instrumentor, HTTPXInstrumentor)
    assert isinstance(instrumentor, Instrumentor)
    assert instrumentor.info is INFO
    assert instrumentor.supported == SUPPORTED


def test_defaults_are_privacy_safe() -> None:
    plan = CapturePlan.from_settings(None)
    assert plan == CapturePlan.from_settings(HTTPXInstrumentation())
    assert plan.path == "hash"
    assert plan.request_headers == () and plan.response_headers == ()
    assert not plan.request_body and not plan.response_body
    assert plan.max_body_bytes == 65536
    assert plan.policy is DEFAULT_CAPTURE_POLICY


def test_settings_are_read_from_the_core_model() -> None:
    settings = HTTPXInstrumentation(
        capture=HTTPXCaptureSettings(
            path="full",
            request_headers=("X-Request-Id", "Authorization"),
            response_headers=("x-request-id",),
            request_body=True,
            max_body_bytes=10,
        )
    )
    plan = CapturePlan.from_settings(settings, CapturePolicy(secret_keys=frozenset()))
    assert plan.path == "full"
    assert plan.request_headers == (("x-request-id", False), ("authorization", True))
    assert plan.response_headers == (("x-request-id", False),)
    assert plan.request_body and not plan.response_body
    assert plan.max_body_bytes == 10


class _Capture:
    def __init__(self, **values: object) -> None:
        defaults: dict[str, object] = {
            "path": "hash",
            "request_headers": (),
            "response_headers": (),
            "request_body": False,
            "response_body": False,
            "max_body_bytes": 1,
        }
        defaults.update(values)
        self.__dict__.update(defaults)


class _Settings:
    def __init__(self, **values: object) -> None:
        self.capture = _Capture(**values)


@pytest.mark.parametrize(
    ("values", "message"),
    [({"path": "raw"}, "path must be one of"), ({"max_body_bytes": -1}, "must be >= 0")],
)
def test_invalid_settings_fail_at_create(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create(_Settings(**values))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "proxy-authorization",
        "cookie",
        "Set-Cookie",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-auth-token",
        "x-amz-security-token",
        "x-client-secret",
        "x-password",
        "openai-api-key",
    ],
)
def test_credential_headers_are_secret(name: str) -> None:
    assert is_secret_header(name)
    assert is_secret_header(name, CapturePolicy(secret_keys=frozenset()))


@pytest.mark.parametrize(
    "name", ["x-request-id", "content-type", "openai-organization", "retry-after"]
)
def test_ordinary_headers_are_not_secret(name: str) -> None:
    assert not is_secret_header(name)
