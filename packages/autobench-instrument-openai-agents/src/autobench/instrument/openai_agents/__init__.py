"""Autobench native instrumentation of the OpenAI Agents SDK (framework layer).

The SDK's own traces become ABP spans: one ``workflow`` span per SDK trace, and one
span per SDK span beneath it (agents, model calls as ``llm`` spans with model identity
and usage, function tools, handoffs, guardrails, custom spans; see ``_mapping`` for the
table), with the SDK's parentage, under the span that was active where the workflow
started. Each span is the active ABP span while its SDK span runs, so the OpenAI
client's and HTTPX's spans of a model call nest under its ``llm`` span.

Importing this package does not import ``agents``; ``install()`` does.

Seams, in the order of preference, and what was chosen (openai-agents 0.24 source):

1. Native hook, the seam used: the trace processor interface
   (``agents.tracing.TracingProcessor``), registered with the global trace provider's
   public ``register_processor`` (``agents.add_trace_processor`` calls it;
   ``agents/tracing/provider.py``). The SDK calls every registered processor
   synchronously on each trace and span start and end, in the context of the code that
   runs it, for every run (``Runner.run``, ``run_sync``, ``run_streamed``) and for spans
   the application opens itself (``agents.custom_span``, ``agents.trace``). Processors the
   application or the SDK registered (the default OpenAI exporter) are left as they are
   and keep receiving every event.
2. Public wrapper point: ``RunHooks`` / ``AgentHooks`` were considered and not chosen:
   they must be passed to each ``Runner.run`` call by the application (nothing installs
   them globally) and see neither guardrails, custom spans nor the SDK's parentage.
3. Public method patch: not needed; nothing is patched.
4. Version-pinned private access, only to undo the install: the SDK offers no public way
   to remove one processor (``set_trace_processors`` replaces the whole list and nothing
   returns the list), so ``close`` removes ours from ``DefaultTraceProvider``'s private
   ``_multi_processor._processors`` under its ``_lock`` (``_install``). Pinned by
   ``SUPPORTED`` in ``package.py``.

SDK tracing disabled (``set_tracing_disabled(True)``, ``RunConfig(tracing_disabled=True)``
or ``OPENAI_AGENTS_DISABLE_TRACING``): the SDK then creates no-op traces and spans and calls
no processor, so no framework span is recorded; the instrumentor does not override the
application's choice. The client and transport instrumentors still record their spans, under
the span active in the task. With ``trace_include_sensitive_data`` off the SDK keeps no
model or tool inputs and outputs, so the spans have no response model, id or payloads (usage
is kept).

Not followed: a resumed run whose trace is reattached from a ``RunState`` (the SDK emits no
trace start for it: its spans open under the span active in the calling context); a trace
provider the application installs after this instrumentor (``set_trace_provider``); the
processor dropped by the application's own ``set_trace_processors``.
"""

from autobench.instrument.openai_agents._instrumentor import OpenAIAgentsInstrumentor, create
from autobench.instrument.openai_agents.package import INFO, SUPPORTED

__all__ = ["INFO", "SUPPORTED", "OpenAIAgentsInstrumentor", "create"]
