"""Plain-text rendering of a :class:`RunDiff`: lines for a terminal, a log or a test."""

from __future__ import annotations

from typing import Any

from autobench.report._run_diff_model import DiffStatus, RunDiff, SpanDiff, ToolCall

_MARKS = {
    DiffStatus.ADDED: "+",
    DiffStatus.REMOVED: "-",
    DiffStatus.CHANGED: "~",
    DiffStatus.SAME: " ",
}


def _number(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _signed(value: Any) -> str:
    if value is None:
        return "-"
    text = _number(value)
    return text if text.startswith("-") else f"+{text}"


def _span_line(span: SpanDiff) -> str:
    text = f"{_MARKS[span.status]} {'  ' * span.depth}{span.operation} [{span.kind}]"
    if span.ordinal:
        text += f" #{span.ordinal}"
    details = []
    only = span.right if span.left is None else span.left if span.right is None else None
    if only is not None:
        details.append(f"{_number(only.duration)}s")
        details.extend(f"{name} {_number(value)}" for name, value in only.metrics.items())
    if span.duration_delta is not None:
        details.append(f"duration {_signed(span.duration_delta)}s")
    details.extend(f"{name} {_signed(delta)}" for name, delta in span.metric_deltas.items())
    if span.changes:
        details.append("changed: " + ", ".join(span.changes))
    return f"{text}  ({'; '.join(details)})" if details else text


def _call(call: ToolCall | None) -> str:
    if call is None:
        return ""
    return f"{call.name}({_short(call.arguments)})"


def _short(value: Any, width: int = 40) -> str:
    text = "" if value is None else repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def run_diff_lines(diff: RunDiff, *, max_spans: int | None = None) -> list[str]:
    """``diff`` as lines of plain text (no trailing newlines): the two runs, the totals, the
    scores that changed, the aligned span tree (``+`` added, ``-`` removed, ``~`` changed,
    a space for the same; at most ``max_spans`` nodes, with a line saying how many were left
    out), the tool calls side by side and the output diff."""
    lines = [
        f"left:  {diff.left.run_id} ({diff.left.case_id} x {diff.left.variant_id}, "
        f"{diff.left.status}, {diff.left.spans} spans)",
        f"right: {diff.right.run_id} ({diff.right.case_id} x {diff.right.variant_id}, "
        f"{diff.right.status}, {diff.right.spans} spans)",
        "",
        "totals:",
    ]
    for total in diff.totals:
        unit = f" {total.unit}" if total.unit else ""
        lines.append(
            f"  {total.name}: {_number(total.left)} -> {_number(total.right)}{unit}"
            f" ({_signed(total.delta)})"
        )
    changed = diff.changed_scores
    lines.append("scores: " + ("no change" if not changed else f"{len(changed)} changed"))
    for score in changed:
        left = score.left_error or _number(score.left)
        right = score.right_error or _number(score.right)
        lines.append(f"  {score.name} ({score.status.value}): {left} -> {right}")
    counts = ", ".join(f"{count} {status}" for status, count in diff.span_counts.items())
    lines += ["", f"spans: {counts or 'none'}"]
    for side in (diff.left, diff.right):
        if not side.trace_loaded:
            lines.append(f"  (the trace of {side.run_id} was stored apart and not read)")
    shown = diff.spans if max_spans is None else diff.spans[:max_spans]
    lines.extend(_span_line(span) for span in shown)
    if len(shown) < len(diff.spans):
        lines.append(f"  ... {len(diff.spans) - len(shown)} more spans")
    lines += ["", f"tool calls: {len(diff.left_tools)} -> {len(diff.right_tools)}"]
    width = max((len(_call(step.left)) for step in diff.tool_steps), default=0)
    for step in diff.tool_steps:
        note = " (arguments differ)" if step.arguments_changed else ""
        lines.append(
            f"  {step.op.value:<7} {_call(step.left):<{width}} | {_call(step.right)}{note}"
        )
    lines += ["", "output: same" if diff.output_equal else "output:"]
    lines.extend(f"  {line}" for line in diff.output_diff)
    return lines
