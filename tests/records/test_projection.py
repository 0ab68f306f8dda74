from __future__ import annotations

from autobench.records import (
    Case,
    Observation,
    ObservationQuery,
    ObservationSource,
    RunInfo,
    RunOutcome,
    RunRecord,
    ScoreRecord,
    Variant,
    run_observations,
)


def _run(observations: tuple[Observation, ...], scores: tuple[ScoreRecord, ...]) -> RunRecord:
    return RunRecord(
        run=RunInfo(
            id="r",
            experiment="e",
            benchmark="b",
            case="c",
            variant="v",
            index=0,
            status="passed",
            outcome=RunOutcome(task="passed", evaluation="passed"),
        ),
        case=Case(id="c"),
        variant=Variant(id="v"),
        observations=observations,
        scores=scores,
    )


def test_score_outranks_task_observation_of_the_same_semantic_type() -> None:
    run = _run(
        (Observation(id="o1", name="my_quality", value=0.5, semantic_type="quality.score"),),
        (ScoreRecord(name="judge", value=0.9, semantic_type="quality.answer"),),
    )
    query = ObservationQuery(observations=run_observations(run))
    assert query.values("quality.score") == [0.9]
    assert sorted(query.values("quality.score", projected=False)) == [0.5, 0.9]
    chosen = query.first_exact("quality.score")
    assert chosen is not None and chosen.source is ObservationSource.SCORE


def test_same_source_disagreement_is_marked_ambiguous_and_errored_scores_are_not_projected() -> (
    None
):
    run = _run(
        (
            Observation(id="o1", name="a", value=1, semantic_type="time.latency"),
            Observation(id="o2", name="b", value=2, semantic_type="time.latency"),
        ),
        (
            ScoreRecord(
                name="broken",
                error="path 'output.x' does not resolve",
                semantic_type="quality.score",
            ),
        ),
    )
    projected = ObservationQuery(observations=run_observations(run)).projected()
    assert projected["time.latency"].ambiguous
    assert projected["time.latency"].value == 1
    assert "quality.score" not in projected


def test_parent_selector_matches_child_types_in_raw_queries() -> None:
    observations = [Observation(id="o", name="serving", value=0.2, semantic_type="serving.cost")]
    assert ObservationQuery(observations=observations).values("money.cost", projected=False) == [
        0.2
    ]
