"""``experiment.yaml`` read with its plan as columns
(``experiment_record_with_plan_columns``): the same record as reading it whole, for plans
whose ids and hashes YAML would read as other things than texts, written by the record
writer; a plan in another layout is read whole; a file changed under a plan read as
columns is refused."""

from __future__ import annotations

import hashlib
import os
import string
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from _factories import experiment_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench.records import (
    ExperimentRecord,
    PlannedRun,
    PlanTable,
    RecordFormatError,
    experiment_record_from_yaml,
    experiment_record_to_yaml,
    experiment_record_with_plan_columns,
    plan_column,
)
from autobench.records._plan_columns import _CHUNK

# Texts YAML reads as booleans, null, numbers and times when written plainly, texts that
# need quotes, and ordinary ids.
TRICKY = st.sampled_from(
    [
        "true",
        "False",
        "null",
        "NULL",
        "~",
        "1",
        "0x1F",
        "1e5",
        "12e34",
        ".inf",
        "2026-12-07",
        "2026-12-07 18:10:34.627403+00:00",
        "yes",
        "no",
        "on",
        "a: b",
        "a #b",
        "tail:",
        "trailing ",
        " leading",
        "it's",
        '"quoted"',
        "- dash",
        "[flow]",
        "{x}",
        "&anchor",
        "*alias",
        "!tag",
        "%pct",
        "@at",
        "`tick",
        "ünï",
        "tab\there",
        "",
    ]
)
IDS = TRICKY | st.text(alphabet=string.ascii_letters + string.digits + "_-./ :#'", min_size=1)
HASHES = st.none() | st.sampled_from(
    [hashlib.sha256(str(n).encode()).hexdigest() for n in range(8)]
    + ["1" * 64, "1e" + "2" * 62, "e" * 64, "0" * 63 + "f"]
)


def _written(tmp_path: Path, experiment: ExperimentRecord) -> Path:
    path = tmp_path / "experiment.yaml"
    path.write_text(experiment_record_to_yaml(experiment), encoding="utf-8")
    return path


def _planned(cases: list[str], inputs: list[str | None]) -> tuple[PlannedRun, ...]:
    return tuple(
        PlannedRun(
            id=f"run_{index:04d}_{case}",
            case=case or "c",
            variant="a" if index % 2 else "baseline",
            path=f"cases/{index}/run.yaml",
            input=digest,
        )
        for index, (case, digest) in enumerate(zip(cases, inputs, strict=True))
    )


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases=st.lists(IDS, min_size=1, max_size=6), data=st.data())
def test_a_plan_read_as_columns_is_the_plan_read_whole(
    tmp_path: Path, cases: list[str], data: st.DataObject
) -> None:
    inputs = data.draw(st.lists(HASHES, min_size=len(cases), max_size=len(cases)))
    experiment = experiment_for([("c", "a")]).model_copy(update={"plan": _planned(cases, inputs)})
    path = _written(tmp_path, experiment)
    whole = experiment_record_from_yaml(path.read_text(encoding="utf-8"), source=path)
    read = experiment_record_with_plan_columns(path)
    assert read == whole
    assert len(read.plan) == len(whole.plan)
    for name in ("id", "case", "variant", "path", "input"):
        assert list(plan_column(read.plan, name)) == [getattr(run, name) for run in whole.plan]


def test_the_writers_plan_is_read_as_columns_once_asked_for(tmp_path: Path) -> None:
    experiment = experiment_for([(f"case-{n}", v) for n in range(300) for v in ("a", "b")])
    path = _written(tmp_path, experiment)
    read = experiment_record_with_plan_columns(path)
    assert isinstance(read.plan, PlanTable) and len(read.plan) == 600
    assert read == experiment_record_from_yaml(path.read_text(encoding="utf-8"), source=path)
    # a value repeated across runs (a case's id, a variant) is one string
    cases = plan_column(read.plan, "case")
    assert cases[0] is cases[1]


def test_a_plan_in_another_layout_is_read_whole(tmp_path: Path) -> None:
    experiment = experiment_for([("c1", "a"), ("c2", "a")])
    text = experiment_record_to_yaml(experiment)
    for other in (
        text.replace("\nplan:\n", "\nplan:\n# a comment line\n"),
        text.replace("\n  case: c2\n", "\n  'case': c2\n"),
        text.replace("\n- id: ", "\n-   id: ", 1).replace(
            "\n  case: c1\n  variant: a\n  path: cases/c1/a/run.yaml\n",
            "\n    case: c1\n    variant: a\n    path: cases/c1/a/run.yaml\n",
        ),
    ):
        assert other != text
        path = tmp_path / "experiment.yaml"
        path.write_text(other, encoding="utf-8")
        read = experiment_record_with_plan_columns(path)
        assert not isinstance(read.plan, PlanTable)
        assert read == experiment_record_from_yaml(other, source=path) == experiment


def test_a_plan_changed_before_its_columns_are_read_is_refused(tmp_path: Path) -> None:
    experiment = experiment_for([(f"case-{n}", "a") for n in range(5)])
    path = _written(tmp_path, experiment)
    read = experiment_record_with_plan_columns(path)
    shorter = experiment.model_copy(update={"plan": experiment.plan[:4]})
    path.write_text(experiment_record_to_yaml(shorter), encoding="utf-8")
    os.utime(path, ns=(1, 1))
    with pytest.raises(ValueError, match="the plan changed"):
        plan_column(read.plan, "path")


@pytest.mark.parametrize("value", ["[c2]", "true", "NULL", "12", "1e3", "2026-12-07", "0x1f"])
def test_a_plan_value_that_is_not_a_text_is_refused(tmp_path: Path, value: str) -> None:
    """Hand-written plain values that YAML reads as other things than texts (the writer
    quotes them): the columns refuse them, as reading the record whole does."""
    experiment = experiment_for([("c1", "a"), ("c2", "a")])
    text = experiment_record_to_yaml(experiment).replace("  case: c2\n", f"  case: {value}\n")
    path = tmp_path / "experiment.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordFormatError):
        experiment_record_from_yaml(text, source=path)
    read = experiment_record_with_plan_columns(path)
    with pytest.raises(ValueError, match="not a string"):
        plan_column(read.plan, "case")


def _traced_peak(read: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        kept = read()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del kept
    return peak


def test_reading_the_plan_as_columns_holds_a_block_of_it_not_all_of_it(tmp_path: Path) -> None:
    """The index worker reads ``experiment.yaml`` while the runs go on: with the plan as
    columns, the traced peak is a few blocks of the file (read a block at a time, the
    columns not read), where reading the plan as models holds about a kilobyte a planned
    run."""
    whole, columns = {}, {}
    for runs in (40_000, 120_000, 240_000):
        experiment = experiment_for([(f"case-{n}", "a") for n in range(runs)])
        path = _written(tmp_path, experiment)
        del experiment
        if runs < 240_000:
            text = path.read_text(encoding="utf-8")
            whole[runs] = _traced_peak(partial(experiment_record_from_yaml, text, source=path))
            del text
        columns[runs] = _traced_peak(partial(experiment_record_with_plan_columns, path))
    assert whole[120_000] - whole[40_000] > 500 * 80_000  # models: over 500 bytes a run
    # past a few blocks of the file (8 MB, then 16 MB of plan), nothing more is held
    assert columns[240_000] < 8 * _CHUNK, columns
    assert columns[240_000] - columns[120_000] < 2 * 1024 * 1024, columns
