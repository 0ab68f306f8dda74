"""``--fail-on 'kappa<0.6'``: require a score's agreement with human labels before its
verdicts gate CI.

A floor names a statistic of :func:`autobench.report.calibrate` (``accuracy``, ``kappa``,
``kappa_linear``, ``kappa_quadratic``, ``tpr``) and a bound under which the gate trips;
``fpr>CEILING`` trips when the false positive rate is above the ceiling. The point
estimate is compared (as ``pass^k<FLOOR`` does); the message gives the interval too.
A statistic that is undefined, or that the score's scale does not report, trips the gate:
nothing then shows the agreement holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from autobench.report import Calibration

AGREEMENT_FLOORS = ("accuracy", "kappa", "kappa_linear", "kappa_quadratic", "tpr")
"""Statistics a ``NAME<FLOOR`` names; ``fpr>CEILING`` is the one ceiling."""

_BOUND = re.compile(
    r"(?P<name>accuracy|kappa_linear|kappa_quadratic|kappa|tpr)\s*(?P<op><)\s*(?P<value>\S+)"
    r"|(?P<cname>fpr)\s*(?P<cop>>)\s*(?P<cvalue>\S+)"
)


def agreement_bound(part: str) -> str | None:
    """``kappa < 0.6`` -> ``kappa<0.6`` (canonical), ``None`` when ``part`` names no
    agreement statistic. Raises ``click.BadParameter`` for a bound that is not a number in
    range ([-1, 1] for a kappa, [0, 1] otherwise) or a statistic with the wrong comparison."""
    match = _BOUND.fullmatch(part)
    if match is None:
        if re.match(r"(accuracy|kappa|tpr|fpr)\b", part):
            raise click.BadParameter(
                f"{part!r}: write a floor as kappa<0.6 ({', '.join(AGREEMENT_FLOORS)}) "
                "or a ceiling as fpr>0.1"
            )
        return None
    name = match.group("name") or match.group("cname")
    op = match.group("op") or match.group("cop")
    text = match.group("value") or match.group("cvalue")
    try:
        bound = float(text)
    except ValueError:
        raise click.BadParameter(f"{part!r}: {text!r} is not a number") from None
    low = -1.0 if name.startswith("kappa") else 0.0
    if not low <= bound <= 1:
        raise click.BadParameter(f"{part!r}: the bound is not in [{low:g}, 1]")
    return f"{name}{op}{bound!r}"


def is_agreement_bound(name: str) -> bool:
    """Whether a parsed ``--fail-on`` name is an agreement bound."""
    return _BOUND.fullmatch(name) is not None


def agreement_failures(
    calibrations: Iterable[Calibration], bounds: Iterable[str], *, where: str
) -> list[str]:
    """One line per bound a calibration breaks (or cannot show it holds). ``where`` says
    where the labels would come from, for the line when there is no calibration at all."""
    bounds = sorted(bounds)
    if not bounds:
        return []
    calibrations = list(calibrations)
    if not calibrations:
        return [f"{', '.join(bounds)}: no human labels to calibrate against ({where})"]
    problems = []
    for calibration in calibrations:
        for bound in bounds:
            match = _BOUND.fullmatch(bound)
            assert match is not None
            name = match.group("name") or match.group("cname")
            limit = float(match.group("value") or match.group("cvalue"))
            item = calibration.statistic(name)
            if item is None:
                problems.append(
                    f"{calibration.score}: {name} is not reported on a {calibration.scale} scale"
                )
                continue
            if item.estimate is None:
                problems.append(
                    f"{calibration.score}: {name} is undefined on its "
                    f"{calibration.items} labelled run(s)"
                )
                continue
            broken = item.estimate > limit if name == "fpr" else item.estimate < limit
            if broken:
                interval = (
                    "no interval"
                    if item.low is None or item.high is None
                    else f"{calibration.level:.0%} interval [{item.low:.3f}, {item.high:.3f}]"
                )
                problems.append(
                    f"{calibration.score}: {name} {item.estimate:.3f} "
                    f"{'>' if name == 'fpr' else '<'} {limit:g} "
                    f"({calibration.items} labelled runs; {interval})"
                )
    return problems
