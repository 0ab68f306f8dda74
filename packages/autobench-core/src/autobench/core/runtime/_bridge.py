"""From a run's worker thread to the experiment's event loop: await something there and wait.

A sync task's run executes in a worker thread with no event loop running (see
``_threads``). Two things of such a run still belong on the experiment's loop:
an awaitable returned by the sync task, and scorers that may suspend. The
worker thread hands them over with :func:`run_on_loop` and blocks until they
finish, so the run keeps its concurrency slot meanwhile, as any active run does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Awaitable
from typing import Any

_POLL_SECONDS = 0.1
"""How often a waiting worker thread checks that the loop has not been closed under it."""


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _transfer(task: asyncio.Task[Any], waiter: concurrent.futures.Future[Any]) -> None:
    if task.cancelled():
        waiter.set_exception(asyncio.CancelledError())
    elif (exc := task.exception()) is not None:
        waiter.set_exception(exc)
    else:
        waiter.set_result(task.result())


def run_on_loop(loop: asyncio.AbstractEventLoop, awaitable: Awaitable[Any]) -> Any:
    """Await ``awaitable`` in a task on ``loop`` and return its result (or raise its exception).

    Call from a thread other than the loop's. The task runs in a copy of the
    caller's :mod:`contextvars` context, so spans opened there nest under the
    caller's active span. A task cancelled by the loop's shutdown raises
    :class:`asyncio.CancelledError` here; a loop closed before the task starts
    raises ``RuntimeError``.
    """
    context = contextvars.copy_context()
    waiter: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def start() -> None:
        task = loop.create_task(_await(awaitable), context=context)
        task.add_done_callback(lambda done: _transfer(done, waiter))

    loop.call_soon_threadsafe(start)
    while True:
        try:
            return waiter.result(timeout=_POLL_SECONDS)
        except TimeoutError:
            if loop.is_closed():
                raise RuntimeError("the experiment's event loop closed during the run") from None
