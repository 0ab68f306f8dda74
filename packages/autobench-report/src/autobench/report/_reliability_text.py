"""Reliability over repeats in words and table rows, shared by the terminal report and
Markdown (:mod:`autobench.report._reliability` computes it)."""

from __future__ import annotations

from autobench.report._model import CaseReliability, Reliability, VariantReliability


def share_text(value: float | None) -> str:
    """A share in ``[0, 1]`` with three decimals (``"no value"`` for ``None``)."""
    return "no value" if value is None else f"{value:.3f}"


def interval_text(low: float | None, high: float | None) -> str:
    """``[low, high]`` with three decimals (empty when either bound is missing)."""
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def title(reliability: Reliability) -> str:
    """The section title: the repeats and the interval method."""
    return (
        f"Reliability over repeats (k = {reliability.k}; {reliability.level:.0%} Wilson "
        "intervals over cases)"
    )


def variant_header(reliability: Reliability) -> list[str]:
    k = reliability.k
    level = f"{reliability.level:.0%}"
    return ["variant", "cases", f"pass@{k}", f"{level} interval", f"pass^{k}", f"{level} interval"]


def variant_row(item: VariantReliability) -> list[str]:
    return [
        item.variant,
        str(item.cases),
        share_text(item.pass_at_k),
        interval_text(item.pass_at_k_low, item.pass_at_k_high),
        share_text(item.pass_hat_k),
        interval_text(item.pass_hat_k_low, item.pass_hat_k_high),
    ]


def unsteady_cases(reliability: Reliability) -> list[tuple[str, CaseReliability]]:
    """``(variant, case)`` for every case that did not pass in all its recorded runs."""
    return [
        (item.variant, case)
        for item in reliability.variants
        for case in item.by_case
        if case.passed < case.runs
    ]


def case_header(reliability: Reliability) -> list[str]:
    k = reliability.k
    return ["case", "variant", "passed", f"pass@{k}", f"pass^{k}", "pass rate interval", "flaky"]


def case_row(variant: str, case: CaseReliability) -> list[str]:
    return [
        case.case,
        variant,
        f"{case.passed} of {case.runs}",
        share_text(case.pass_at_k),
        share_text(case.pass_hat_k),
        interval_text(case.pass_rate_low, case.pass_rate_high),
        "flaky" if case.flaky else "",
    ]


def _names(cases: tuple[str, ...], limit: int | None) -> str:
    if limit is None or len(cases) <= limit:
        return ", ".join(cases)
    return ", ".join(cases[:limit]) + f" and {len(cases) - limit} more"


def notes(reliability: Reliability, limit: int | None = None) -> list[str]:
    """What the table does not say: the flaky cases of each variant (passed in some repeats,
    failed in others) and the cases left out for having fewer than ``k`` runs; at most
    ``limit`` case ids a line (``None``: all)."""
    lines = []
    for item in reliability.variants:
        if item.flaky:
            lines.append(
                f"{item.variant}: flaky (passed in some repeats, not in others): "
                + _names(item.flaky, limit)
            )
        if item.short:
            lines.append(
                f"{item.variant}: fewer than {reliability.k} runs recorded, left out: "
                + _names(item.short, limit)
            )
    if not any(item.flaky for item in reliability.variants):
        lines.append("no flaky case: every case passed in all its repeats or in none")
    return lines
