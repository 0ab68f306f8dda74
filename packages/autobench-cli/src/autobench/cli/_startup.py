"""``autobench run``'s start-up without the cyclic garbage collector.

Before its first run the command imports the runtime, the records, the report, the plugins
and the user's task, and loads the spec, whose dataset may be thousands of cases (tens of
thousands of parsed YAML nodes). All of it stays alive until the process exits, yet every
young collection meanwhile walks it, and so does every full collection while the runs go on.
In the ``autobench`` console script (:data:`autobench.cli._app.OWNS_PROCESS`),
:func:`startup_collection` turns automatic collection off for the start-up; when the runs
begin, what start-up built is frozen out of the collector's sight (``gc.freeze``) and
collection is turned back on, so collections during the runs walk only what the runs build.

While the runs go on, the objects an experiment keeps (the evidence of every finished run,
for the summary and the closing report) pile up in the oldest generation, and each full
collection walks all of them: 20,000 trivial runs saw full collections of up to a quarter of
a second, each one a pause of the event loop. So after every full collection, what survived
it (all of it reachable: the collection has just removed the cyclic garbage) is frozen too,
and the next full collection walks only what was kept since; full collections also come ten
times less often while the runs go on (``rarer_full_collections``). An object frozen while alive
that later dies is still freed by reference counting; only one that later becomes part of an
unreachable cycle stays until exit.

Start-up leaves few objects of cyclic garbage (about 130 for a 2,000-case spec, 800 for a
500,000-case one), but among them a loader holding the spec's text: they are collected once,
just before the freeze, rather than kept until exit. A program that runs the command itself (``OWNS_PROCESS`` false) gets its
collector untouched. Figures: docs/performance.md ("Start-up without the cyclic
collector").
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from autobench.cli import _app


@contextmanager
def startup_collection() -> Iterator[Callable[[], None]]:
    """Automatic collection off from here until the returned ``runs_begin()`` is called (or
    the block ends, whichever is first), in the console script only; ``runs_begin`` freezes
    the objects built so far, turns collection back on (if it was on) and, until the block
    ends, freezes what survives each full collection (module docstring)."""
    owned = _app.OWNS_PROCESS
    paused = owned and gc.isenabled()
    if paused:
        gc.disable()

    installed: list[Callable[[str, dict[str, int]], None]] = []
    restore: list[Callable[[], None]] = []

    def runs_begin() -> None:
        nonlocal paused
        if paused:
            paused = False
            # Start-up's cyclic garbage goes first: frozen, it would stay until exit. Few
            # objects, but a spec's loader is one of them and holds the spec's text (about
            # 86 MB of a 500,000-case spec): one collection, once per command.
            gc.collect()
            gc.freeze()
            gc.enable()
        if owned and not installed:
            # The runtime's own (imported by now): the session, seeing it installed, leaves
            # the collector to this command until exit (no unfreeze before the report).
            from autobench.core.runtime._collection import (
                freeze_survivors,
                rarer_full_collections,
            )

            if freeze_survivors not in gc.callbacks:
                gc.callbacks.append(freeze_survivors)
                installed.append(freeze_survivors)
                restore.append(rarer_full_collections())

    try:
        yield runs_begin
    finally:
        if paused:
            gc.enable()
        for callback in installed:
            if callback in gc.callbacks:
                gc.callbacks.remove(callback)
        for undo in restore:
            undo()
