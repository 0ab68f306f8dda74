"""The export direction of autobench-opentelemetry, end to end on a real record.

The llm_native example (OpenAI client and HTTPX spans, offline) is recorded with the CLI,
exported as OTLP JSON and over OTLP/HTTP to a receiver in this process, and read back
with the official OTLP protobuf types.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from google.protobuf.json_format import MessageToDict, ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from autobench.abp import Trace
from autobench.cli import cli
from autobench.opentelemetry._export_ids import unix_nanos
from autobench.opentelemetry._export_send import send_spans
from autobench.opentelemetry._export_spans import experiment_spans
from autobench.records import ExperimentResult, replay_experiment

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm_native" / "autobench.yaml"


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("otlp") / "llm_native"
    ran = CliRunner().invoke(cli, ["run", str(EXAMPLE), "--record", str(target), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    return target


@pytest.fixture(scope="module")
def result(record: Path) -> ExperimentResult:
    return replay_experiment(record)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind is not None else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


def _from_otlp_json(text: str) -> ExportTraceServiceRequest:
    """Parse OTLP JSON with the protobuf JSON parser: OTLP JSON writes ids in hex where
    the proto3 JSON mapping has base64, the one difference between the two."""

    def ids_to_base64(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: base64.b64encode(bytes.fromhex(item)).decode()
                if key in ("traceId", "spanId", "parentSpanId")
                else ids_to_base64(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [ids_to_base64(item) for item in value]
        return value

    assert text.endswith("\n") and text.count("\n") == 1  # one request, one line
    return ParseDict(ids_to_base64(json.loads(text)), ExportTraceServiceRequest())


def _check(request: ExportTraceServiceRequest, result: ExperimentResult) -> None:
    """What both exports must hold for the llm_native record."""
    assert len(request.resource_spans) == 1  # one resource: the experiment
    resource = request.resource_spans[0]
    assert _attributes(resource.resource.attributes) == {
        "service.name": "autobench",
        "service.instance.id": result.experiment_id,
        "service.version": result.experiment.experiment.autobench,
        "autobench.experiment.id": result.experiment_id,
        "autobench.benchmark.id": "assistant",
        "autobench.experiment.started_at": result.experiment.experiment.started_at.isoformat(),
    }
    scopes = {scope.scope.name: scope for scope in resource.scope_spans}
    assert set(scopes) == {"autobench.manual", "openai", "httpx"}
    assert _attributes(scopes["openai"].scope.attributes)["autobench.scope.layer"] == "client"
    spans = [span for scope in resource.scope_spans for span in scope.spans]
    by_trace: dict[bytes, list[Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    assert len(by_trace) == len(result.runs) == 6  # a trace per run

    for run in result.runs:
        trace = run.trace
        assert isinstance(trace, Trace)
        exported = {span.span_id.hex(): span for span in by_trace[bytes.fromhex(trace.id)]}
        assert set(exported) == {span.id for span in trace.spans}  # ids kept
        root = exported[trace.root_spans[0].id]
        anchor = root.start_time_unix_nano
        for record_span in trace.spans:
            span = exported[record_span.id]
            assert span.name == record_span.operation
            assert span.parent_span_id.hex() == (record_span.parent or "")
            assert span.status.code == Status.STATUS_CODE_OK
            # Unix nanos: the wall clock of started_at; offsets and durations keep their order
            assert record_span.started_at is not None
            assert abs(span.start_time_unix_nano - unix_nanos(record_span.started_at)) < 1_000_000
            assert span.end_time_unix_nano - span.start_time_unix_nano == round(
                (record_span.duration or 0) * 1e9
            )
            assert span.start_time_unix_nano - anchor == round(record_span.offset * 1e9) - round(
                trace.root_spans[0].offset * 1e9
            )
            if record_span.parent is not None:
                parent = exported[record_span.parent]
                assert parent.start_time_unix_nano <= span.start_time_unix_nano
                assert span.end_time_unix_nano <= parent.end_time_unix_nano + 1_000
        facts = _attributes(root.attributes)
        assert facts["autobench.run.id"] == run.run_id
        assert facts["autobench.case.id"] == run.case_id
        assert facts["autobench.variant.id"] == run.variant_id
        assert facts["autobench.variant.factor.model"] == run.variant.factors[0].value
        assert facts["autobench.run.status"] == run.status.value
        assert facts["autobench.score.names_policy"] is run.score("names_policy").value
        assert facts["autobench.metric.money.cost"] == pytest.approx(
            next(o.value for o in run.observations if o.semantic_type == "money.cost")
        )

        (llm,) = [
            s
            for s in exported.values()
            if s.kind == Span.SpanKind.SPAN_KIND_CLIENT and s.name.startswith("openai")
        ]
        genai = _attributes(llm.attributes)
        values = {o.semantic_type: o.value for o in run.observations}
        assert genai["gen_ai.operation.name"] == "chat"
        assert genai["gen_ai.provider.name"] == "openai"
        assert genai["gen_ai.request.model"] == run.variant.factors[0].value
        assert genai["gen_ai.response.model"] == values["llm.model.response"]
        assert genai["gen_ai.response.model"].startswith(genai["gen_ai.request.model"])
        assert genai["gen_ai.usage.input_tokens"] == values["llm.tokens.input"] > 0
        assert genai["gen_ai.usage.output_tokens"] == values["llm.tokens.output"] > 0
        assert genai["gen_ai.usage.cache_read.input_tokens"] == values["llm.tokens.cache_read"]
        # the tokens sit on the one span that counts them: summing over the trace is the total
        assert (
            sum(
                _attributes(s.attributes).get("gen_ai.usage.input_tokens", 0)
                for s in exported.values()
            )
            == values["llm.tokens.input"]
        )
        observed = [e for e in llm.events if e.name == "autobench.observation"]
        assert {_attributes(e.attributes)["autobench.observation.semantic"] for e in observed} >= {
            "llm.tokens.input",
            "llm.model.response",
        }


def test_otlp_json_file_parses_back_into_the_otlp_types(
    record: Path, result: ExperimentResult, tmp_path: Path
) -> None:
    target = tmp_path / "traces.json"
    exported = CliRunner().invoke(
        cli, ["export", str(record), "--format", "otlp-json", "--path", str(target)]
    )
    assert exported.exit_code == 0, exported.output
    assert "one line" in exported.output  # the preview does not print the JSON
    _check(_from_otlp_json(target.read_text()), result)


@dataclass
class _Receiver:
    """An OTLP/HTTP receiver on 127.0.0.1: keeps each request, answers ``status``."""

    status: int = 200
    requests: list[tuple[str, str, bytes]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def receiver() -> Iterator[_Receiver]:
    state = _Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.requests.append((self.path, self.headers["Content-Type"], body))
            self.send_response(state.status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_otlp_http_export_reaches_a_receiver(
    record: Path, result: ExperimentResult, receiver: _Receiver, tmp_path: Path
) -> None:
    sent = CliRunner().invoke(
        cli, ["export", str(record), "--format", "otlp", "--endpoint", receiver.url]
    )
    assert sent.exit_code == 0, sent.output
    assert f"to {receiver.url}/v1/traces" in sent.output and "18 spans of 6 runs" in sent.output
    ((path, content_type, body),) = receiver.requests
    assert (path, content_type) == ("/v1/traces", "application/x-protobuf")
    request = ExportTraceServiceRequest.FromString(body)
    _check(request, result)
    # the file and the wire carry the same request
    target = tmp_path / "traces.json"
    CliRunner().invoke(cli, ["export", str(record), "--format", "otlp-json", "--path", str(target)])
    assert MessageToDict(_from_otlp_json(target.read_text())) == MessageToDict(request)


def test_a_refused_export_exits_1_naming_the_endpoint_and_the_reason(
    record: Path, receiver: _Receiver
) -> None:
    receiver.status = 400
    url = f"{receiver.url}/custom/traces"
    sent = CliRunner(env={"COLUMNS": "300"}).invoke(
        cli, ["export", str(record), "--format", "otlp", "--endpoint", url]
    )
    assert sent.exit_code == 1
    assert url in sent.output and "400" in sent.output and "0 of 18 spans" in sent.output
    assert receiver.requests[0][0] == "/custom/traces"  # a URL with a path is used as it is


def test_a_large_export_goes_out_in_batches(result: ExperimentResult, receiver: _Receiver) -> None:
    spans = experiment_spans(result)
    assert send_spans(spans, receiver.url, batch=5) == f"{receiver.url}/v1/traces"
    assert len(receiver.requests) == 4  # 18 spans, 5 a request
    received = [
        span
        for _path, _type, body in receiver.requests
        for resource in ExportTraceServiceRequest.FromString(body).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    # every span once (each request groups its spans by scope)
    assert sorted(span.span_id for span in received) == sorted(
        span.context.span_id.to_bytes(8, "big") for span in spans
    )


def test_an_unreachable_endpoint_exits_1_naming_it(record: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1/traces"
    sent = CliRunner(env={"COLUMNS": "300", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1"}).invoke(
        cli, ["export", str(record), "--format", "otlp", "--endpoint", url]
    )
    assert sent.exit_code == 1
    text = " ".join(sent.output.replace("│", " ").split())
    assert url in text and "0 of 18 spans" in text, text
    # The exporter names the refused connection, or, when its 1 s ran out between retries
    # (a loaded machine), the timeout.
    assert "connection" in text.lower() or "timeout" in text.lower(), text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--format", "otlp"], "give --endpoint URL"),
        (["--format", "otlp", "--endpoint", "http://h", "--path", "x.bin"], "leave out --path"),
        (["--format", "otlp-json", "--endpoint", "http://h"], "give --path FILE"),
        (["--format", "csv", "--endpoint", "http://h"], "give --path FILE"),
        (["--format", "otlp-json"], "Missing option '--path'"),
        (
            ["--format", "otlp-json", "--path", "x.json", "--endpoint", "http://h"],
            "leave out --endpoint",
        ),
        (["--format", "otlp", "--endpoint", "localhost:4318"], "is not a URL"),
        (["--format", "otlp", "--endpoint", "ftp://h/x"], "is not a URL"),
    ],
)
def test_endpoint_and_path_usage_errors(record: Path, arguments: list[str], message: str) -> None:
    outcome = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["export", str(record), *arguments])
    assert outcome.exit_code == 2
    assert message in outcome.output


def test_export_is_replay_only(record: Path, tmp_path: Path) -> None:
    """A fresh process exports without importing the example's task module."""
    code = (
        "import sys\n"
        "from autobench.cli import cli\n"
        f"cli(['export', {str(record)!r}, '--format', 'otlp-json', '--path', {str(tmp_path / 'o.json')!r}],"
        " standalone_mode=False)\n"
        "print('assistant_benchmark' in sys.modules, 'assistant_app' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.strip().splitlines()[-1] == "False False"
    assert (tmp_path / "o.json").stat().st_size > 0


def test_listing_the_formats_imports_no_opentelemetry() -> None:
    code = (
        "import sys\n"
        "from autobench.opentelemetry import _hooks_export\n"
        "names = [e.name for e in _hooks_export.autobench_exporters()]\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'google.protobuf')))\n"
        "print(names, heavy)\n"
    )
    # Pydantic loads the plugins other packages register (logfire's imports OpenTelemetry):
    # switched off, what is left is what Autobench imports.
    env = {**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.strip() == "['otlp-json', 'otlp'] []"
