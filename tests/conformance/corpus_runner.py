"""Runs one corpus application through Autobench under several instrumentor combinations.

``python corpus_runner.py REQUEST.json RESULT.json``: the request names the task
(``module:function``), the cases, the base directory (holding ``pricing.yaml``) and the
combinations (lists of integration ids); the result holds, per combination and case, what the
run reported (totals, cost, diagnostics, spans) and the ledger the task returned. Each
application runs in an interpreter of its own because several install process-wide state
(``logfire.configure()``, Pydantic AI's global instrumentation, OpenTelemetry's global tracer
provider), which must not leak into other tests or other applications.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SEMANTICS = {
    "input": "llm.tokens.input",
    "output": "llm.tokens.output",
    "cache_read": "llm.tokens.cache_read",
    "reasoning": "llm.tokens.reasoning",
    "requests": "llm.request.count",
    "cost": "money.cost",
}


def _settings(names: list[str]) -> list[Any]:
    import autobench

    classes = {
        "pydantic_ai": autobench.PydanticAIInstrumentation,
        "openai": autobench.OpenAIInstrumentation,
        "openai_agents": autobench.OpenAIAgentsInstrumentation,
        "httpx": autobench.HTTPXInstrumentation,
        "opentelemetry": autobench.OpenTelemetryInstrumentation,
    }
    return [classes[name]() for name in names]


def _span(span: Any) -> dict[str, Any]:
    keep = (
        "llm.provider",
        "server.address",
        "llm.model.requested",
        "llm.model.response",
        "accounting.nested_run",
    )
    return {
        "scope": span.scope,
        "kind": span.kind,
        "operation": span.operation,
        "usage": dict(span.usage),
        "attributes": {key: span.attributes[key] for key in keep if key in span.attributes},
        "end_reason": span.attributes.get("end_reason"),
    }


def _factors(run: Any) -> dict[str, list[str]]:
    """The run's factor observations by semantic type (model identity, provider, host)."""
    from autobench.records import ObservationKind, run_observations

    found: dict[str, set[str]] = {}
    for o in run_observations(run):
        if o.kind is ObservationKind.FACTOR and o.semantic_type is not None:
            found.setdefault(o.semantic_type, set()).add(str(o.value))
    return {key: sorted(values) for key, values in found.items()}


def _report(run: Any) -> dict[str, Any]:
    from autobench.records import ObservationQuery, run_observations

    query = ObservationQuery(observations=run_observations(run), trace=run.trace)
    operations = {span.id: span.operation for span in run.trace.spans}
    diagnostics = sorted(
        {o.name for o in run.observations if o.name.startswith(("instrumentation.", "aggregate_"))}
        | {o.name for o in run.observations if o.name.startswith(("ambiguous_", "token_cost_"))}
    )
    return {
        "status": run.status.value,
        "output": run.output,
        "totals": {key: query.values(semantic) for key, semantic in SEMANTICS.items()},
        "factors": _factors(run),
        "diagnostics": diagnostics,
        "span_diagnostics": sorted(
            [operations[d.span], d.code] for d in run.trace.diagnostics if d.span is not None
        ),
        "spans": [_span(span) for span in run.spans],
    }


def main(request_path: str, result_path: str) -> None:
    request = json.loads(Path(request_path).read_text())
    sys.path[:0] = request["paths"]
    from agents import set_trace_processors

    from autobench import Benchmark

    set_trace_processors([])  # the Agents SDK's default exporter would upload traces
    results: dict[str, Any] = {}
    for names in request["combinations"]:
        builder = (
            Benchmark(request["name"])
            .dataset(request["cases"])
            .variants([{"id": "v1"}])
            .task(request["task"])
            .derive([{"kind": "token_cost", "pricing": "pricing.yaml"}])
            .base_dir(request["base_dir"])
            .instrument(*_settings(names))
        )
        runs = builder.run().runs
        results["+".join(names)] = {run.case_id: _report(run) for run in runs}
    Path(result_path).write_text(json.dumps(results, default=str))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
