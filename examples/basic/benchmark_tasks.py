"""The benchmark task: route one ticket and record how the decision was made."""

from __future__ import annotations

from support_app.router import extract_features, route

from autobench import Case, DurationMetricSpec, ObservationRole, RunContext, Semantic, SpanKind


def route_ticket_case(ctx: RunContext, case: Case) -> dict[str, object]:
    rules = ctx.factor("rules")
    with ctx.span(
        "route_ticket",
        kind=SpanKind.WORKFLOW,
        input=case.input,
        attributes={"rules": rules},
        duration_metric=DurationMetricSpec(name="routing_latency", unit="ms"),
    ) as workflow:
        with ctx.span("extract_features", kind=SpanKind.PARSER) as parser:
            features = extract_features(case.input)
            parser.set_output(
                {"plan": features.plan, "matched": features.matched, "outage": features.outage}
            )
        with ctx.span("choose_queue", kind=SpanKind.TOOL, tags={"tool": "router"}) as tool:
            decision = route(features, rules=rules)
            tool.set_output(decision.as_dict())
        workflow.set_output({"queue": decision.queue, "priority": decision.priority})

    expected_queue = case.expected["queue"]
    ctx.check(
        "queue_matches",
        decision.queue == expected_queue,
        reason=f"expected {expected_queue}, routed to {decision.queue} by rule {decision.rule}",
    )
    ctx.metric(
        "confidence",
        decision.confidence,
        semantic_type=Semantic.QUALITY_SCORE,
        role=ObservationRole.DIAGNOSTIC,
    )
    ctx.artifact(
        "decision", {"rule": decision.rule, "features": features.matched, "plan": features.plan}
    )
    return decision.as_dict()
