"""The distribution: lazy SDK import, identity, checks, exact restoration, reference counts."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import openai
import pytest
from openai.lib.streaming.chat import AsyncChatCompletionStream, ChatCompletionStream
from openai.lib.streaming.responses import AsyncResponseStream, ResponseStream
from openai.resources.chat.completions import AsyncCompletions, Completions
from openai.resources.embeddings import AsyncEmbeddings, Embeddings
from openai.resources.responses import AsyncResponses, Responses
from openai_support import MODEL, FakeAPI, only_span, openai_spans, recording, sync_client

from autobench.abp import (
    InstrumentationError,
    InstrumentationManager,
    InstrumentationRuntime,
    active_collector,
    suppress_instrumentation,
)
from autobench.core.native import OpenAIInstrumentation
from autobench.instrument.openai import INFO, SUPPORTED, OpenAIInstrumentor, create

MESSAGES = [{"role": "user", "content": "Say hello"}]

PATCHED: list[tuple[type, str]] = [
    (Completions, "create"),
    (AsyncCompletions, "create"),
    (Completions, "parse"),
    (AsyncCompletions, "parse"),
    (Responses, "create"),
    (AsyncResponses, "create"),
    (Responses, "parse"),
    (AsyncResponses, "parse"),
    (Embeddings, "create"),
    (AsyncEmbeddings, "create"),
    (openai.Stream, "close"),
    (openai.AsyncStream, "close"),
    (ChatCompletionStream, "close"),
    (AsyncChatCompletionStream, "close"),
    (ResponseStream, "close"),
    (AsyncResponseStream, "close"),
]


def _originals() -> dict[tuple[type, str], Any]:
    return {(cls, name): cls.__dict__[name] for cls, name in PATCHED}


def test_importing_creating_and_checking_do_not_import_openai() -> None:
    code = (
        "import sys\n"
        "from autobench.abp import InstrumentationManager\n"
        "import autobench.instrument.openai.package as package\n"
        "import autobench.instrument.openai as instrument\n"
        "state = InstrumentationManager().check(instrument.create(None)).state\n"
        "assert state == 'compatible', state\n"
        "assert 'openai' not in sys.modules, 'openai was imported'\n"
        "print(package.INFO.id)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "openai"


def test_identity() -> None:
    assert INFO.id == "openai" and INFO.target_distribution == "openai"
    assert INFO.supported_versions == SUPPORTED
    assert INFO.mechanism == "patch" and INFO.layer == "client"
    assert INFO.span_kinds == ("llm",) and INFO.semantic_families == ("llm",)
    assert INFO.capabilities == ("sync", "async", "streaming", "raw_response")
    assert INFO.package == "autobench-instrument-openai" and INFO.package_version == "0.1.0"
    scope = INFO.scope(openai.__version__)
    assert scope.source_convention == "openai" and scope.target_version == openai.__version__


def test_create_reads_the_core_settings() -> None:
    default = create(None)
    assert isinstance(default, OpenAIInstrumentor) and default.info is INFO
    assert (default.capture_input, default.capture_output) == (False, False)
    assert (create(OpenAIInstrumentation()).capture_input, default.capture_output) == (False, False)
    chosen = create(OpenAIInstrumentation(capture_input=True, capture_output=True))
    assert (chosen.capture_input, chosen.capture_output) == (True, True)


def test_check_is_compatible_with_the_installed_sdk() -> None:
    manager = InstrumentationManager()
    result = manager.check(create(None))
    assert result.state == "compatible", result.reason
    assert result.target_version == openai.__version__


def test_a_version_outside_the_range_is_refused_before_patching() -> None:
    before = _originals()
    elsewhere = dataclasses.replace(INFO, supported_versions=">=99,<100")
    instrumentor = OpenAIInstrumentor(info=elsewhere)
    manager = InstrumentationManager()
    assert manager.check(instrumentor).state == "unsupported"
    with pytest.raises(InstrumentationError) as raised:
        manager.install(instrumentor)
    assert raised.value.compatibility.state == "unsupported"
    assert openai.__version__ in raised.value.compatibility.reason
    with pytest.raises(InstrumentationError):  # also when installed without a manager
        instrumentor.install(InstrumentationRuntime(elsewhere))
    assert _originals() == before and manager.installed == ()


def test_close_restores_the_exact_originals(manager: InstrumentationManager) -> None:
    before = _originals()
    handle = manager.install(create(None))
    assert all(cls.__dict__[name] is not before[cls, name] for cls, name in PATCHED)
    assert Completions.create.__wrapped__ is before[Completions, "create"]  # type: ignore[attr-defined]
    handle.close()
    assert _originals() == before
    with recording() as collector:
        sync_client(FakeAPI()).chat.completions.create(model=MODEL, messages=MESSAGES)
    assert openai_spans(collector) == []


def test_installs_are_reference_counted(manager: InstrumentationManager) -> None:
    before = _originals()
    first = manager.install(create(None))
    patched = _originals()
    second = manager.install(create(None))
    assert manager.owners("openai") == 2 and _originals() == patched
    client = sync_client(FakeAPI())
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert len(openai_spans(collector)) == 1  # one installation, one span
    first.close()
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert len(openai_spans(collector)) == 1 and _originals() == patched
    second.close()
    assert _originals() == before and manager.owners("openai") == 0


def test_two_managers_still_record_each_call_once() -> None:
    before = _originals()
    with InstrumentationManager() as outer, InstrumentationManager() as inner:
        outer.install(create(None))
        inner.install(create(None))
        with recording() as collector:
            sync_client(FakeAPI()).chat.completions.create(model=MODEL, messages=MESSAGES)
        assert len(openai_spans(collector)) == 1
    assert _originals() == before


def test_a_raw_wrapper_cached_before_a_reinstall_still_records() -> None:
    client = sync_client(FakeAPI())
    with InstrumentationManager() as manager:
        manager.install(create(None))
        raw = client.chat.completions.with_raw_response  # caches the bound create
    with InstrumentationManager() as manager:
        manager.install(create(None))
        with recording() as collector:
            raw.create(model=MODEL, messages=MESSAGES)
        assert only_span(collector).usage["input_tokens"] == 12
    with recording() as collector:  # uninstalled: the stale wrapper calls straight through
        raw.create(model=MODEL, messages=MESSAGES)
    assert openai_spans(collector) == []


@pytest.mark.usefixtures("installed")
def test_no_span_outside_a_run_or_when_suppressed() -> None:
    api = FakeAPI()
    client = sync_client(api)
    result = client.chat.completions.create(model=MODEL, messages=MESSAGES)
    for _ in client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True):
        pass
    assert result.choices[0].message.content == "Hello!"
    assert api.request_spans == [None, None] and active_collector() is None
    with recording() as collector:
        with suppress_instrumentation("openai"):
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
        with suppress_instrumentation("openai.embeddings"):
            client.embeddings.create(model="m", input="x")
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert [span.operation for span in openai_spans(collector)] == ["openai.chat.completions"]


def test_a_missing_required_seam_refuses_the_install(
    manager: InstrumentationManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(Embeddings, "create")  # an SDK without the method
    before = _originals_except(Embeddings)
    with pytest.raises(InstrumentationError) as raised:
        manager.install(create(None))
    assert raised.value.compatibility.state == "unsupported"
    assert "Embeddings.create" in raised.value.compatibility.reason
    assert _originals_except(Embeddings) == before and manager.installed == ()


def test_a_missing_optional_seam_degrades_the_install(
    manager: InstrumentationManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(ResponseStream, "close")
    handle = manager.install(create(None))
    with recording() as collector:
        sync_client(FakeAPI()).chat.completions.create(model=MODEL, messages=MESSAGES)
    assert len(openai_spans(collector)) == 1
    handle.close()
    (diagnostic,) = manager.diagnostics
    assert diagnostic.state == "degraded" and "ResponseStream.close" in diagnostic.reason


def _originals_except(skipped: type) -> dict[tuple[type, str], Any]:
    return {(cls, name): cls.__dict__[name] for cls, name in PATCHED if cls is not skipped}
