"""PlanTable: a plan held as columns reads back as the tuple of planned runs it stands for."""

from __future__ import annotations

import pytest

from autobench.records import PlannedRun, PlanTable, plan_column

PLANNED = (
    PlannedRun(id="run_0000_c1_a", case="c1", variant="a", path="cases/c1/a/run.yaml", input="h1"),
    PlannedRun(id="run_0001_c1_b", case="c1", variant="b", path="cases/c1/b/run.yaml", input="h1"),
    PlannedRun(id="run_0002_c2_a", case="c2", variant="a", path="cases/c2/a/run.yaml"),
)


def _table(asked: list[str]) -> PlanTable:
    def column(name: str) -> list[str | None]:
        asked.append(name)
        return [getattr(planned, name) for planned in PLANNED]

    return PlanTable(len(PLANNED), column)


def test_a_plan_table_is_the_sequence_of_its_planned_runs() -> None:
    asked: list[str] = []
    table = _table(asked)
    assert len(table) == 3 and asked == []  # nothing read before it is needed
    assert plan_column(table, "case") == ["c1", "c1", "c2"]
    assert asked == ["case"]
    assert table[2] == PLANNED[2] and table[-1] == PLANNED[-1]
    assert table[0:2] == PLANNED[0:2]
    assert list(table) == list(PLANNED)
    assert table == PLANNED and table == PLANNED
    assert sorted(asked) == sorted({"case", "id", "variant", "path", "input"})  # each once
    assert table != PLANNED[:2]
    with pytest.raises(IndexError):
        table[3]
    assert plan_column(PLANNED, "path") == [planned.path for planned in PLANNED]
    with pytest.raises(KeyError):
        plan_column(table, "status")


def test_a_column_of_another_length_is_refused() -> None:
    table = PlanTable(2, lambda name: ["x"])
    with pytest.raises(ValueError, match="1 values, not 2"):
        table.column("id")
