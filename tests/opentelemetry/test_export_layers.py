"""OTLP export of a layered trace: the pydantic_ai example (agent, model request, OpenAI
client and HTTP spans measure the same calls; a tool; a failed output validation)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from autobench.abp import Trace
from autobench.cli import cli
from autobench.opentelemetry._export_otlp import otlp_request
from autobench.records import replay_experiment
from autobench.report import build_report

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pydantic_ai" / "autobench.yaml"
USAGE = {
    "llm.tokens.input": "gen_ai.usage.input_tokens",
    "llm.tokens.output": "gen_ai.usage.output_tokens",
    "llm.tokens.cache_read": "gen_ai.usage.cache_read.input_tokens",
}


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("otlp-layers") / "pydantic_ai"
    ran = CliRunner().invoke(cli, ["run", str(EXAMPLE), "--record", str(target), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    return target


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind is not None else None


def _attributes(span: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in span.attributes}


def _spans(record: Path, tmp_path: Path) -> dict[bytes, list[Span]]:
    target = tmp_path / "traces.json"
    exported = CliRunner().invoke(
        cli, ["export", str(record), "--format", "otlp-json", "--path", str(target)]
    )
    assert exported.exit_code == 0, exported.output

    def ids(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: base64.b64encode(bytes.fromhex(v)).decode()
                if k in ("traceId", "spanId", "parentSpanId")
                else ids(v)
                for k, v in value.items()
            }
        return [ids(v) for v in value] if isinstance(value, list) else value

    request = ParseDict(ids(json.loads(target.read_text())), ExportTraceServiceRequest())
    by_trace: dict[bytes, list[Span]] = {}
    for scope in request.resource_spans[0].scope_spans:
        for span in scope.spans:
            by_trace.setdefault(span.trace_id, []).append(span)
    return by_trace


def test_genai_token_sums_over_a_trace_equal_the_report(record: Path, tmp_path: Path) -> None:
    """Three layers measure each model request; a back end summing gen_ai.usage.* over a
    trace gets the report's run total, not three times it."""
    result = replay_experiment(record)
    rows = {row.run_id: row for row in build_report(result).run_rows}
    by_trace = _spans(record, tmp_path)
    for run in result.runs:
        assert isinstance(run.trace, Trace)
        spans = by_trace[bytes.fromhex(run.trace.id)]
        with_usage = [s for s in spans if "gen_ai.usage.input_tokens" in _attributes(s)]
        assert with_usage and all(_attributes(s)["autobench.layer"] == "client" for s in with_usage)
        for semantic, key in USAGE.items():
            total = sum(_attributes(s).get(key, 0) for s in spans)
            assert total == rows[run.run_id].metrics[semantic] > 0
        # the framework-layer spans keep their raw usage under autobench.usage.*
        framework = [s for s in spans if s.name == "pydantic_ai.model"]
        assert framework and all(
            "autobench.usage.input_tokens" in _attributes(s) for s in framework
        )


def test_tools_agents_and_errors_follow_the_genai_conventions(record: Path, tmp_path: Path) -> None:
    result = replay_experiment(record)
    by_trace = _spans(record, tmp_path)
    retry = next(run for run in result.runs if run.run_id == "run_0004_kettle_retry_mini")
    assert isinstance(retry.trace, Trace)
    spans = by_trace[bytes.fromhex(retry.trace.id)]
    (tool,) = [s for s in spans if _attributes(s).get("autobench.span.kind") == "tool"]
    facts = _attributes(tool)
    assert facts["gen_ai.operation.name"] == "execute_tool"
    assert facts["gen_ai.tool.name"] == tool.name == "search_catalog"
    assert json.loads(facts["gen_ai.tool.call.arguments"]) == {"query": "kettle"}
    assert facts["gen_ai.tool.call.id"] == facts["tool.call_id"]
    (agent,) = [s for s in spans if _attributes(s).get("autobench.span.kind") == "agent"]
    assert _attributes(agent)["gen_ai.operation.name"] == "invoke_agent"
    assert _attributes(agent)["gen_ai.agent.name"] == "shop"
    failed = [s for s in spans if s.status.code == Status.STATUS_CODE_ERROR]
    assert [s.name for s in failed] == ["pydantic_ai.output.validate"]
    (exception,) = [e for e in failed[0].events if e.name == "exception"]
    assert {pair.key for pair in exception.attributes} == {"exception.type", "exception.message"}
    assert failed[0].status.message.startswith(_attributes(failed[0])["error.type"])


def test_a_record_read_without_traces_gives_one_span_per_run(record: Path) -> None:
    result = replay_experiment(record, evidence_only=True)
    request = otlp_request(result)
    spans = [s for scope in request.resource_spans[0].scope_spans for s in scope.spans]
    assert [s.name for s in spans] == ["autobench.run"] * len(result.runs)
    assert len({s.trace_id for s in spans}) == len(result.runs)
    assert [_attributes(s)["autobench.run.id"] for s in spans] == [r.run_id for r in result.runs]
    assert all(s.end_time_unix_nano > s.start_time_unix_nano > 0 for s in spans)
    assert otlp_request(result) == request  # deterministic ids and times
