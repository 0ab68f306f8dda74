"""The ``autobench`` fixture: run a benchmark built in Python (the builder) or loaded from a
spec inside a test, with the session's options, and fail the test the way a spec file's items
fail. ``@pytest.mark.autobench(fail_on=...)`` adds ``--fail-on`` conditions for the test."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from autobench.core.builder import Benchmark
from autobench.core.spec import BenchmarkSpec, load_benchmark_spec
from autobench.pytest_plugin._experiment import BaselineMissing, Outcome, run_experiment
from autobench.pytest_plugin._items import SETTINGS, BenchmarkFailed, record_root
from autobench.pytest_plugin._settings import _conditions
from autobench.report._headline_text import headline_lines


class AutobenchFixture:
    """What the ``autobench`` fixture gives a test: :meth:`run`."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request

    def run(
        self,
        benchmark: Benchmark | BenchmarkSpec | str | Path,
        *,
        fail_on: str | Sequence[str] = (),
        check: bool = True,
    ) -> Outcome:
        """Run ``benchmark`` (a builder, a spec, or the path of a spec file) once, recorded
        under the session's record directory, with its repeat and cassette options.

        With ``check`` (the default) the test fails, with the headline, the failing cases
        and the record path, when a run errored or a planned run has no record, a policy
        failed, a ``fail_on`` condition (here, in the ``autobench`` mark, or
        ``--autobench-fail-on``) tripped, or the experiment regressed against
        ``--autobench-baseline``. Returns the :class:`Outcome` (``result``, ``report``,
        ``record_dir``). Raises what running raises (an ``AutobenchError`` for a spec that
        cannot run)."""
        config = self._request.config
        settings = config.stash[SETTINGS]
        spec = _spec(benchmark)
        outcome = run_experiment(spec, settings, record_root(config))
        if not check:
            return outcome
        conditions = [name for _shown, name in settings.fail_on]
        marker = self._request.node.get_closest_marker("autobench")
        extra = [fail_on] if isinstance(fail_on, str) else list(fail_on)
        if marker is not None:
            marked = marker.kwargs.get("fail_on", ())
            extra += [marked] if isinstance(marked, str) else list(marked)
        conditions += [name for _shown, name in _conditions(",".join(extra))]
        problems = outcome.ran()
        for policy in spec.policies:
            problems += outcome.policy(policy.name)
        for name in dict.fromkeys(conditions):
            problems += outcome.condition(name)
        headline: list[str] | None = None
        if settings.baseline is not None:
            try:
                regressed, compared = outcome.against(settings.baseline)
            except BaselineMissing:
                regressed = []
            if regressed:
                problems += regressed
                headline = headline_lines(compared)
        if problems:
            lines = [*problems, "", *(headline or outcome.headline())]
            cases = outcome.cases()
            if cases:
                lines += ["", "cases:", *(f"  {line}" for line in cases)]
            lines += ["", f"record: {outcome.record_dir}"]
            pytest.fail("\n".join(lines), pytrace=False)
        return outcome


def _spec(benchmark: Benchmark | BenchmarkSpec | str | Path) -> BenchmarkSpec:
    if isinstance(benchmark, Benchmark):
        return benchmark.to_spec()
    if isinstance(benchmark, BenchmarkSpec):
        return benchmark
    return load_benchmark_spec(benchmark)


__all__ = ["AutobenchFixture", "BenchmarkFailed"]
