"""The ``autobench`` process ends when its command has: a thread a task left running does
not keep it alive.

Python waits for every non-daemon thread before a process exits, so a task that starts
one and never stops it (a poller, a client's background worker) would keep ``autobench
run`` alive after its records are complete, possibly for ever. When the command has
ended (click has printed its last word and asked to exit), the process exits as usual
if those threads end within :data:`LINGER_GRACE` seconds (an idle thread pool's workers
are told to stop by Python itself at this point). Otherwise a warning on stderr names
each thread still running, the exit handlers (``atexit``) get the same grace, and the
process exits with the command's exit code without waiting for them.

Only for the console script (:func:`autobench.cli._app.main`): commands run inside
another program (an embedding application, click's test runner) leave its threads to it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading

LINGER_GRACE = 2.0
"""Seconds the process waits for non-daemon threads, then for exit handlers, once the
command has ended."""


def exit_despite_threads(code: object) -> None:
    """Make sure the process exits with ``code`` (a ``SystemExit`` code: ``None`` is 0, an
    int itself, anything else 1) once the command has ended: when non-daemon threads
    other than the main one are alive, start a daemon watchdog that, if they are still
    alive :data:`LINGER_GRACE` seconds later, warns on stderr naming them and ends the
    process (``os._exit``). Returns at once."""
    if not _lingering():
        return
    status = 0 if code is None else code if isinstance(code, int) else 1
    threading.Thread(
        target=_watch, args=(status,), name="autobench-exit-watchdog", daemon=True
    ).start()


def _lingering() -> list[threading.Thread]:
    main = threading.main_thread()
    return [
        thread
        for thread in threading.enumerate()
        if thread is not main and not thread.daemon and thread.is_alive()
    ]


def _watch(status: int) -> None:
    # A daemon thread: it runs while the interpreter waits for the non-daemon threads,
    # and dies with the process when they end in time.
    threading.Event().wait(LINGER_GRACE)
    left = _lingering()
    if not left:
        return
    names = ", ".join(repr(thread.name) for thread in left)
    sys.stderr.write(
        f"Warning: the command has ended (its records are complete), but "
        f"{'a thread' if len(left) == 1 else f'{len(left)} threads'} a task started "
        f"{'is' if len(left) == 1 else 'are'} still running after {LINGER_GRACE:g} s and "
        f"not daemon: {names}. Exiting without waiting for "
        f"{'it' if len(left) == 1 else 'them'} (stop such threads in the task, or start "
        "them with daemon=True).\n"
    )
    handlers = threading.Thread(target=atexit._run_exitfuncs, name="autobench-atexit", daemon=True)
    handlers.start()
    handlers.join(LINGER_GRACE)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
