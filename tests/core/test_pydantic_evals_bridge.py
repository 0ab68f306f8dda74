"""The pydantic-evals payload bridge, against the real pydantic-evals package."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autobench import (
    Case,
    DatasetSpec,
    PydanticEvalsBridge,
    PydanticEvalsCasePayload,
    PydanticEvalsUnavailableError,
)
from autobench.core.spec import load_benchmark_spec

CASE = Case(
    id="case_1",
    input={"question": "2+2?"},
    expected={"answer": "4"},
    metadata={"difficulty": "easy"},
    tags=["math"],
)


def test_autobench_does_not_import_pydantic_evals() -> None:
    code = (
        "import sys, autobench, autobench.core, autobench.core.bridges, autobench.core.plugins\n"
        "from autobench import PydanticEvalsBridge, load_benchmark_spec, run_benchmark_spec\n"
        "bridge = PydanticEvalsBridge()\n"
        "assert bridge.is_available()\n"
        "bridge.case_payload(autobench.Case(id='a'))\n"
        "assert 'pydantic_evals' not in sys.modules, 'imported too early'\n"
        "bridge.require_module()\n"
        "assert 'pydantic_evals' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_case_payload_fields() -> None:
    payload = PydanticEvalsBridge().case_payload(CASE)
    assert payload == PydanticEvalsCasePayload(
        name="case_1",
        inputs={"question": "2+2?"},
        expected_output={"answer": "4"},
        metadata={"difficulty": "easy", "autobench_tags": ["math"]},
    )


def test_spec_to_real_dataset_and_back(tmp_path: Path) -> None:
    import pydantic_evals

    path = tmp_path / "autobench.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            benchmark: {id: math}
            dataset:
              cases:
                - {id: add, input: {q: "2+2"}, expected: 4, tags: [easy]}
                - {id: mul, input: {q: "3*3"}, expected: 9, metadata: {level: 2}}
            task: {kind: python, target: "tasks:run"}
            variants: [{id: v1}]
            """
        )
    )
    spec = load_benchmark_spec(path)
    bridge = PydanticEvalsBridge()
    payload = bridge.dataset_payload(spec)
    assert payload.name == "math" and payload.cases[0].inputs == {"q": "2+2"}
    dataset = bridge.to_dataset(spec)
    assert isinstance(dataset, pydantic_evals.Dataset)
    assert dataset.name == "math"
    assert [case.name for case in dataset.cases] == ["add", "mul"]
    assert all(isinstance(case, pydantic_evals.Case) for case in dataset.cases)
    assert dataset.cases[1].expected_output == 9
    assert dataset.cases[1].metadata == {"level": 2}
    assert bridge.from_dataset(dataset) == spec.cases
    assert bridge.from_dataset(payload) == spec.cases
    assert bridge.from_case(pydantic_evals.Case(inputs=1), index=3) == Case(id="case_3", input=1)


def test_cases_without_a_spec_and_round_trip_case() -> None:
    bridge = PydanticEvalsBridge()
    payload = bridge.dataset_payload([CASE], name="adhoc")
    assert payload.name == "adhoc" and len(payload.cases) == 1
    assert bridge.dataset_payload([CASE]).name == "autobench"
    assert bridge.from_case(bridge.to_case(CASE)) == CASE


def test_unavailable_library_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    bridge = PydanticEvalsBridge()
    monkeypatch.setattr(bridge, "module_name", "pydantic_evals_not_installed_here")
    assert not bridge.is_available()
    with pytest.raises(PydanticEvalsUnavailableError, match="pip install pydantic-evals"):
        bridge.require_module()
    with pytest.raises(PydanticEvalsUnavailableError):
        bridge.to_case(CASE)
    assert issubclass(PydanticEvalsUnavailableError, ImportError)


def test_a_dataset_spec_is_accepted_and_other_inputs_are_refused() -> None:
    bridge = PydanticEvalsBridge()
    payload = bridge.dataset_payload(
        DatasetSpec(id="tickets", cases=[Case(id="a", input={"q": 1})])
    )
    assert payload.name == "tickets" and [case.name for case in payload.cases] == ["a"]
    with pytest.raises(TypeError, match="BenchmarkSpec, a DatasetSpec or cases"):
        bridge.dataset_payload(["not a case"])  # type: ignore[list-item]


def test_case_ids_from_a_dataset_are_unique() -> None:
    bridge = PydanticEvalsBridge()
    evals = bridge.require_module()
    dataset = evals.Dataset(
        name="d", cases=[evals.Case(name="case_1", inputs=1), evals.Case(inputs=2)]
    )
    assert [case.id for case in bridge.from_dataset(dataset)] == ["case_1", "case_1-2"]
