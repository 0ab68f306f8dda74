"""Run totals of additive evidence: the accounting rules on real observations and traces."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from _factories import trivial_run
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.abp import InstrumentationScope, SpanRecord, Trace
from autobench.records import (
    AGGREGATE_MEASUREMENT_MISMATCH,
    AMBIGUOUS_DIRECT_MEASUREMENT,
    DEFAULT_SEMANTIC_REGISTRY,
    Observation,
    ObservationKind,
    ObservationQuery,
    ObservationSource,
    SemanticDefinition,
    SpanIndex,
    account_run,
    accounting_observations,
    is_summary,
    project_observations,
)

T0 = datetime(2026, 5, 7, 12, tzinfo=UTC)
DERIVED = ObservationSource.DERIVED
TOKENS = "llm.tokens.input"
REGISTRY = DEFAULT_SEMANTIC_REGISTRY


def span(span_id: str, parent: str | None = None, **fields: Any) -> SpanRecord:
    fields.setdefault("operation", span_id)
    return SpanRecord(id=span_id, parent=parent, started_at=T0, duration=1.0, **fields)


def tokens(
    obs_id: str, value: Any, span_id: str | None, semantic: str = TOKENS, **fields: Any
) -> Observation:
    fields.setdefault("unit", "tokens")
    return Observation(
        id=obs_id,
        name="input_tokens",
        value=value,
        semantic_type=semantic,
        span_id=span_id,
        **fields,
    )


def account(
    observations: list[Observation], trace: Trace | None = None
) -> tuple[Observation | None, list[Observation]]:
    """The summary and the diagnostics accounting adds for ``observations``."""
    index = SpanIndex.of(trace) if trace is not None else SpanIndex()
    added = accounting_observations(observations, REGISTRY, index)
    summaries = [o for o in added if is_summary(o)]
    assert len(summaries) <= 1
    return (summaries[0] if summaries else None), [o for o in added if not is_summary(o)]


def codes(diagnostics: list[Observation]) -> list[str]:
    return [o.name for o in diagnostics]


AGENT_TREE = Trace(
    id="t",
    spans=(
        span("root"),
        span("agent", "root", kind="agent"),
        span("call1", "agent", kind="llm"),
        span("call2", "agent", kind="llm"),
    ),
)


def test_several_calls_add_up_and_the_summary_says_how() -> None:
    summary, diagnostics = account(
        [tokens("o1", 50, "call1"), tokens("o2", 80, "call2")], AGENT_TREE
    )
    assert summary is not None and diagnostics == []
    assert (summary.id, summary.value, summary.unit, summary.semantic_type) == (
        "accounting.llm.tokens.input",
        130,
        "tokens",
        TOKENS,
    )
    assert summary.source is ObservationSource.TASK_OBSERVATION
    assert summary.tags == {
        "accounting": "summary",
        "basis": "direct",
        "layer": "application",
        "operations": "2",
    }


def test_a_rollup_above_its_calls_is_never_added_and_is_checked() -> None:
    calls = [tokens("o1", 50, "call1"), tokens("o2", 80, "call2")]
    summary, diagnostics = account([*calls, tokens("agg", 130, "agent")], AGENT_TREE)
    assert summary is not None and summary.value == 130 and diagnostics == []
    # a run-level roll-up that disagrees with the calls beneath it is a diagnostic, not a total
    summary, diagnostics = account([*calls, tokens("agg", 999, "root")], AGENT_TREE)
    assert summary is not None and summary.value == 130
    assert codes(diagnostics) == [AGGREGATE_MEASUREMENT_MISMATCH]
    assert diagnostics[0].span_id == "root" and diagnostics[0].value["direct"] == 130
    assert diagnostics[0].kind is ObservationKind.DIAGNOSTIC
    assert diagnostics[0].tags == {"metric": TOKENS}


def test_an_explicit_aggregate_is_kept_out_even_beside_its_calls() -> None:
    flat = Trace(id="t", spans=(span("root"), span("a", "root"), span("b", "root")))
    summary, _ = account(
        [
            tokens("o1", 50, "a"),
            tokens("o2", 80, "b"),
            tokens("agg", 130, "root", tags={"accounting": "aggregate"}),
        ],
        flat,
    )
    assert summary is not None and summary.value == 130
    # with nothing but roll-ups, the outermost one is the total
    summary, _ = account(
        [
            tokens("outer", 130, "agent", tags={"accounting": "aggregate"}),
            tokens("inner", 50, "call1", tags={"accounting": "aggregate"}),
        ],
        AGENT_TREE,
    )
    assert summary is not None and (summary.value, summary.tags["basis"]) == (130, "aggregate")


def test_one_layer_is_used_client_first() -> None:
    scopes = {
        "fw": InstrumentationScope(name="fw", version="1", layer="framework"),
        "sdk": InstrumentationScope(name="sdk", version="1", layer="client"),
        "http": InstrumentationScope(name="http", version="1", layer="transport"),
    }
    layered = Trace(
        id="t",
        spans=(
            span("req", scope="fw", kind="llm"),
            span("chat", "req", scope="sdk", kind="llm"),
            span("http", "chat", scope="http"),
        ),
        scopes=scopes,
    )
    observations = [
        tokens("framework", 51, "req"),
        tokens("client", 50, "chat"),
        tokens("transport", 7, "http"),
    ]
    summary, diagnostics = account(observations, layered)
    assert summary is not None and (summary.value, summary.tags["layer"]) == (50, "client")
    # the framework's 51 for the call its client measured as 50 is a disagreement
    assert codes(diagnostics) == [AGGREGATE_MEASUREMENT_MISMATCH]
    # a call only one layer measured counts, whatever the layer: it is another call
    other = layered.model_copy(
        update={"spans": (*layered.spans, span("own", scope="fw", kind="llm"))}
    )
    summary, _ = account([*observations, tokens("own", 7, "own")], other)
    assert summary is not None and summary.value == 57
    assert summary.tags["layer"] == "client+framework"
    # an observation's layer tag (any case) says its layer; one operation id, one call
    summary, _ = account(
        [
            tokens("a", 50, None, tags={"layer": "Framework", "operation_id": "x"}),
            tokens("b", 9, None, tags={"operation_id": "x"}),
        ],
        None,
    )
    assert summary is not None and (summary.value, summary.tags["layer"]) == (50, "framework")


def test_shared_operation_ids_count_once_and_conflicts_stay_out() -> None:
    flat = Trace(id="t", spans=tuple(span(name) for name in "abcdef"))
    summary, diagnostics = account(
        [
            tokens("a", 5, "a", tags={"operation_id": "op1"}),
            tokens("b", 5, "b", tags={"operation_id": "op1"}),
            tokens("c", 7, "c", tags={"operation_id": "op2"}),
            tokens("d", 8, "d", tags={"operation_id": "op2"}),
            tokens("e", 3, "e", tags={"operation_id": "op3", "authority": "true"}),
            tokens("f", 4, "f", tags={"operation_id": "op3"}),
        ],
        flat,
    )
    assert summary is not None and summary.value == 5 + 3
    assert summary.tags["operations"] == "2"
    assert codes(diagnostics) == [AMBIGUOUS_DIRECT_MEASUREMENT]
    assert diagnostics[0].value["operation"] == "op2" and diagnostics[0].value["values"] == [7, 8]


def test_two_values_on_one_span_without_an_operation_id_are_ambiguous_even_when_equal() -> None:
    summary, diagnostics = account(
        [tokens("o1", 5, "call1"), tokens("o2", 5, "call1"), tokens("o3", 80, "call2")],
        AGENT_TREE,
    )
    assert summary is not None and summary.value == 80
    assert codes(diagnostics) == [AMBIGUOUS_DIRECT_MEASUREMENT]
    assert "operation id" in str(diagnostics[0].reason)
    # nothing countable at all: the total is no value, never 0
    summary, _ = account([tokens("o1", 5, "call1"), tokens("o2", 6, "call1")], AGENT_TREE)
    assert summary is not None and summary.value is None


def test_values_in_other_units_convert_and_the_rest_are_skipped() -> None:
    cost = "money.cost"
    summary, diagnostics = account(
        [
            tokens("a", 0.25, None, semantic=cost, unit="usd"),
            tokens("b", 0.5, None, semantic=cost, unit="USD"),
            tokens("c", 1.0, None, semantic=cost, unit="eur"),
            tokens("d", "a lot", None, semantic=cost, unit="usd"),
            tokens("e", True, None, semantic=cost, unit="usd"),
        ]
    )
    assert summary is not None and (summary.value, summary.unit) == (0.75, "usd")
    assert codes(diagnostics) == ["accounting_value_skipped"] * 3


def test_only_additive_types_of_accounted_sources_are_summed() -> None:
    latency = [
        Observation(id="l1", name="lat", value=1.0, semantic_type="time.latency", span_id="call1"),
        Observation(id="l2", name="lat", value=2.0, semantic_type="time.latency", span_id="call2"),
    ]
    assert accounting_observations(latency, REGISTRY) == ()
    assert project_observations(latency, REGISTRY)["time.latency"].value == 1.0
    # scores are judgements, not spend
    scores = [tokens(f"s{i}", i, None, source=ObservationSource.SCORE) for i in (1, 2)]
    assert accounting_observations(scores, REGISTRY) == ()
    # a single observation is its own total: nothing to add
    assert accounting_observations([tokens("o1", 5, "call1")], REGISTRY) == ()
    # what the task recorded and what it imported are one pool of direct evidence
    mixed = [
        tokens("t1", 1, "call1"),
        tokens("t2", 2, "call2"),
        tokens("i1", 10, "ext1", source=ObservationSource.IMPORTED),
        tokens("i2", 20, "ext2", source=ObservationSource.IMPORTED),
    ]
    added = accounting_observations(mixed, REGISTRY, SpanIndex.of(AGENT_TREE))
    assert [(o.id, o.value, o.source) for o in added] == [
        ("accounting.llm.tokens.input", 33, ObservationSource.TASK_OBSERVATION)
    ]
    # a derived value outranks it, and the report is told that the direct evidence differs
    cost = [
        tokens("tool", 0.5, "call1", semantic="money.cost", unit="usd"),
        tokens("llm", 0.2, None, semantic="money.cost", unit="usd", source=DERIVED),
    ]
    projected = project_observations(cost, REGISTRY)["money.cost"]
    assert projected.value == 0.2
    assert projected.note == (
        "money.cost: the derived total 0.2 is used; the direct evidence totals 0.5"
    )


def test_additivity_is_declared_inherited_and_false_by_default() -> None:
    registry = REGISTRY.merged(
        types={
            "business.refunds": SemanticDefinition(parent="money.cost"),
            "business.refund.rate": SemanticDefinition(parent="money.cost", additive=False),
            "business.tickets": SemanticDefinition(unit="tickets", additive=True),
            "business.mood": SemanticDefinition(),
        }
    )
    assert [registry.is_additive(t) for t in (TOKENS, "llm.tokens.cache_read", "cost")] == [
        True,
        True,
        True,  # an alias of money.cost
    ]
    assert registry.is_additive("business.refunds")
    assert not registry.is_additive("business.refund.rate")
    assert registry.is_additive("business.tickets")
    assert not registry.is_additive("business.mood")
    assert not registry.is_additive("never.declared")
    for not_additive in ("time.latency", "quality.score", "llm.model.name", "performance.speedup"):
        assert not REGISTRY.is_additive(not_additive), not_additive


def test_query_first_exact_gives_the_total_and_raw_lookups_the_calls() -> None:
    raw = [tokens("o1", 50, "call1"), tokens("o2", 80, "call2"), tokens("agg", 130, "root")]
    stored = raw + list(accounting_observations(raw, REGISTRY, SpanIndex.of(AGENT_TREE)))
    query = ObservationQuery(observations=stored)
    total = query.first_exact(TOKENS)
    assert total is not None and total.value == 130 and is_summary(total)
    assert query.values(TOKENS) == [130]
    assert sorted(query.values(TOKENS, projected=False)) == [50, 80, 130]
    # without a stored summary the query totals on the spot, with the trace when it has one
    assert ObservationQuery(observations=raw, trace=AGENT_TREE).values(TOKENS) == [130]


# The property: whatever the span tree, the run total is the sum of the direct values, however
# many roll-ups sit above them and whatever transport-layer evidence sits beneath them.


@st.composite
def usage_trees(draw: st.DrawFn) -> tuple[Trace, list[Observation], int]:
    size = draw(st.integers(min_value=1, max_value=14))
    parents: list[int | None] = [None]
    for node in range(1, size):
        parents.append(draw(st.one_of(st.none(), st.integers(min_value=0, max_value=node - 1))))
    chosen = draw(st.sets(st.integers(min_value=0, max_value=size - 1), min_size=1))

    def ancestors(node: int) -> list[int]:
        found: list[int] = []
        parent = parents[node]
        while parent is not None:
            found.append(parent)
            parent = parents[parent]
        return found

    # the direct nodes are the chosen ones with no chosen node beneath them
    below = {ancestor for node in chosen for ancestor in ancestors(node)}
    direct = sorted(chosen - below)
    spans = [span(f"s{node}", None if p is None else f"s{p}") for node, p in enumerate(parents)]
    observations: list[Observation] = []
    expected = 0
    for node in direct:
        value = draw(st.integers(min_value=0, max_value=10_000))
        expected += value
        observations.append(tokens(f"d{node}", value, f"s{node}"))
        if draw(st.booleans()):  # the HTTP layer beneath the call reports anything it likes
            spans.append(span(f"h{node}", f"s{node}", scope="http"))
            junk = draw(st.integers(min_value=0, max_value=10_000))
            observations.append(tokens(f"h{node}", junk, f"h{node}"))
    for node in sorted(chosen & below):  # implicit roll-ups above direct values
        observations.append(tokens(f"r{node}", draw(st.integers(0, 10_000)), f"s{node}"))
    for node in sorted({a for n in direct for a in ancestors(n)} - chosen):
        if draw(st.booleans()):  # explicit roll-ups, right or wrong
            value = draw(st.integers(0, 10_000))
            observations.append(
                tokens(f"x{node}", value, f"s{node}", tags={"accounting": "aggregate"})
            )
    order = draw(st.permutations(observations))
    scopes = {"http": InstrumentationScope(name="http", version="1", layer="transport")}
    return Trace(id="t", spans=tuple(spans), scopes=scopes), list(order), expected


@settings(max_examples=300, deadline=None)
@given(usage_trees())
def test_the_total_is_the_sum_of_the_direct_values(
    case: tuple[Trace, list[Observation], int],
) -> None:
    trace, observations, expected = case
    index = SpanIndex.of(trace)
    projected = project_observations(observations, REGISTRY, index)[TOKENS]
    assert projected.value == expected
    added = accounting_observations(observations, REGISTRY, index)
    if len(observations) > 1:
        summary = next(o for o in added if is_summary(o))
        assert summary.value == expected
        assert not any(o.name == AMBIGUOUS_DIRECT_MEASUREMENT for o in added)
        # the stored summary is what projection reads back, without the trace
        assert project_observations([*observations, *added], REGISTRY)[TOKENS].value == expected


def test_accounting_a_record_twice_adds_nothing_twice() -> None:
    run = trivial_run()
    observations = (tokens("o1", 5, "call1"), tokens("o2", 6, "call1"))
    once = account_run(run.model_copy(update={"observations": observations}), REGISTRY)
    assert [o.name for o in once.observations[2:]] == ["input_tokens", AMBIGUOUS_DIRECT_MEASUREMENT]
    assert account_run(once, REGISTRY).observations == once.observations
    # a record whose stored diagnostic lost its summary gets the summary, not a second diagnostic
    edited = once.model_copy(update={"observations": (*observations, once.observations[3])})
    ids = [o.id for o in account_run(edited, REGISTRY).observations]
    assert len(ids) == len(set(ids)) == 4


GUARDED_TREE = Trace(
    id="t",
    spans=(
        span("root"),
        span("agent", "root", kind="agent"),
        span("call", "agent", kind="llm"),
        span("guard", "agent", kind="guardrail"),
        span("inner", "guard", kind="agent"),
        span("inner_call", "inner", kind="llm"),
    ),
)


def test_a_nested_run_tagged_on_its_observation_may_be_left_out_of_the_roll_up() -> None:
    calls = [tokens("o1", 50, "call"), tokens("o2", 8, "inner_call")]
    nested = tokens("inner_agg", 8, "inner", tags={"accounting": "aggregate"})
    for outer, expected in ((50, []), (58, []), (55, [AGGREGATE_MEASUREMENT_MISMATCH])):
        rollup = tokens("agg", outer, "agent", tags={"accounting": "aggregate"})
        tagged = nested.model_copy(
            update={"tags": {**nested.tags, "accounting.nested_run": "true"}}
        )
        summary, diagnostics = account([*calls, tagged, rollup], GUARDED_TREE)
        assert summary is not None and summary.value == 58
        assert codes(diagnostics) == expected, outer
    # untagged, the nested run's usage is taken to be in the roll-up around it
    rollup = tokens("agg", 50, "agent", tags={"accounting": "aggregate"})
    _, diagnostics = account([*calls, nested, rollup], GUARDED_TREE)
    assert codes(diagnostics) == [AGGREGATE_MEASUREMENT_MISMATCH]
