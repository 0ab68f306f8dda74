"""Binding a recorded span as the active ABP span while its SDK span is open.

The SDK calls the processor on a span's start and end from the code that runs the
span, in its context. Binding the ABP span there makes it the parent of whatever
other instrumentors record meanwhile (the OpenAI client's span of the model call
under the ``response`` span, the HTTP span under that), which is the layered trace.

Ending restores what was active before, safely in every case the SDK allows:

* same context, span on top: the binding's token is reset (the normal case);
* another context that inherited the binding (an asyncio task created while the
  span was open ends it): its own copy is set back to the previous span, since the
  token belongs to the starting context and cannot be reset here;
* the span is not on top (spans ended out of order, or the binding lives in a
  context that is not the ending one): nothing is changed now, and the span is
  remembered as *released* with the span it replaced, so that whichever code later
  finds it active again (after unbinding what was above it) steps down past it.

Nothing here raises.
"""

from __future__ import annotations

from contextvars import Token
from dataclasses import dataclass

from autobench.abp import ActiveSpan, active_span
from autobench.abp._detached import bind_span, unbind_span

Released = dict[str, ActiveSpan | None]
"""ABP span id of an ended span -> the span that was active when it was bound."""


@dataclass(slots=True)
class Binding:
    """One ABP span made active in the context of its SDK span's start."""

    span: ActiveSpan
    previous: ActiveSpan | None
    token: Token[ActiveSpan | None] | None


def bind(span: ActiveSpan) -> Binding:
    """Make ``span`` the active span of the calling context."""
    previous = active_span()
    return Binding(span, previous, bind_span(span))


def release(binding: Binding, released: Released) -> None:
    """Undo ``binding`` in the calling context (see the module docstring)."""
    span = binding.span
    released[span.id] = binding.previous
    token, binding.token = binding.token, None
    if active_span() is span:
        try:
            if token is None:
                raise ValueError("already released")
            unbind_span(token)
        except (ValueError, RuntimeError):  # another context, or the token was used
            bind_span(binding.previous)
    step_down(released)


def step_down(released: Released) -> None:
    """While the active span is an ended span of ``released``, activate the one it replaced."""
    current = active_span()
    hops = 0
    while current is not None and current.ended and current.id in released and hops < 64:
        bind_span(released[current.id])
        current = active_span()
        hops += 1
