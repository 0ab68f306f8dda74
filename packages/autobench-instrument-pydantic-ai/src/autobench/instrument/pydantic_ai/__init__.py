"""Autobench native instrumentation of Pydantic AI agents (framework layer).

Every agent run inside a benchmark run records an ``agent`` span with its model
requests (``llm``), tool calls (``tool``) and final output validation (``parser``)
beneath it, with model identity and per-request token usage; the run's own usage
roll-up is kept on the agent span as aggregate evidence (see ``_capability`` for the
spans, ``_facts`` for the usage fields). Importing this package does not import
``pydantic_ai``; ``install()`` does.

Seams, in the order of preference, and what was chosen (pydantic-ai-slim 2.62 source):

1. Native hook, the seam used: Pydantic AI's public capability API
   (``pydantic_ai.capabilities.AbstractCapability``): ``wrap_run``,
   ``wrap_model_request`` (streamed requests too: the hook spans the whole stream),
   ``wrap_tool_execute`` and ``wrap_output_validate``, with ``for_run`` giving each
   run its own copy. Pydantic AI's ``Instrumentation`` capability is OpenTelemetry's
   and is neither configured nor required; user capabilities compose unchanged.
2. Public wrapper point: a capability reaches a run through ``Agent(capabilities=...)``
   or ``Agent.iter(..., capabilities=...)``; there is no process-wide registry of
   default capabilities (``Agent.instrument_all`` sets OpenTelemetry settings only).
3. Public method patch, used to reach agents the task builds anywhere: ``Agent.iter``
   gets the capability appended to its public ``capabilities=`` argument while a run
   is active (see ``_install``); ``run``, ``run_sync``, ``run_stream`` and the wrapper
   agents all call it.
4. Version-pinned private patch: none.

Not followed: agents that do not derive from ``Agent`` (a durable-execution agent
running its steps elsewhere), first-chunk latency of a streamed request (the hooks
do not see chunks; the OpenAI client instrumentor records it beneath), and
``on_event`` (registering it would switch runs to streaming mode).
"""

from autobench.instrument.pydantic_ai._assets import AssetRef
from autobench.instrument.pydantic_ai._instrumentor import (
    PydanticAI,
    PydanticAIInstrumentor,
    create,
)
from autobench.instrument.pydantic_ai.package import INFO, SUPPORTED

__all__ = ["INFO", "SUPPORTED", "AssetRef", "PydanticAI", "PydanticAIInstrumentor", "create"]
