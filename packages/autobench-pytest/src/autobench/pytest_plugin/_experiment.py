"""One experiment per benchmark and session: run (and record) it once, then answer each
item's question about it: did it run, did a policy hold, did a ``--fail-on`` condition trip,
did it regress against the baseline."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from autobench.abp import AutobenchError
from autobench.cli._gate import gate_failures
from autobench.core.runtime import CassetteSetup, RunSession, default_record_dir
from autobench.core.spec import BenchmarkSpec
from autobench.pytest_plugin._settings import Settings
from autobench.records import ExperimentResult, RunStatus, load_experiment_record, replay_experiment
from autobench.report import Report, build_report, compare_experiments, regressions
from autobench.report._headline_text import headline_lines
from autobench.report._model import Headline


class BaselineMissing(Exception):
    """No baseline record for the benchmark: its baseline item is skipped."""


def record_name(benchmark: str) -> str:
    """The directory name of ``benchmark``'s record under a record root (as
    ``.autobench/<benchmark>`` names it)."""
    return default_record_dir(benchmark, "x").parent.name


def find_record(root: Path, benchmark: str) -> Path | None:
    """``root/<benchmark>`` when it holds a record, else ``root`` itself when it is the
    record of ``benchmark``; ``None`` otherwise."""
    nested = root / record_name(benchmark)
    if (nested / "experiment.yaml").is_file():
        return nested
    if (root / "experiment.yaml").is_file():
        try:
            recorded = load_experiment_record(root).benchmark.id
        except (OSError, ValueError):
            return None
        return root if recorded == benchmark else None
    return None


@dataclass
class Outcome:
    """A finished experiment: its result, report and record directory."""

    spec: BenchmarkSpec
    result: ExperimentResult
    record_dir: Path
    _report: Report | None = field(default=None, repr=False)

    @property
    def report(self) -> Report:
        if self._report is None:
            self._report = build_report(self.result)
        return self._report

    def headline(self) -> list[str]:
        """The report's headline lines, or the run counts when it has none."""
        lines = headline_lines(self.report.headline)
        counts = self.result.status_counts()
        lines.insert(
            0,
            f"{self.spec.id}: {len(self.result.runs)} runs, {counts.passed} passed, "
            f"{counts.failed} failed, {counts.errored} errored, {counts.skipped} skipped",
        )
        return lines

    def cases(self, *, policy: str | None = None, limit: int = 10) -> list[str]:
        """The runs that did not pass (``policy``: the runs that policy failed), one line
        each, at most ``limit`` and a line saying how many more."""
        rows = [
            row
            for row in self.report.run_rows
            if (row.policies.get(policy) is False if policy else row.status is not RunStatus.PASSED)
        ]
        lines = [
            f"{row.case_id} / {row.variant_id}: {row.status.value}"
            + (f": {row.reason}" if row.reason else "")
            for row in rows[:limit]
        ]
        if len(rows) > limit:
            lines.append(f"... {len(rows) - limit} more")
        return lines

    # The checks: each returns the lines of what failed ([] when it holds).

    def ran(self) -> list[str]:
        """Errored runs and planned runs without a record."""
        return gate_failures(self.result, frozenset({"errored", "missing"}))

    def policy(self, name: str) -> list[str]:
        """The variants where policy ``name`` failed on some run."""
        summary = next((p for p in self.report.policies if p.name == name), None)
        if summary is None:
            return [f"policy {name!r} has no result on any run"]
        return [
            f"policy {name} failed on {failed} of {failed + summary.passed.get(variant, 0)} "
            f"runs of {variant}"
            for variant, failed in summary.failed.items()
            if failed
        ]

    def condition(self, name: str) -> list[str]:
        """What ``autobench run --fail-on NAME`` would trip on."""
        return gate_failures(self.result, frozenset({name}))

    def against(self, baseline_root: Path) -> tuple[list[str], Headline]:
        """Regressions against the baseline record of this benchmark under
        ``baseline_root`` (:class:`BaselineMissing` when there is none), with the
        comparison's headline."""
        found = find_record(baseline_root, self.spec.id)
        if found is None:
            raise BaselineMissing(f"no baseline record of {self.spec.id!r} in {baseline_root}")
        baseline = replay_experiment(found, evidence_only=True)
        across = compare_experiments(baseline, self.result)
        problems = regressions(across.comparisons)
        return [f"against {found}: {line}" for line in problems], across.headline


def run_experiment(spec: BenchmarkSpec, settings: Settings, record_root: Path) -> Outcome:
    """Run every case x variant of ``spec`` once and record it in
    ``record_root/<benchmark>``, with the session's repeat and cassette options. Raises
    :class:`AutobenchError` when the record exists already or the spec cannot run."""
    if settings.repeat is not None and settings.repeat != spec.repeat:
        spec = spec.model_copy(update={"repeat": settings.repeat})
    target = record_root / record_name(spec.id)
    if target.exists():
        raise AutobenchError(
            f"{target} exists: records are never overwritten; give an empty "
            "--autobench-record-dir (or remove the old record)"
        )
    session = RunSession.start(spec, record_dir=target, cassette=_cassette(spec, settings))
    result = asyncio.run(session.execute(concurrency_limit=settings.concurrency))
    return Outcome(spec, result, target)


def _cassette(spec: BenchmarkSpec, settings: Settings) -> CassetteSetup | None:
    if settings.cassette is None:
        return None
    if settings.cassette == "record":
        return CassetteSetup("record")
    root = settings.replay_root
    assert root is not None  # Settings.of refuses replay without a source
    source = find_record(root, spec.id)
    if source is None:
        raise AutobenchError(f"no record of {spec.id!r} in {root} to replay cassettes from")
    if settings.cassette == "replay":
        return CassetteSetup.replaying("replay", source)
    return CassetteSetup.replaying("replay-or-record", source)
