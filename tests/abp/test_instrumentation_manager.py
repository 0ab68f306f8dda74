"""The instrumentor contract: compatibility checks, reference-counted installs, suppression."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from autobench import (
    Compatibility,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationManager,
    InstrumentationRuntime,
    InstrumentorInfo,
    instrument_method,
    suppress_instrumentation,
)
from autobench.abp import (
    InstrumentCall,
    InstrumentMetricSpec,
    TraceCollector,
    ValuePathError,
    bind_collector,
    is_suppressed,
    resolve_value_path,
)


class Service:
    def handle(self, value: int) -> int:
        return value * 2


class ServiceInstrumentor:
    """A real instrumentor patching ``Service.handle`` through ``instrument_method``."""

    def __init__(
        self,
        *,
        version: str = "1.0.0",
        target: str | None = "pydantic",
        supported: str | None = ">=2",
        check: Compatibility | None = None,
    ) -> None:
        self.info = InstrumentorInfo(
            id="example.service",
            version=version,
            target_distribution=target,
            supported_versions=supported,
            span_kinds=("service.request",),
            semantic_families=("request",),
            capabilities=("sync",),
        )
        self._check = check or Compatibility.compatible()
        self.installs: list[InstrumentationRuntime] = []

    def check(self) -> Compatibility:
        return self._check

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        self.installs.append(runtime)
        inner = instrument_method(
            Service, "handle", span="service.request", instrumentor_id=self.info.id
        )
        return InstrumentationHandle(inner.close, info=self.info)


def test_compatibility_states() -> None:
    assert Compatibility.compatible().installable
    assert Compatibility.degraded("no streaming").installable
    for state in ("unavailable", "unsupported", "conflicting"):
        result = getattr(Compatibility, state)("why")
        assert result.state == state and not result.installable


def test_version_is_checked_before_install() -> None:
    manager = InstrumentationManager()
    original = Service.__dict__["handle"]
    unsupported = ServiceInstrumentor(supported=">=999")
    result = manager.check(unsupported)
    assert result.state == "unsupported" and result.target_version is not None
    with pytest.raises(InstrumentationError) as raised:
        manager.install(unsupported)
    assert raised.value.compatibility.state == "unsupported"
    missing = ServiceInstrumentor(target="autobench-no-such-distribution")
    assert manager.check(missing).state == "unavailable"
    with pytest.raises(InstrumentationError):
        manager.install(missing)
    assert not unsupported.installs and not missing.installs
    assert Service.__dict__["handle"] is original
    ok = manager.check(ServiceInstrumentor())
    assert ok.state == "compatible" and ok.target_version


def test_instrumentor_check_can_degrade_or_refuse() -> None:
    manager = InstrumentationManager()
    degraded = ServiceInstrumentor(check=Compatibility.degraded("no async"))
    with manager:
        manager.install(degraded)
        assert degraded.installs[0].diagnostics[0].state == "degraded"
    assert manager.diagnostics[0].reason == "no async"
    refused = ServiceInstrumentor(check=Compatibility.conflicting("hook taken"))
    with pytest.raises(InstrumentationError):
        manager.install(refused)


def test_duplicate_installs_are_reference_counted() -> None:
    original = Service.__dict__["handle"]
    instrumentor = ServiceInstrumentor()
    manager = InstrumentationManager()
    first = manager.install(instrumentor)
    second = manager.install(ServiceInstrumentor())
    assert len(instrumentor.installs) == 1 and manager.owners("example.service") == 2
    assert [info.id for info in manager.installed] == ["example.service"]
    runtime = instrumentor.installs[0]
    assert runtime.scope.name == "example.service" and runtime.scope.target_package == "pydantic"
    first.close()
    assert Service.__dict__["handle"] is not original
    assert Service().handle(2) == 4
    second.close()
    assert Service.__dict__["handle"] is original
    assert manager.owners("example.service") == 0


def test_another_version_of_an_installed_id_conflicts() -> None:
    with InstrumentationManager() as manager:
        manager.install(ServiceInstrumentor())
        with pytest.raises(InstrumentationError) as raised:
            manager.install(ServiceInstrumentor(version="2.0.0"))
        assert raised.value.compatibility.state == "conflicting"
    assert "handle" in Service.__dict__ and not manager.installed


def test_closing_the_manager_restores_and_reports_conflicts() -> None:
    original = Service.__dict__["handle"]
    manager = InstrumentationManager()
    handle = manager.install(ServiceInstrumentor())

    def foreign(self: Service, value: int) -> int:
        return -value

    Service.handle = foreign  # type: ignore[method-assign]
    try:
        handle.close()
        assert Service.__dict__["handle"] is foreign
        assert handle.diagnostics[0].state == "conflicting"
        assert manager.diagnostics[0].state == "conflicting"
    finally:
        Service.handle = original  # type: ignore[method-assign]


def test_spans_from_an_instrumentor_carry_its_scope() -> None:
    collector = TraceCollector()
    with InstrumentationManager() as manager:
        manager.install(ServiceInstrumentor())
        with bind_collector(collector):
            assert Service().handle(3) == 6
            with suppress_instrumentation("example.service"):
                Service().handle(1)
    (span,) = collector.materialize().spans
    assert span.scope == "example.service" and span.operation == "service.request"
    assert collector.materialize().scopes["example.service"].mechanism == "patch"


def test_runtime_helpers_respect_runs_and_suppression() -> None:
    runtime = InstrumentationRuntime(InstrumentorInfo(id="example.rt", version="1"))
    assert not runtime.enabled()
    with runtime.span("outside") as nothing:
        assert nothing is None
    collector = TraceCollector()
    with bind_collector(collector):
        assert runtime.enabled("x")
        with runtime.span("inside", kind="client") as active:
            assert active is not None
        detached = runtime.open_span("stream")
        assert detached is not None
        detached.end()
        with suppress_instrumentation("example.rt"):
            assert runtime.open_span("stream") is None
    assert [s.operation for s in collector.materialize().spans] == ["inside", "stream"]


def test_suppression_keys_nest_and_reset() -> None:
    assert not is_suppressed("a", "search.request")
    with suppress_instrumentation("search"):
        assert is_suppressed("a", "search.request")
        assert not is_suppressed("a", "searching")
        with suppress_instrumentation("b"):
            assert is_suppressed("b") and is_suppressed("a", "search")
        assert not is_suppressed("b")
        with pytest.raises(KeyError), suppress_instrumentation():
            assert is_suppressed("anything")
            raise KeyError("x")
        assert not is_suppressed("anything")
    assert not is_suppressed("a", "search.request")
    with pytest.raises(ValueError), suppress_instrumentation(""):
        pass


async def test_suppression_does_not_leak_between_tasks() -> None:
    seen: dict[str, bool] = {}
    gate = asyncio.Event()

    async def quiet() -> None:
        with suppress_instrumentation("x"):
            gate.set()
            await asyncio.sleep(0.001)
            seen["quiet"] = is_suppressed("x")

    async def loud() -> None:
        await gate.wait()
        seen["loud"] = is_suppressed("x")

    await asyncio.gather(quiet(), loud())
    assert seen == {"quiet": True, "loud": False}


def test_value_paths_are_walked_not_evaluated() -> None:
    class Box:
        def __init__(self) -> None:
            self.items = {"a": [10, 20]}
            self._secret = 1

        def size(self) -> int:
            return 2

    call = InstrumentCall("m", Box(), ("x", "y"), {"k": 1}, result={"usage": Box()})
    assert resolve_value_path(call, "args.1") == "y"
    assert resolve_value_path(call, "kwargs.k") == 1
    assert resolve_value_path(call, "self.items.a.-1") == 20
    assert resolve_value_path(call, "result.usage.size") == 2
    assert resolve_value_path(call, "result.usage.size()") == 2
    with pytest.raises(ValuePathError):
        resolve_value_path(call, "self._secret")
    with pytest.raises(ValuePathError):
        resolve_value_path(call, "args.5")
    for bad in ("__import__('os')", "result..x", "other.x", ""):
        with pytest.raises(ValueError):
            InstrumentMetricSpec("m", None, value_path=bad)
    with pytest.raises(ValueError):
        InstrumentMetricSpec("m", None)
    with pytest.raises(ValueError):
        InstrumentMetricSpec("m", None, value_path="result", value_factory=lambda c: 1)


def test_unsupported_descriptors_are_refused() -> None:
    class WithProperty:
        @property
        def value(self) -> int:
            return 1

    with pytest.raises(TypeError):
        instrument_method(WithProperty, "value")
    with pytest.raises(AttributeError):
        instrument_method(WithProperty, "missing")
    with pytest.raises(ValueError):
        instrument_method(Service, "handle", lifecycle="forever")  # type: ignore[arg-type]
    assert "handle" in Service.__dict__


def test_handle_is_a_context_manager(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[Any] = []
    with InstrumentationHandle(lambda: closed.append(1)) as handle:
        assert not handle.closed
    assert handle.closed and closed == [1]
