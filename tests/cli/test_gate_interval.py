"""``--fail-on regressed`` trips only when the verdict is regressed and the interval of the
mean per-case delta lies wholly on the worse side of zero; the help says so."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.cli._gate import interval_regressed
from autobench.records import Direction
from autobench.report import MetricStatistics, Verdict


def _stats(verdict: Verdict, direction: Direction, low: float, high: float) -> MetricStatistics:
    return MetricStatistics(
        test="wilcoxon",
        n=30,
        informative=30,
        mean_delta=(low + high) / 2,
        ci_low=low,
        ci_high=high,
        level=0.95,
        p_value=0.001,
        p_adjusted=0.003,
        verdict=verdict,
        direction=direction,
    )


@pytest.mark.parametrize(
    ("verdict", "direction", "interval", "tripped"),
    [
        (Verdict.REGRESSED, Direction.MAXIMIZE, (-0.30, -0.10), True),
        (Verdict.REGRESSED, Direction.MAXIMIZE, (-0.30, 0.05), False),  # bound crosses 0
        (Verdict.REGRESSED, Direction.MINIMIZE, (0.10, 0.20), True),
        (Verdict.REGRESSED, Direction.MINIMIZE, (0.0, 0.20), False),  # bound on 0
        (Verdict.NO_DIFFERENCE, Direction.MAXIMIZE, (-0.30, -0.10), False),
        (Verdict.IMPROVED, Direction.MINIMIZE, (-0.30, -0.10), False),
    ],
)
def test_the_interval_bound_decides(
    verdict: Verdict, direction: Direction, interval: tuple[float, float], tripped: bool
) -> None:
    assert interval_regressed(_stats(verdict, direction, *interval)) is tripped


@pytest.mark.parametrize("command", ["run", "report", "compare"])
def test_help_names_the_interval_bound(command: str) -> None:
    helped = CliRunner(env={"COLUMNS": "400"}).invoke(cli, [command, "--help"])
    assert helped.exit_code == 0
    text = " ".join(helped.output.split())
    assert "interval" in text and "worse side" in text
