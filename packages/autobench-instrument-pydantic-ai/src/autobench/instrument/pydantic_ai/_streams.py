"""A streamed model request opened under its span, whichever task opens it.

:class:`SpanBindingModel` is the public ``WrapperModel`` of Pydantic AI
(``pydantic_ai/models/wrapper.py``) around the model serving one streamed request.
Its ``request_stream`` makes the request's ABP span the active span only while the
wrapped model *opens* the stream (the client call and the HTTP request start then,
and take it as their parent), and not while the stream is read: code the caller runs
between chunks keeps its own active span. Everything else is the wrapped model's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from autobench.abp._detached import DetachedSpan, bind_span, unbind_span
from pydantic_ai.models.wrapper import WrapperModel


class SpanBindingModel(WrapperModel):
    """``model``, whose streams open with ``span`` active (see the module docstring)."""

    def __init__(self, model: Any, span: DetachedSpan) -> None:
        super().__init__(model)
        self._span = span

    @asynccontextmanager
    async def request_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        opened = self.wrapped.request_stream(*args, **kwargs)
        token = bind_span(self._span.span)
        try:
            stream = await opened.__aenter__()
        finally:
            unbind_span(token)
        try:
            yield stream
        except BaseException as exc:
            if not await opened.__aexit__(type(exc), exc, exc.__traceback__):
                raise
        else:
            await opened.__aexit__(None, None, None)
