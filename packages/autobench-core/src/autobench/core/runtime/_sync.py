"""Calling a coroutine function from plain (synchronous) code, with a clear refusal inside
a running event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class RunningLoopError(RuntimeError):
    """A synchronous entry point was called from inside a running event loop, where it
    cannot block; the message names the coroutine function to await instead."""


def run_sync(coroutine: Coroutine[Any, Any, T], *, name: str, instead: str) -> T:
    """Run ``coroutine`` to completion in a new event loop (``asyncio.run``) and return its
    result. ``name`` is the synchronous function being called and ``instead`` the awaitable
    call to use from async code; both appear in the :class:`RunningLoopError` raised (after
    closing ``coroutine`` unstarted) when an event loop is already running in this thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise RunningLoopError(
        f"{name}() runs its own event loop and cannot be called from inside a running one "
        f"(async code, Jupyter); use `{instead}` there"
    )
