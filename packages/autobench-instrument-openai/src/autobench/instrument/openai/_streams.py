"""Keeping an OpenAI span open while its ``Stream`` / ``AsyncStream`` is consumed.

The SDK's stream object is returned to the caller unchanged (same object, same
type). Only its private iterator is replaced: ``Stream.__init__`` stores
``self._iterator = self.__stream__()`` (openai ``_streaming.py``) and both
``__next__`` and ``__iter__`` read that attribute, so wrapping it in the ABP
:class:`~autobench.abp._streams.InstrumentedGenerator` (or its async form)
sees every chunk without touching the public surface. The wrapper binds the
OpenAI span as the active span while each chunk is read, so the HTTP layer's
work during the stream nests under it, and ends the span when the stream
completes (``completed``), raises (``error`` / ``cancelled``), is closed early
(``closed``, through the patched ``close`` methods, see ``_wrappers``), is
garbage-collected unfinished (``abandoned``, a partial span) or is still open when
the run ends (``open_at_run_end``, a partial span with the model, response id,
usage and output read so far).

Streams are remembered in a weak mapping (stream -> tracker) so a ``close``
call can find its span and so an installation can abandon its open streams
when it is uninstalled; nothing here keeps a stream alive.
"""

from __future__ import annotations

import logging
import weakref
from types import AsyncGeneratorType, GeneratorType
from typing import Any

from autobench.abp import InstrumentCall
from autobench.abp._detached import DetachedSpan
from autobench.abp._streams import (
    CallTracker,
    InstrumentedAsyncGenerator,
    InstrumentedGenerator,
)
from autobench.instrument.openai._apis import StreamState
from autobench.instrument.openai._facts import note_unmeasured

logger = logging.getLogger("autobench.instrument.openai")

EXTRACTION_ERROR = "instrumentation.extraction_error"

_STREAMS: weakref.WeakKeyDictionary[Any, StreamTracker] = weakref.WeakKeyDictionary()


def _nothing(tracker: CallTracker) -> None:
    return None


class StreamTracker(CallTracker):
    """The ABP call tracker of one OpenAI stream, feeding each item to a :class:`StreamState`.

    ``owner`` is the installation that opened the span (its uninstall abandons the
    stream). Failures of the state's readers become an ``instrumentation.extraction_error``
    diagnostic on the span; they never reach the application's iteration.
    """

    __slots__ = ("capture_output", "owner", "state")

    def __init__(
        self, detached: DetachedSpan, state: StreamState, *, capture_output: bool, owner: object
    ) -> None:
        super().__init__(detached, InstrumentCall("openai.stream", None, (), {}), _nothing)
        self.state = state
        self.capture_output = capture_output
        self.owner = owner

    def item(self, value: Any) -> None:
        """Count the item (first-item time, item count) and record its facts."""
        super().item(value)
        span = self.detached.span
        if span.ended:
            return
        try:
            self.state.observe(span, value)
        except Exception as exc:
            span.add_diagnostic(
                EXTRACTION_ERROR, f"openai stream item: {type(exc).__name__}: {exc}"
            )

    def finish(
        self, reason: str, error: BaseException | None = None, *, partial: bool = False
    ) -> None:
        """End the span with ``reason``; the captured output so far becomes its output. A
        stream that completed without reporting usage gets the ``usage_unmeasured``
        diagnostic (``_facts.note_unmeasured``)."""
        if self.detached.ended:
            return
        span = self.detached.span
        if self.capture_output:
            try:
                span.set_output(self.state.output())
            except Exception:  # output capture must never break the stream
                logger.exception("openai instrumentation: stream output capture failed")
        if reason == "completed":
            note_unmeasured(span, "the stream ended without a usage chunk")
        super().finish(reason, error, partial=partial)


def track(stream: Any, tracker: StreamTracker) -> bool:
    """Route ``stream``'s items through ``tracker``; ``False`` when the SDK stream has no
    generator in ``_iterator`` (an SDK change: the caller then ends the span itself)."""
    iterator = getattr(stream, "_iterator", None)
    if isinstance(iterator, GeneratorType):
        stream._iterator = InstrumentedGenerator(iterator, tracker)
    elif isinstance(iterator, AsyncGeneratorType):
        stream._iterator = InstrumentedAsyncGenerator(iterator, tracker)
    else:
        return False
    _STREAMS[stream] = tracker
    return True


def open_tracker(stream: Any) -> StreamTracker | None:
    """The tracker of ``stream`` while its span is still open, else ``None``."""
    try:
        tracker = _STREAMS.get(stream)
    except TypeError:  # not weak-referenceable: not one of ours
        return None
    if tracker is None or tracker.detached.ended:
        return None
    return tracker


def abandon_streams(owner: object) -> int:
    """Abandon (end as partial) every open stream span ``owner`` opened; return how many."""
    count = 0
    for tracker in list(_STREAMS.values()):
        if tracker.owner is owner and not tracker.detached.ended:
            tracker.abandon()
            count += 1
    return count
