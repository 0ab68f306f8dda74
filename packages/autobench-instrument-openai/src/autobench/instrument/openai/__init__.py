"""Autobench native instrumentation of the official OpenAI Python client (client layer).

One ``llm`` span per logical call of chat completions, responses and embeddings,
sync and async, plain, ``with_raw_response``, ``stream=True`` and the
``.stream()`` helpers, with model identity, token usage and the stream lifecycle
(see ``_calls`` for the span's attributes and usage, ``_facts`` for the usage keys).

Importing this package does not import ``openai``; ``install()`` does.

Seams, in the order of preference, and what was chosen (openai 3.x source):

1. Native hook: none fits. The SDK has no request/response callback of its own:
   ``SyncAPIClient.request`` (``_base_client.py``) offers only the overridable
   ``_prepare_options``/``_prepare_request`` on a client subclass, and the
   ``event_hooks`` of the ``httpx2`` client belong to the application (and to the
   transport layer's instrumentor); neither sees the parsed result or the stream.
2. Public wrapper point: none either. ``with_raw_response`` / the stream helpers
   wrap the bound ``create`` they read (``to_raw_response_wrapper(completions.create)``
   in ``CompletionsWithRawResponse.__init__``; ``partial(resource.create, ...,
   stream=True)`` in ``lib/_chat_completion_resources.stream``), they are not
   extension points.
3. Public method patch, the seam used: ``create`` of ``Completions`` /
   ``AsyncCompletions`` (``resources/chat/completions/completions.py``),
   ``Responses`` / ``AsyncResponses`` (``resources/responses/responses.py``) and
   ``Embeddings`` / ``AsyncEmbeddings`` (``resources/embeddings.py``), patched on the
   class with :class:`~autobench.abp._patching.MethodPatch`. Every path reaches them:
   ``with_raw_response.create`` calls the bound ``create`` with a raw-response
   header; ``chat.completions.stream()`` and ``responses.stream()`` call
   ``resource.create(..., stream=True)`` (``lib/_chat_completion_resources.py``,
   ``lib/_response_resources.py``), so a helper stream is recorded once, by
   ``create``. ``parse`` of chat completions and responses posts directly
   (``resource._post``), so it is patched too, and is recorded once as well.
   ``close`` of ``Stream`` / ``AsyncStream`` (``_streaming.py``) and of the helper
   streams (``ChatCompletionStream.close``, ``ResponseStream.close`` and their async
   forms, ``lib/streaming/``) is patched to record an early close: the helpers close
   the HTTP response directly (``self._response.close()``), not their raw stream.
4. Version-pinned private patch, where nothing public exists: the stream returned
   by ``create`` is handed back as the same object, but its private
   ``_iterator`` (set in ``Stream.__init__`` to ``self.__stream__()``, read by
   ``__next__`` and ``__iter__``) is wrapped, which is the only place every chunk
   passes, including the chunks the helpers pull through ``for ... in
   self._raw_stream``. Also read, not written: ``resource._client.base_url`` (the
   provider host), a helper's ``_raw_stream``, and ``LegacyAPIResponse`` from
   ``openai._legacy_response`` (the raw-response type, read through its public
   ``http_response``). These are pinned by ``SUPPORTED`` in ``package.py``.

A streamed call made through ``with_raw_response`` or ``with_streaming_response`` (the
OpenAI Agents SDK streams the Responses API so) is followed into the stream its
``parse()`` makes: ``parse`` of ``LegacyAPIResponse``, ``APIResponse`` and
``AsyncAPIResponse`` (``_legacy_response.py``, ``_response.py``) is patched too.

Not followed: a ``with_streaming_response`` call without ``stream=True`` (the caller
reads the body: the span counts the request, with an ``instrumentation.usage_unmeasured``
warning), ``responses.stream(response_id=...)`` (it resumes through ``retrieve``), and
the other endpoints (completions, images, audio, realtime, ...).
"""

from autobench.instrument.openai._instrumentor import OpenAIInstrumentor, create
from autobench.instrument.openai.package import INFO, SUPPORTED

__all__ = ["INFO", "SUPPORTED", "OpenAIInstrumentor", "create"]
