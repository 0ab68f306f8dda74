"""Retries and timeouts of a run's task call (``run: {timeout, retries}``).

* The retry loop is :mod:`tenacity`'s (``Retrying`` in a sync run's worker thread,
  ``AsyncRetrying`` on the loop for an async run): ``stop_after_attempt(attempts)``, the
  wait of :data:`WAITS` and a retry when the attempt's task raised an instance of one of
  the ``on`` classes (:meth:`RetryPolicy.retries`). The wait before a retry is slept by
  the run itself (it keeps its place among the active runs meanwhile).
* A timeout bounds each call of the task. An async task is cancelled at the deadline
  (``asyncio.timeout``). Cancelling needs the event loop: an async task that blocks it
  (``time.sleep`` or other blocking work in an ``async def``) cannot be stopped, so when
  the call ends, raising or not, after its deadline it is timed out all the same (its
  output discarded), and a call that ended more than :data:`LATE_DEADLINE` seconds past
  its deadline records the diagnostic ``timeout.overrun`` (``_run``). A sync task cannot be interrupted: it is called in a helper
  thread (:func:`call_with_deadline`) and, at the deadline, the run goes on without it:
  the attempt is errored with stage ``timeout``, and whatever the task does later (its
  result, its exception, spans or observations it records) is discarded. The helper
  thread is a daemon: it does not keep the process alive, and it no longer counts
  against the concurrency limit or the rate limits.
* A timed-out attempt raises :class:`TimeoutError`, so ``on: [TimeoutError]`` retries it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tenacity

from autobench.core.spec._models import RetrySpec

WAITS: dict[str, Callable[[RetrySpec], tenacity.wait.wait_base]] = {
    "fixed": lambda spec: tenacity.wait_fixed(spec.initial),
    "exponential": lambda spec: tenacity.wait_exponential(
        multiplier=spec.initial, min=0, max=spec.max
    ),
    "jitter": lambda spec: tenacity.wait_random_exponential(multiplier=spec.initial, max=spec.max),
}
"""``backoff`` name -> the tenacity wait of a :class:`RetrySpec` (formulas in its docstring)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """A :class:`RetrySpec` made ready to run: its exception classes resolved."""

    attempts: int
    wait: tenacity.wait.wait_base
    on: tuple[type[BaseException], ...]

    @classmethod
    def of(cls, spec: RetrySpec, base_dir: Path | None) -> RetryPolicy:
        """Raises ``ValueError`` for a name of ``spec.on`` that does not resolve."""
        return cls(spec.attempts, WAITS[spec.backoff](spec), spec.exception_types(base_dir))

    def retries(self, exc: BaseException) -> bool:
        """Whether an attempt that raised ``exc`` may be retried."""
        return isinstance(exc, self.on)

    def delay(self, attempt: int) -> float:
        """Seconds the retry loop waits after failed attempt number ``attempt`` (from 1)
        before the next one (the ``wait`` strategy's value for that attempt)."""
        state = tenacity.RetryCallState(tenacity.Retrying(), None, (), {})
        state.attempt_number = attempt
        return float(self.wait(state))

    def retrying(self, retry: Callable[[Any], bool]) -> dict[str, Any]:
        """The keyword arguments of ``tenacity.Retrying`` / ``AsyncRetrying``: retry while
        ``retry(result)`` (an attempt is a result, never an exception), and return the last
        attempt when they run out."""
        return {
            "stop": tenacity.stop_after_attempt(self.attempts),
            "wait": self.wait,
            "retry": tenacity.retry_if_result(retry),
            "retry_error_callback": _last_result,
        }


def _last_result(state: tenacity.RetryCallState) -> Any:
    assert state.outcome is not None
    return state.outcome.result()


LATE_DEADLINE = 0.1
"""Seconds past its deadline an async call may end (the loop's own delay in delivering the
cancellation, the task unwinding) before the event loop counts as held."""


def past_deadline(deadline: asyncio.Timeout | None) -> float | None:
    """Seconds (>= 0) the running loop's clock is past ``deadline``; ``None`` without a
    deadline or before it."""
    when = None if deadline is None else deadline.when()
    if when is None:
        return None
    late = asyncio.get_running_loop().time() - when
    return late if late >= 0 else None


class TaskTimedOut(TimeoutError):
    """A task call ran past the run's ``timeout`` (seconds)."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"the task did not finish within the timeout of {timeout:g} s")
        self.timeout = timeout


def call_with_deadline(call: Callable[[], Any], timeout: float) -> Any:
    """``call()`` in a daemon helper thread (in a copy of the caller's context); its result
    or exception, or :class:`TaskTimedOut` once ``timeout`` seconds have passed (the
    helper thread then runs on, and what it does is discarded)."""
    context = contextvars.copy_context()
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def target() -> None:
        try:
            result = context.run(call)
        except BaseException as exc:  # handed to the caller, who decides
            future.set_exception(exc)
        else:
            future.set_result(result)

    threading.Thread(target=target, name="autobench-task", daemon=True).start()
    try:
        return future.result(timeout)
    except TimeoutError:
        if future.done():
            raise  # the task's own TimeoutError
        raise TaskTimedOut(timeout) from None
