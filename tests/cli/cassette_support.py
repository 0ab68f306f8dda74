"""What the cassette tests share: run the CLI here, copy an example and take its network
away, and compare a replayed record with the one it replays."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import RunRecord, replay_experiment

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

DEAD_TRANSPORT = """

def _dead(request):
    raise RuntimeError("the network was used during a cassette replay")


def transport() -> httpx2.MockTransport:
    return httpx2.MockTransport(_dead)
"""
"""Appended to an example's offline API: from then on, any request that reaches the
transport fails its run."""


def run_cli(*args: str) -> None:
    result = CliRunner().invoke(
        cli,
        ["run", "autobench.yaml", "--no-progress", *args],
        catch_exceptions=False,
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output


def by_run(record: Path) -> dict[tuple[str, str], RunRecord]:
    return {(run.case_id, run.variant_id): run for run in replay_experiment(record).runs}


def evidence(run: RunRecord) -> dict[str, object]:
    """The run's token, request and money observations by semantic type."""
    return {
        o.semantic_type: o.value
        for o in run.observations
        if o.semantic_type and o.semantic_type.startswith(("llm.", "money."))
    }


def replayed_counts(run: RunRecord) -> list[object]:
    return [o.value for o in run.observations if o.name == "cassette.replayed"]


def assert_same_runs(recorded: Path, replayed: Path, count: int) -> None:
    """Every run of ``replayed`` is the run of ``recorded`` again, answered from its
    cassette: same status, output, scores and LLM evidence."""
    live_runs, again_runs = by_run(recorded), by_run(replayed)
    assert live_runs.keys() == again_runs.keys() and len(live_runs) == count
    for key, live in live_runs.items():
        again = again_runs[key]
        assert not again.errors, (key, again.errors)
        assert again.status == live.status
        assert again.output == live.output
        assert [(s.name, s.value) for s in again.scores] == [(s.name, s.value) for s in live.scores]
        assert evidence(again) == evidence(live) and evidence(live), key
        assert replayed_counts(again) and replayed_counts(again)[0] >= 1  # type: ignore[operator]
        assert not replayed_counts(live)


def forget(*prefixes: str) -> None:
    """Drop the benchmark's modules: the next run imports them from the current files."""
    for module in list(sys.modules):
        if module.startswith(prefixes):
            del sys.modules[module]


def copy_example(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, modules: tuple[str, ...]
) -> Path:
    target = tmp_path / name
    shutil.copytree(
        EXAMPLES / name, target, ignore=shutil.ignore_patterns(".autobench", "__pycache__")
    )
    monkeypatch.chdir(target)
    monkeypatch.syspath_prepend(str(target))
    forget(*modules)
    return target


def kill_network(api: Path, modules: tuple[str, ...]) -> None:
    api.write_text(api.read_text() + DEAD_TRANSPORT)
    forget(*modules)
