"""Native instrumentation machinery: the YAML section, precedence, the lifecycle around the
matrix, skipped integrations, and native span usage becoming run evidence. The instrumentor
here is a real implementation of the ABP contract over a small client class of the test."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pluggy
import pytest
from runtime_support import make_spec, run, write_task_module

from autobench import (
    AbstractionLayer,
    Benchmark,
    CaptureMechanism,
    Compatibility,
    HTTPXCaptureSettings,
    HTTPXInstrumentation,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationRuntime,
    InstrumentorInfo,
    OpenAIInstrumentation,
    dump_benchmark_spec,
    instrumentor_statuses,
    load_benchmark_spec,
)
from autobench.core.native import (
    InstrumentationSpec,
    IntegrationEntry,
    merged_entries,
    resolve_instrumentation,
)
from autobench.core.plugins import integration_entries, plugin_manager
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import SpecError, load_benchmark_spec_text
from autobench.records import (
    ObservationKind,
    ObservationQuery,
    RecordDirectoryWriter,
    run_observations,
)

SECTION = """\
benchmark:
  chat:
    cases: [{id: c1}]
    run: {python: "app:run"}
    variants: {v1: {}}
    instrumentation:
      all: {exclude: [httpx], strict: false}
      openai: {}
      httpx:
        capture:
          path: hash
          request_headers: [X-Request-Id]
          response_headers: [x-request-id]
          request_body: false
          response_body: false
          max_body_bytes: 65536
      openai_agents: false
"""


def test_the_yaml_section_loads_validates_and_round_trips() -> None:
    spec = load_benchmark_spec_text(SECTION)
    section = spec.instrumentation
    assert section.all is not None and section.all.exclude == ("httpx",)
    assert section.openai == OpenAIInstrumentation()
    assert section.httpx == HTTPXInstrumentation(
        capture=HTTPXCaptureSettings(
            request_headers=("x-request-id",), response_headers=("x-request-id",)
        )
    )
    assert section.openai_agents is False and section.pydantic_ai is None
    again = load_benchmark_spec_text(dump_benchmark_spec(spec))
    assert again.instrumentation == section


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("      opnai: {}\n", "7:7: unknown key 'opnai' in instrumentation"),
        (
            "      openai: {capture: {}}\n",
            "7:16: unknown key 'capture' in instrumentation 'openai'",
        ),
        ("      httpx: {capture: {path: raw}}\n", "7:31: invalid 'capture.path'"),
        ("      all: {exclude: [htpx]}\n", "7:23: unknown integration 'htpx' in exclude"),
        ("      all: [httpx]\n", "7:12: instrumentation 'all' must be a mapping"),
        (
            "      httpx: {capture: {max_body_bytes: -1}}\n",
            "7:41: invalid 'capture.max_body_bytes'",
        ),
    ],
)
def test_bad_sections_are_located_errors(entry: str, message: str) -> None:
    text = SECTION.split("    instrumentation:")[0] + "    instrumentation:\n" + entry
    with pytest.raises(SpecError, match=message.replace("(", r"\(")):
        load_benchmark_spec_text(text)


CLIENT = '''
import time


class ChatClient:
    """A model client of the application under test: its own code, not a mock."""

    calls = 0

    def complete(self, prompt, *, model="demo/mini"):
        ChatClient.calls += 1
        return {"model": model + "-2026", "prompt_tokens": 10 * len(prompt), "completion_tokens": 5}


def run(ctx, case):
    client = ChatClient()
    for prompt in case.input["prompts"]:
        client.complete(prompt)
    if case.input.get("fail"):
        raise RuntimeError("the task failed after its calls")
    return {"done": True}
'''


class ChatInstrumentor:
    """A native instrumentor of ``ChatClient.complete`` following the ABP contract: one span
    per call with the model and usage on it (the runtime turns them into observations)."""

    def __init__(self, client_class: type, instrumentor_id: str = "chat") -> None:
        self.client_class = client_class
        self.info = InstrumentorInfo(
            id=instrumentor_id,
            version="1.0.0",
            mechanism=CaptureMechanism.PATCH,
            layer=AbstractionLayer.CLIENT,
            span_kinds=("llm",),
            package="tests",
        )
        self.installs = 0
        self.closes = 0

    def check(self) -> Compatibility:
        return Compatibility.compatible()

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        original = self.client_class.complete

        def complete(client: Any, prompt: str, **kwargs: Any) -> Any:
            with runtime.span("chat.complete", kind="llm") as span:
                result = original(client, prompt, **kwargs)
                if span is not None:
                    span.set_attribute("llm.model.requested", kwargs.get("model", "demo/mini"))
                    span.set_attribute("llm.model.response", result["model"])
                    span.set_usage(
                        requests=1,
                        input_tokens=result["prompt_tokens"],
                        output_tokens=result["completion_tokens"],
                    )
                return result

        self.client_class.complete = complete
        self.installs += 1

        def close() -> None:
            self.client_class.complete = original
            self.closes += 1

        return InstrumentationHandle(close, info=self.info)


PRICING = """\
pricing:
  provider: demo
  models:
    demo/mini:
      aliases: ["demo/mini-2026"]
      input: {unit: mtok, price: 1.0}
      output: {unit: mtok, price: 5.0}
"""


@pytest.fixture
def client_module(tmp_path: Path) -> Any:
    name = write_task_module(tmp_path, CLIENT)
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
        yield module
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


def test_a_custom_instrumentor_is_installed_for_the_matrix_and_feeds_the_evidence(
    tmp_path: Path, client_module: Any
) -> None:
    (tmp_path / "pricing.yaml").write_text(PRICING)
    instrumentor = ChatInstrumentor(client_module.ChatClient)
    original = client_module.ChatClient.complete
    builder = (
        Benchmark("chat")
        .dataset(
            [
                {"id": "two", "input": {"prompts": ["hi", "there"]}},
                {"id": "fails", "input": {"prompts": ["x"], "fail": True}},
            ]
        )
        .variants([{"id": "v1"}])
        .task(f"{client_module.__name__}:run")
        .derive([{"kind": "token_cost", "pricing": "pricing.yaml"}])
        .base_dir(tmp_path)
        .instrument(instrumentor)
    )
    result = builder.run(concurrency_limit=2)
    # installed once for the whole matrix, closed after it, the method restored
    assert (instrumentor.installs, instrumentor.closes) == (1, 1)
    assert client_module.ChatClient.complete is original
    two = next(r for r in result.runs if r.case_id == "two")
    query = ObservationQuery(observations=run_observations(two))
    assert query.values("llm.tokens.input") == [70]  # 20 + 50, from span usage
    assert query.values("llm.request.count") == [2]
    assert query.values("money.cost") == [pytest.approx((70 * 1.0 + 10 * 5.0) / 1e6)]
    factors = {o.semantic_type for o in two.observations if o.kind is ObservationKind.FACTOR}
    assert factors == {"llm.model.requested", "llm.model.response"}
    # a task that raised keeps the evidence of the calls it made
    fails = next(r for r in result.runs if r.case_id == "fails")
    assert fails.status.value == "errored"
    assert ObservationQuery(observations=fails.observations).values("llm.tokens.input") == [10]
    # the custom instance is runtime-only: it never reaches the YAML
    assert "instrumentation" not in dump_benchmark_spec(builder.to_spec())


def test_instrument_rejects_one_id_configured_twice(client_module: Any) -> None:
    first = ChatInstrumentor(client_module.ChatClient, "openai")
    with pytest.raises(ValueError, match="'openai' is configured twice"):
        Benchmark("b").instrument(OpenAIInstrumentation(), first)
    with pytest.raises(ValueError, match="'chat' is configured twice"):
        Benchmark("b").instrument(
            ChatInstrumentor(client_module.ChatClient), ChatInstrumentor(client_module.ChatClient)
        )
    with pytest.raises(TypeError, match="not str"):
        Benchmark("b").instrument("openai")  # type: ignore[arg-type]


ABSENT = IntegrationEntry(
    "absent_sdk", "autobench-instrument-absent", "autobench.instrument.absent", None, ("absent",)
)
"""An integration announced by a plugin whose distribution is not installed."""

EVERY_BUILTIN = ["httpx", "openai", "openai_agents", "pydantic_ai"]


class AbsentIntegrationPlugin:
    """A real plugin announcing :data:`ABSENT` through the ``autobench_instrumentors`` hook."""

    @pluggy.HookimplMarker("autobench")
    def autobench_instrumentors(self) -> list[dict[str, Any]]:
        return [
            {
                "id": ABSENT.id,
                "distribution": ABSENT.distribution,
                "module": ABSENT.module,
                "targets": ABSENT.targets,
            }
        ]


@pytest.fixture
def absent_integration() -> Iterator[IntegrationEntry]:
    """:data:`ABSENT` announced by a plugin registered with the process's plugin manager
    (every built-in integration is installed in this workspace, so discovery needs a
    missing one to skip)."""
    manager = plugin_manager()
    plugin = AbsentIntegrationPlugin()
    manager.register(plugin, name="tests.absent-integration")
    integration_entries.cache_clear()  # the list is read once per process
    try:
        yield ABSENT
    finally:
        manager.unregister(plugin)
        integration_entries.cache_clear()


@pytest.mark.usefixtures("absent_integration")
def test_discovery_skips_what_is_missing_and_records_why_on_every_run(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def run(ctx, case):\n    return {}\n")
    spec = make_spec(
        tmp_path,
        f"{module}:run",
        cases=({"id": "a"}, {"id": "b"}),
        instrumentation={"all": {"exclude": EVERY_BUILTIN}},
    )
    result = run(spec)
    for recorded in result.runs:
        skipped = {
            o.value["integration"]: o.reason
            for o in recorded.observations
            if o.name == "instrumentation.skipped"
        }
        assert set(skipped) == {"absent_sdk"}
        assert "autobench-instrument-absent is not installed" in skipped["absent_sdk"]


@pytest.mark.usefixtures("absent_integration")
def test_strict_discovery_fails_before_any_run_and_records_nothing(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def run(ctx, case):\n    raise AssertionError\n")
    spec_path = tmp_path / "autobench.yaml"
    spec_path.write_text(
        textwrap.dedent(
            f"""\
            benchmark:
              strict:
                cases: [{{id: a}}]
                run: {{python: "{module}:run"}}
                variants: {{v1: {{}}}}
                instrumentation:
                  all: {{strict: true, exclude: [{", ".join(EVERY_BUILTIN)}]}}
            """
        )
    )
    record = tmp_path / "rec"
    with pytest.raises(InstrumentationError, match="absent_sdk: unavailable"):
        asyncio.run(
            run_benchmark_spec(load_benchmark_spec(spec_path), sink=RecordDirectoryWriter(record))
        )
    assert not record.exists() or not any(record.iterdir())


def test_explicit_false_and_custom_ids_take_precedence(client_module: Any) -> None:
    section = InstrumentationSpec.model_validate(
        {"all": {}, "pydantic_ai": False, "openai_agents": False}
    )
    custom = ChatInstrumentor(client_module.ChatClient, "openai")
    resolved = resolve_instrumentation(section, [custom], integration_entries())
    ids = [instrumentor.info.id for instrumentor in resolved.instrumentors]
    assert ids[0] == "openai" and resolved.instrumentors[0] is custom
    assert "openai" not in [item.integration for item in resolved.skipped]
    assert {item.integration for item in resolved.skipped} <= {"httpx"}


def test_statuses_list_every_integration_without_importing_any_sdk() -> None:
    statuses = {status.name: status for status in instrumentor_statuses()}
    assert set(statuses) >= {"pydantic_ai", "openai", "openai_agents", "httpx"}
    agents = statuses["openai_agents"]
    assert agents.installed == "0.1.0" and agents.compatibility.status.value == "compatible"
    code = (
        "import sys\n"
        "from autobench import instrumentor_statuses\n"
        "assert len(instrumentor_statuses()) >= 4\n"
        "loaded = [name for name in ('agents', 'openai', 'httpx', 'httpx2') if name in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_instrumentors_are_closed_when_the_experiment_is_cancelled(
    tmp_path: Path, client_module: Any
) -> None:
    slow = write_task_module(
        tmp_path, "import asyncio\n\nasync def run(ctx, case):\n    await asyncio.sleep(30)\n"
    )
    instrumentor = ChatInstrumentor(client_module.ChatClient)
    spec = make_spec(tmp_path, f"{slow}:run").model_copy(update={"instrumentors": (instrumentor,)})

    async def cancel_soon() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(run_benchmark_spec(spec), timeout=0.5)

    asyncio.run(cancel_soon())
    assert (instrumentor.installs, instrumentor.closes) == (1, 1)


def test_a_second_instrument_all_replaces_the_first() -> None:
    builder = Benchmark("b").instrument_all(exclude={"httpx"}, strict=True).instrument_all()
    section = builder.to_spec().instrumentation
    assert section.all is not None and (section.all.exclude, section.all.strict) == ((), False)


def test_instrumentor_distributions_announce_themselves_through_entry_points() -> None:
    announced = {
        entry["id"]: entry for entries in plugin_manager().hook.autobench_instrumentors()
        for entry in entries
    }  # fmt: skip
    assert announced["httpx"]["distribution"] == "autobench-instrument-httpx"
    assert announced["openai"]["module"] == "autobench.instrument.openai"
    by_id = {entry.id: entry for entry in integration_entries()}
    assert by_id["openai"].settings is OpenAIInstrumentation  # the built-in settings stay
    with pytest.raises(TypeError, match="not an IntegrationEntry"):
        merged_entries(["httpx"])  # type: ignore[list-item]
