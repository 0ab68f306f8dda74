"""Shared fields-sets (``autobench.records._fields_sets``): frozen models of one shape share
one ``model_fields_set``; what each model says it was given, and every copy, stays right."""

from __future__ import annotations

from pydantic import BaseModel

from autobench.records import Observation, ScoreRecord
from autobench.records._fields_sets import share_fields_sets, share_flat_fields_sets


class Editable(BaseModel):
    name: str
    note: str | None = None


def test_frozen_models_of_one_shape_share_one_set_and_keep_their_meaning() -> None:
    scores = [ScoreRecord(name=f"s{index}", value=index / 10) for index in range(3)]
    reasoned = ScoreRecord(name="r", value=1.0, reason="why")
    dumped = [score.model_dump(exclude_unset=True) for score in (*scores, reasoned)]

    share_fields_sets(scores)
    share_fields_sets({"reasoned": reasoned})

    assert scores[0].__pydantic_fields_set__ is scores[2].__pydantic_fields_set__
    assert reasoned.model_fields_set == {"name", "value", "reason"}
    assert reasoned.__pydantic_fields_set__ is not scores[0].__pydantic_fields_set__
    assert [score.model_dump(exclude_unset=True) for score in (*scores, reasoned)] == dumped
    # A copy with a change owns its set; the shared one is left as it was.
    changed = scores[0].model_copy(update={"reason": "edited"})
    assert changed.model_fields_set == {"name", "value", "reason"}
    assert scores[1].model_fields_set == {"name", "value"}


def test_models_that_can_change_keep_sets_of_their_own() -> None:
    first, second = Editable(name="a"), Editable(name="b")
    share_fields_sets([first, second])
    first.note = "set later"  # a model that can change adds to its own set

    assert first.model_fields_set == {"name", "note"}
    assert second.model_fields_set == {"name"}


def test_models_inside_models_share_too() -> None:
    observations = [
        Observation(id=f"o{index}", name="m", value=index, kind="metric") for index in range(2)
    ]
    holders = [ScoreRecord(name="s", value=1.0, actual_value=o) for o in observations]
    share_fields_sets(holders)

    assert observations[0].__pydantic_fields_set__ is observations[1].__pydantic_fields_set__


def test_flat_models_share_a_set_per_shape_in_one_pass() -> None:
    scores = [ScoreRecord(name=f"s{index}", value=index) for index in range(3)]
    reasoned = ScoreRecord(name="r", value=1.0, reason="why")
    editable = [Editable(name="a"), Editable(name="b")]
    share_flat_fields_sets([*scores[:2], reasoned, scores[2]])
    share_flat_fields_sets(editable)

    assert scores[0].__pydantic_fields_set__ is scores[2].__pydantic_fields_set__
    assert reasoned.model_fields_set == {"name", "value", "reason"}
    assert scores[2].model_fields_set == {"name", "value"}
    assert editable[0].__pydantic_fields_set__ is not editable[1].__pydantic_fields_set__
