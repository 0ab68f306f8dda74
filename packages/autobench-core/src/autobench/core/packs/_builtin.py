"""The built-in metric packs, drawn from the built-in semantic catalog."""

from __future__ import annotations

from autobench.core.packs._model import MetricPack, MetricPackRegistry
from autobench.records import DEFAULT_SEMANTIC_REGISTRY, Semantic, SemanticDefinition


def _catalog(*names: str) -> dict[str, SemanticDefinition]:
    """The built-in definitions of ``names`` (each must be in the built-in catalog)."""
    return {name: DEFAULT_SEMANTIC_REGISTRY.types[name] for name in names}


AGENTIC_PACK = MetricPack(
    name="agentic",
    description="Agent task completion, plan and tool-call quality, output correctness.",
    semantic_types=_catalog(
        Semantic.AGENT_TASK_COMPLETION,
        Semantic.AGENT_PLAN_QUALITY,
        Semantic.AGENT_PLAN_ADHERENCE,
        Semantic.AGENT_STEP_EFFICIENCY,
        Semantic.AGENT_TOOL_NAME,
        Semantic.AGENT_TOOL_SELECTION_CORRECTNESS,
        Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS,
        Semantic.AGENT_TOOL_SEQUENCE_CORRECTNESS,
        Semantic.AGENT_OUTPUT_CORRECTNESS,
        Semantic.AGENT_OUTPUT_STRUCTURE_VALIDITY,
        Semantic.AGENT_VERSION,
        Semantic.AGENT_TOOL_VERSION,
    ),
    scorer_factories=("expected_action",),
    default_report_metrics=(
        Semantic.AGENT_TASK_COMPLETION,
        Semantic.AGENT_TOOL_SELECTION_CORRECTNESS,
        Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS,
        Semantic.AGENT_TOOL_SEQUENCE_CORRECTNESS,
        Semantic.AGENT_OUTPUT_CORRECTNESS,
    ),
    feedback_extractors=("span", "signal"),
)

STRUCTURED_OUTPUT_PACK = MetricPack(
    name="structured_output",
    description="Schema validity and exact-match correctness of structured outputs.",
    semantic_types=_catalog(
        Semantic.QUALITY_CORRECTNESS,
        Semantic.AGENT_OUTPUT_STRUCTURE_VALIDITY,
        Semantic.WORKFLOW_VALIDATION_FAILURES,
    ),
    scorer_factories=("schema", "exact"),
    default_report_metrics=(
        Semantic.AGENT_OUTPUT_STRUCTURE_VALIDITY,
        Semantic.QUALITY_CORRECTNESS,
    ),
    feedback_extractors=("signal",),
)

LLM_USAGE_PACK = MetricPack(
    name="llm_usage",
    description="Token usage, request counts, model identity and serving cost.",
    semantic_types=_catalog(
        Semantic.LLM_TOKENS_INPUT,
        Semantic.LLM_TOKENS_OUTPUT,
        Semantic.LLM_TOKENS_TOTAL,
        Semantic.LLM_TOKENS_CACHE_READ,
        Semantic.LLM_TOKENS_CACHE_WRITE,
        Semantic.LLM_TOKENS_REASONING,
        Semantic.LLM_REQUEST_COUNT,
        Semantic.LLM_MODEL_NAME,
        Semantic.LLM_MODEL_REQUESTED,
        Semantic.LLM_MODEL_RESPONSE,
        Semantic.LLM_PROVIDER,
        Semantic.SERVER_ADDRESS,
        Semantic.MONEY_COST,
        Semantic.SERVING_COST,
    ),
    default_report_metrics=(
        Semantic.LLM_TOKENS_INPUT,
        Semantic.LLM_TOKENS_OUTPUT,
        Semantic.LLM_REQUEST_COUNT,
        Semantic.MONEY_COST,
    ),
    feedback_extractors=("usage",),
)

PERFORMANCE_PACK = MetricPack(
    name="performance",
    description="Latency, time to first chunk, critical path, parallelism and speedup.",
    semantic_types=_catalog(
        Semantic.TIME_LATENCY,
        Semantic.TIME_FIRST_CHUNK,
        Semantic.TIME_CRITICAL_PATH,
        Semantic.PERFORMANCE_SPEEDUP,
        Semantic.OPERATION_PARALLELISM,
        Semantic.OPERATION_RETRIES,
    ),
    default_report_metrics=(
        Semantic.TIME_LATENCY,
        Semantic.TIME_FIRST_CHUNK,
        Semantic.PERFORMANCE_SPEEDUP,
    ),
    feedback_extractors=("span",),
)

BUILTIN_METRIC_PACKS: tuple[MetricPack, ...] = (
    AGENTIC_PACK,
    STRUCTURED_OUTPUT_PACK,
    LLM_USAGE_PACK,
    PERFORMANCE_PACK,
)

DEFAULT_METRIC_PACKS = MetricPackRegistry(BUILTIN_METRIC_PACKS)
"""The built-in packs (``agentic``, ``structured_output``, ``llm_usage``, ``performance``).
Treat it as read-only; :func:`builtin_metric_pack_registry` returns a copy to extend."""


def builtin_metric_pack_registry() -> MetricPackRegistry:
    """A new registry holding the built-in packs, free to :meth:`~MetricPackRegistry.register`
    more."""
    return MetricPackRegistry(BUILTIN_METRIC_PACKS)
