"""``--fail-on``: turn run statuses, statistically supported regressions and a floor on
pass^k into a non-zero exit code for CI pipelines."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import click

from autobench.cli._agreement_gate import agreement_bound, agreement_failures, is_agreement_bound

if TYPE_CHECKING:
    from autobench.records import ExperimentResult
    from autobench.report._regressions import interval_regressed as interval_regressed
    from autobench.report._regressions import regressions as regressions

# The records and the report are imported when a gate is checked: `--help` needs neither.

EXIT_GATE = 3
"""Exit code when runs ended in a status named by ``--fail-on`` (1 stays for errors)."""

GATE_STATUSES = (
    "failed",
    "errored",
    "skipped",
    "missing",
    "regressed",
    "pass^k<FLOOR",
    "kappa<FLOOR",
)
"""Run statuses, ``missing`` (planned runs without a record), ``regressed`` (a
comparison's verdict) and ``pass^k<FLOOR`` (a variant's pass^k below ``FLOOR``), ``kappa<FLOOR`` (and the other
agreement bounds of :mod:`autobench.cli._agreement_gate`)."""

_PASS_HAT_K = re.compile(r"pass\^k\s*<\s*(\S+)")
PASS_HAT_K_PREFIX = "pass^k<"
"""A parsed floor is kept as ``pass^k<`` followed by the floor (``pass^k<0.9``)."""


def parse_fail_on(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> frozenset[str]:
    """``failed,errored`` -> ``{"failed", "errored"}``; ``pass^k<0.9`` -> ``{"pass^k<0.9"}``;
    unknown names and a floor outside ``(0, 1]`` are a usage error."""
    if value is None:
        return frozenset()
    names: set[str] = set()
    for part in (part.strip().lower() for part in value.split(",")):
        if not part:
            continue
        if (floor := _PASS_HAT_K.fullmatch(part)) is not None:
            names.add(PASS_HAT_K_PREFIX + _floor_text(floor.group(1)))
        elif (bound := agreement_bound(part)) is not None:
            names.add(bound)
        elif part.startswith("pass^k"):
            raise click.BadParameter(f"{part!r}: write the floor as pass^k<0.9")
        else:
            names.add(part)
    if not names:
        raise click.BadParameter(f"names no status; choose from {', '.join(GATE_STATUSES)}")
    unknown = sorted(
        name
        for name in names
        if name not in GATE_STATUSES
        and not name.startswith(PASS_HAT_K_PREFIX)
        and not is_agreement_bound(name)
    )
    if unknown:
        raise click.BadParameter(
            f"unknown status {', '.join(unknown)}; choose from {', '.join(GATE_STATUSES)}"
        )
    return frozenset(names)


def _floor_text(text: str) -> str:
    try:
        floor = float(text)
    except ValueError:
        raise click.BadParameter(f"pass^k floor {text!r} is not a number in (0, 1]") from None
    if not 0 < floor <= 1:
        raise click.BadParameter(f"pass^k floor {text} is not in (0, 1]")
    return repr(floor)


FAIL_ON_HELP = (
    "Exit with code 3 when any run ended in one of these statuses (comma-separated: "
    "failed, errored, skipped; `missing` for planned runs without a record; `regressed` "
    "when a comparison of the report finds a regression its interval supports: the "
    "verdict is regressed and the whole confidence interval of the mean per-case delta "
    "lies on the worse side of zero; `pass^k<FLOOR`, quoted in a shell, e.g. "
    "'pass^k<0.9', when a variant's pass^k, the share of cases that passed in all K "
    "repeats, is below FLOOR; `kappa<FLOOR`, likewise `accuracy`, `kappa_linear`, "
    "`kappa_quadratic`, `tpr`, or `fpr>CEILING`, when the score calibrated by the labels "
    "stored beside the record (labels.yaml) agrees with people less than that). Without "
    "it the exit code is 0 whenever the experiment completed."
)


def gate_failures(result: ExperimentResult, fail_on: frozenset[str]) -> list[str]:
    """What trips the gate, as lines for people (empty: the gate passes)."""
    from autobench.records import LABELS_FILE, RunStatus
    from autobench.report import build_report, stored_calibrations
    from autobench.report._regressions import regressions

    problems: list[str] = []
    counts = result.status_counts()
    for status in RunStatus:
        count = getattr(counts, status.value)
        if status.value in fail_on and count:
            problems.append(f"{count} run(s) {status.value}")
    if "missing" in fail_on and result.missing_runs:
        problems.append(f"{len(result.missing_runs)} planned run(s) have no record")
    if "regressed" in fail_on:
        problems += regressions(build_report(result).comparisons)
    floors = [
        float(name[len(PASS_HAT_K_PREFIX) :])
        for name in fail_on
        if name.startswith(PASS_HAT_K_PREFIX)
    ]
    if floors:
        problems += below_pass_hat_k(result, max(floors))
    bounds = [name for name in fail_on if is_agreement_bound(name)]
    if bounds:
        problems += agreement_failures(
            stored_calibrations(result), bounds, where=f"no {LABELS_FILE} beside the record"
        )
    return problems


def below_pass_hat_k(result: ExperimentResult, floor: float) -> list[str]:
    """One line per variant whose pass^k (``k`` = the planned repeats; the point estimate,
    the mean over cases) is below ``floor``, for ``--fail-on pass^k<FLOOR``. A variant
    with no case of ``k`` recorded runs trips the gate too (nothing shows it holds)."""
    from autobench.report import build_reliability

    reliability = build_reliability(result)
    problems = []
    for item in reliability.variants:
        if item.pass_hat_k is None:
            problems.append(f"{item.variant}: no case has {reliability.k} recorded runs")
        elif item.pass_hat_k < floor:
            problems.append(
                f"{item.variant}: pass^{reliability.k} {item.pass_hat_k:.3f} < {floor:g} "
                f"({item.cases} cases; {reliability.level:.0%} interval "
                f"[{item.pass_hat_k_low:.3f}, {item.pass_hat_k_high:.3f}])"
            )
    return problems


RUNS_HELP = (
    "Which per-run rows to show: auto (all when there are at most 20 runs, else those that "
    "did not pass), all, failed or none."
)

runs_option = click.option(
    "--runs",
    type=click.Choice(["auto", "all", "failed", "none"]),
    default="auto",
    show_default=True,
    help=RUNS_HELP,
)
"""``--runs``, shared by ``run`` and ``report``."""

fail_on_option = click.option(
    "--fail-on", callback=parse_fail_on, metavar="STATUSES", help=FAIL_ON_HELP
)
"""``--fail-on``, shared by ``run`` and ``report``."""


def __getattr__(name: str) -> object:
    """``regressions`` and ``interval_regressed`` of :mod:`autobench.report._regressions`,
    imported on first use."""
    if name in ("regressions", "interval_regressed"):
        from autobench.report import _regressions

        return getattr(_regressions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
