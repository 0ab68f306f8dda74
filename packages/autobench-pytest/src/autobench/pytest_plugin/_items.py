"""Spec files as pytest items: a file holds one benchmark, the benchmark one item per
question (``runs``, ``policy[NAME]``, ``fail-on[CONDITION]``, ``baseline``). The items of a
benchmark share one run of its experiment per session (made in the first item's setup, so a
spec that cannot run is an error, not a failure; under pytest-xdist, one run for all
workers) and one ``xdist_group``, so ``-k``, ``-x`` and ``-n`` work as for any test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from autobench.abp import AutobenchError
from autobench.core.spec import BenchmarkSpec, load_benchmark_spec
from autobench.pytest_plugin._experiment import (
    BaselineMissing,
    Outcome,
    record_name,
    run_experiment,
)
from autobench.pytest_plugin._settings import Settings
from autobench.records import replay_experiment
from autobench.report._headline_text import headline_lines


class BenchmarkFailed(Exception):
    """An item's check failed; ``lines`` say what (shown instead of a traceback)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


SETTINGS = pytest.StashKey[Settings]()
OUTCOMES = pytest.StashKey[dict[str, Outcome | AutobenchError]]()
RECORD_ROOT = pytest.StashKey[Path]()


def record_root(config: pytest.Config) -> Path:
    """The session's record root: ``--autobench-record-dir``, else ``autobench`` under
    pytest's temporary directory (under pytest-xdist, the controller's, which every worker
    shares)."""
    root = config.stash.get(RECORD_ROOT, None)
    if root is None:
        settings = config.stash[SETTINGS]
        if settings.record_dir is not None:
            root = settings.record_dir
        else:
            factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
            base = factory.getbasetemp()
            root = (base.parent if _worker(config) else base) / "autobench"
        root.mkdir(parents=True, exist_ok=True)
        config.stash[RECORD_ROOT] = root
    return root


def _worker(config: pytest.Config) -> dict[str, Any] | None:
    """pytest-xdist's input of this worker (``None``: not a worker)."""
    return getattr(config, "workerinput", None)


def outcome_of(config: pytest.Config, key: str, spec: Callable[[], BenchmarkSpec]) -> Outcome:
    """The session's outcome of the benchmark ``key`` (run on first use). An error met
    while running is raised again for every later item of the benchmark.

    Under pytest-xdist the workers share the record root: the first worker to reach a
    benchmark runs and records it while holding a lock on it, and any other worker that
    reaches the benchmark waits and replays that record, so each experiment is recorded
    once per session whatever the scheduling."""
    outcomes = config.stash.setdefault(OUTCOMES, {})
    known = outcomes.get(key)
    if known is None:
        try:
            known = _shared_outcome(config, spec())
        except AutobenchError as error:
            known = error
        outcomes[key] = known
    if isinstance(known, AutobenchError):
        raise known
    return known


def _shared_outcome(config: pytest.Config, spec: BenchmarkSpec) -> Outcome:
    settings = config.stash[SETTINGS]
    root = record_root(config)
    worker = _worker(config)
    if worker is None:
        return run_experiment(spec, settings, root)
    name = record_name(spec.id)
    done = root / f".{name}.{worker['testrunuid']}.done"
    with FileLock(root / f".{name}.lock"):
        if done.exists():
            result = replay_experiment(root / name)
            return Outcome(spec, result, root / name)
        outcome = run_experiment(spec, settings, root)
        done.write_text(f"{worker['workerid']}\n")
        return outcome


class SpecFile(pytest.File):
    """An Autobench spec file: one :class:`BenchmarkNode` (its benchmark)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        try:
            spec = load_benchmark_spec(self.path)
        except AutobenchError as error:
            raise self.CollectError(f"{self.path}: {error}") from None
        yield BenchmarkNode.from_parent(self, name=spec.id, spec=spec)


class BenchmarkNode(pytest.Collector):
    """A benchmark: its items, in the order they are checked."""

    def __init__(self, *, spec: BenchmarkSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec

    def collect(self) -> Iterator[pytest.Item]:
        settings = self.config.stash[SETTINGS]
        checks: list[tuple[str, str, str | None]] = [("runs", "runs", None)]
        checks += [(f"policy[{p.name}]", "policy", p.name) for p in self.spec.policies]
        checks += [(f"fail-on[{shown}]", "condition", name) for shown, name in settings.fail_on]
        if settings.baseline is not None:
            checks.append(("baseline", "baseline", None))
        for name, kind, argument in checks:
            item = BenchmarkItem.from_parent(self, name=name, kind=kind, argument=argument)
            item.add_marker(pytest.mark.xdist_group(f"autobench:{self.spec.id}"))
            yield item


class BenchmarkItem(pytest.Item):
    """One question about the benchmark's experiment (``kind``: ``runs``, ``policy``,
    ``condition`` or ``baseline``)."""

    def __init__(self, *, kind: str, argument: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kind = kind
        self.argument = argument
        self.outcome: Outcome | None = None

    @property
    def node(self) -> BenchmarkNode:
        assert isinstance(self.parent, BenchmarkNode)
        return self.parent

    def setup(self) -> None:
        node = self.node
        self.outcome = outcome_of(self.config, str(node.path), lambda: node.spec)

    def runtest(self) -> None:
        outcome = self.outcome
        assert outcome is not None
        settings = self.config.stash[SETTINGS]
        if self.kind == "runs":
            problems = outcome.ran()
            cases = outcome.cases(limit=10) if problems else []
            self._check(outcome, problems, cases)
        elif self.kind == "policy":
            assert self.argument is not None
            problems = outcome.policy(self.argument)
            self._check(outcome, problems, outcome.cases(policy=self.argument))
        elif self.kind == "condition":
            assert self.argument is not None
            problems = outcome.condition(self.argument)
            self._check(outcome, problems, outcome.cases() if problems else [])
        else:
            assert settings.baseline is not None
            try:
                problems, headline = outcome.against(settings.baseline)
            except BaselineMissing as missing:
                pytest.skip(str(missing))
            self._check(outcome, problems, [], headline=headline_lines(headline))

    def _check(
        self,
        outcome: Outcome,
        problems: list[str],
        cases: list[str],
        *,
        headline: list[str] | None = None,
    ) -> None:
        if not problems:
            return
        lines = [*problems, ""]
        lines += headline if headline is not None else outcome.headline()
        if cases:
            lines += ["", "cases:", *(f"  {line}" for line in cases)]
        lines += ["", f"record: {outcome.record_dir}"]
        raise BenchmarkFailed(lines)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, BenchmarkFailed):
            return "\n".join(excinfo.value.lines)
        if isinstance(excinfo.value, AutobenchError):
            return f"{type(excinfo.value).__name__}: {excinfo.value}\nspec: {self.path}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.node.spec.id}::{self.name}"
