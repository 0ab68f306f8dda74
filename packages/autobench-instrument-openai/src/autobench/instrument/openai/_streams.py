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

Another instrumentation may hand the caller its own object instead of the SDK stream
(opentelemetry-instrumentation-openai-v2 returns a ``ChatStreamWrapper`` holding the stream
in ``.stream``; a wrapt ``ObjectProxy`` exposes it as ``__wrapped__``). Such a wrapper still
reads the SDK stream's iterator for every chunk, so :func:`underlying` finds the SDK
stream inside it and the same tracking applies: the observations do not depend on which
instrumentation was installed first, and each chunk is seen once.

A streamed call made through ``with_raw_response`` or ``with_streaming_response`` returns an
HTTP response object whose ``parse()`` makes the stream later (the OpenAI Agents SDK streams
the Responses API that way). Its span stays open meanwhile: :func:`await_parse` remembers the
response (weakly) with the span's tracker, watched so that a response dropped without being
parsed ends the span as ``abandoned`` and one still unparsed at run end as
``open_at_run_end``; the patched ``parse`` (``_wrappers.parse_wrapper``) hands the tracker to
the stream it returned (:func:`follow_parsed`), which is then followed as any other. A
wrapper that parses first (opentelemetry-instrumentation-openai-v2 calls ``parse()`` itself
and returns its own stream wrapper) is followed the same way, whichever was installed first.

Streams are remembered in a weak mapping (stream -> tracker) so a ``close``
call can find its span and so an installation can abandon its open streams
when it is uninstalled; nothing here keeps a stream alive.
"""

from __future__ import annotations

import inspect
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
    end_reason_for,
)
from autobench.instrument.openai._apis import StreamState
from autobench.instrument.openai._facts import note_unmeasured

logger = logging.getLogger("autobench.instrument.openai")

EXTRACTION_ERROR = "instrumentation.extraction_error"
STREAM_UNTRACKED = "instrumentation.openai.stream_untracked"
"""Warning on the span of a streamed call whose SDK stream could not be followed."""

_STREAMS: weakref.WeakKeyDictionary[Any, StreamTracker] = weakref.WeakKeyDictionary()
_UNPARSED: weakref.WeakKeyDictionary[Any, StreamTracker] = weakref.WeakKeyDictionary()
"""HTTP response object of a streamed call -> the tracker of its span, until ``parse()``."""


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


_WRAPPER_DEPTH = 4
"""How many wrappers deep :func:`underlying` looks for the SDK object."""

_LEAVES = (str, bytes, bytearray, int, float, bool, type(None), list, tuple, dict, set, type)


def _wrapped(candidate: Any) -> Any:
    """The object a wrapt-style proxy wraps (its ``__wrapped__``), else ``None``. Looked up
    on the type first, so a wrapper's forwarding ``__getattr__`` is never asked."""
    try:
        inspect.getattr_static(candidate, "__wrapped__")
        return candidate.__wrapped__
    except Exception:  # no such attribute, or a proxy whose target is gone
        return None


def _held(candidate: Any) -> list[Any]:
    """The objects ``candidate`` holds in its instance attributes (``__dict__`` and slots),
    leaving out plain values (strings, numbers, containers, classes)."""
    values: list[Any] = []
    try:
        attributes = object.__getattribute__(candidate, "__dict__")
    except AttributeError:
        attributes = {}
    values.extend(attributes.values())
    for klass in type(candidate).__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            if isinstance(name, str) and not name.startswith("__"):
                try:
                    values.append(object.__getattribute__(candidate, name))
                except AttributeError:
                    continue
    return [value for value in values if not isinstance(value, _LEAVES)]


def underlying(result: Any, streams: tuple[type, ...]) -> Any | None:
    """The SDK object (an instance of one of ``streams``: a stream, or an HTTP response
    object) that ``result`` is or wraps, else ``None``.

    Looks through up to ``_WRAPPER_DEPTH`` layers of wrappers, breadth first: a wrapt-style
    proxy is followed through its ``__wrapped__`` (it passes ``isinstance`` checks for the
    type it wraps, so it is unwrapped before being tested), any other object through the
    objects its instance attributes hold. Reading never calls the wrapper's methods.
    """
    seen: set[int] = set()
    layer = [result]
    for _ in range(_WRAPPER_DEPTH + 1):
        below: list[Any] = []
        for candidate in layer:
            if id(candidate) in seen:
                continue
            seen.add(id(candidate))
            inner = _wrapped(candidate)
            if inner is not None:
                below.append(inner)
            elif isinstance(candidate, streams):
                return candidate
            else:
                below.extend(_held(candidate))
        if not below:
            return None
        layer = below
    return None


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


def await_parse(response: Any, tracker: StreamTracker) -> bool:
    """Keep ``tracker``'s span open until ``response`` (an HTTP response object of a
    streamed call) is parsed (module docstring); ``False`` when ``response`` cannot be
    remembered (not weak-referenceable: the caller then ends the span itself)."""
    try:
        _UNPARSED[response] = tracker
    except TypeError:
        return False
    tracker.watch(response)
    return True


def follow_parsed(response: Any, result: Any, streams: tuple[type, ...]) -> None:
    """Hand the span waiting on ``response`` (if any) to the SDK stream in ``result``, what
    its ``parse()`` returned. When ``result`` holds no SDK stream, or the stream is already
    followed, the span ends at once (reason ``untracked``) with the
    ``instrumentation.openai.stream_untracked`` warning."""
    try:
        tracker = _UNPARSED.pop(response, None)
    except TypeError:
        return
    if tracker is None or tracker.detached.ended:
        return
    stream = underlying(result, streams)
    if stream is not None and open_tracker(stream) is None and track(stream, tracker):
        return
    tracker.detached.span.add_diagnostic(
        STREAM_UNTRACKED,
        f"parse() returned a {type(result).__qualname__} in which no SDK stream could be "
        "followed; the request is counted, its tokens are unmeasured",
    )
    tracker.finish("untracked")


def parse_failed(response: Any, error: BaseException) -> None:
    """End the span waiting on ``response`` (if any): its ``parse()`` raised ``error``."""
    try:
        tracker = _UNPARSED.pop(response, None)
    except TypeError:
        return
    if tracker is not None:
        tracker.finish(end_reason_for(error), error)
