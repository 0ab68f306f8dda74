"""Helpers for the runtime tests: task modules written to disk, specs, and a collecting sink."""

from __future__ import annotations

import asyncio
import itertools
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import (
    ArtifactRef,
    ExperimentRecord,
    ExperimentResult,
    ExperimentSummary,
    Observation,
    RunRecord,
)

_counter = itertools.count(1)


def write_task_module(directory: Path, source: str, name: str | None = None) -> str:
    """Write ``source`` as a module under ``directory`` and return its (unique) module name."""
    module = name or f"rt_tasks_{next(_counter)}"
    (directory / f"{module}.py").write_text(textwrap.dedent(source))
    return module


def make_spec(
    base_dir: Path,
    target: str | None,
    *,
    cases: Sequence[Mapping[str, Any]] = (
        {"id": "c1", "input": {"n": 1}, "expected": {"value": 2}},
    ),
    variants: Sequence[Mapping[str, Any]] = ({"id": "v1", "factors": {"model": "small"}},),
    scoring: Sequence[Mapping[str, Any]] = (),
    **extra: Any,
) -> BenchmarkSpec:
    data: dict[str, Any] = {
        "benchmark": {"id": "runtime-test"},
        "dataset": {"cases": list(cases)},
        "variants": list(variants),
        "scoring": list(scoring),
        **extra,
    }
    if target is not None:
        data["task"] = {"target": target}
    spec = BenchmarkSpec.model_validate(data)
    return spec.model_copy(update={"base_dir": base_dir})


def run(spec: BenchmarkSpec, **kwargs: Any) -> ExperimentResult:
    return asyncio.run(run_benchmark_spec(spec, **kwargs))


class CollectingSink:
    """A real ExperimentSink that keeps what it receives and completes artifact refs with a path."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.experiment: ExperimentRecord | None = None
        self.runs: list[RunRecord] = []
        self.payloads: dict[str, dict[str, Any]] = {}
        self.summary: ExperimentSummary | None = None

    def start(self, experiment: ExperimentRecord) -> None:
        self.calls.append("start")
        self.experiment = experiment

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord:
        self.calls.append(f"run:{run.run_id}")
        self.payloads[run.run_id] = dict(payloads)
        artifacts = tuple(
            ArtifactRef(**{**ref.model_dump(), "path": f"artifacts/{run.run_id}/{ref.id}.yaml"})
            for ref in run.artifacts
        )
        stored = run.model_copy(update={"artifacts": artifacts})
        self.runs.append(stored)
        return stored

    def post_derived(self, observations_by_run: Mapping[str, Sequence[Observation]]) -> None:
        self.calls.append("post_derived")
        self.post_derived_observations = dict(observations_by_run)

    def finish(self, summary: ExperimentSummary) -> None:
        self.calls.append("finish")
        self.summary = summary
