"""Semantic types: the catalog of built-in meanings and the registry of parents and aliases.

A semantic type is a plain dotted string (``"llm.tokens.input"``). The
:class:`Semantic` class lists the built-in ones as constants for completion;
any other string is a valid custom type. A :class:`SemanticRegistry` knows,
for each type, its parent (``serving.cost`` *is a* ``money.cost``), canonical
unit, value shape and whether its values add up within one run
(:meth:`SemanticRegistry.is_additive`), which way is better
(:meth:`SemanticRegistry.direction_of`), and maps aliases (``quality.answer``) to canonical
types. Reports, policies and derivers select evidence through the
registry, never by the local metric name.

Additive types are quantities a run spends or counts once per operation:
tokens of every kind, requests, money, operation and event counts, bytes. The
value of such a type for a whole run is the sum of its operations, counted once
(:mod:`autobench.records._run_accounting`). Every other type (a latency, a
score, a ratio, an identity) has one value per run, chosen by projection.

Directions: a type's ``direction`` (``maximize`` or ``minimize``) is inherited from its
parents like its unit; a type none of whose ancestors has one takes the direction of its
namespace (the dotted prefix of its name): ``quality.*`` and ``result.*`` maximize,
``time.*`` and ``money.*`` minimize (:data:`NAMESPACE_DIRECTIONS`). A registry entry named
like a namespace (``safety``) with a direction gives every type under it that direction, so
metric packs declare directions the same way. A scorer's or metric's own declared direction
wins over the catalog (reports read it first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from autobench.records._enums import Direction

SemanticType = str
"""A semantic type: a dotted, lowercase string such as ``"time.latency"``."""

Shape = Literal["number", "integer", "boolean", "string", "object", "list", "any"]


class Semantic:
    """Completion-friendly constants for the built-in semantic types."""

    # LLM
    LLM_TOKENS_INPUT = "llm.tokens.input"
    LLM_TOKENS_OUTPUT = "llm.tokens.output"
    LLM_TOKENS_TOTAL = "llm.tokens.total"
    LLM_TOKENS_CACHE_READ = "llm.tokens.cache_read"
    LLM_TOKENS_CACHE_WRITE = "llm.tokens.cache_write"
    LLM_TOKENS_REASONING = "llm.tokens.reasoning"
    LLM_REQUEST_COUNT = "llm.request.count"
    LLM_MODEL_NAME = "llm.model.name"
    LLM_MODEL_REQUESTED = "llm.model.requested"
    LLM_MODEL_RESPONSE = "llm.model.response"
    LLM_PROVIDER = "llm.provider"
    LLM_PROVIDER_NAME = "llm.provider.name"
    LLM_TEMPERATURE = "llm.temperature"
    SERVER_ADDRESS = "server.address"
    # Cost
    MONEY_COST = "money.cost"
    SERVING_COST = "serving.cost"
    OPTIMIZATION_COST = "optimization.cost"
    LIFETIME_COST = "lifetime.cost"
    # Judges (a judge scorer's own spend, kept apart from the application's)
    JUDGE_TOKENS_INPUT = "judge.tokens.input"
    JUDGE_TOKENS_OUTPUT = "judge.tokens.output"
    JUDGE_REQUEST_COUNT = "judge.request.count"
    JUDGE_COST = "judge.cost"
    JUDGE_TIME_QUEUE = "judge.time.queue"
    # Time
    TIME_LATENCY = "time.latency"
    TIME_FIRST_CHUNK = "time.first_chunk"
    TIME_CRITICAL_PATH = "time.critical_path"
    TIME_QUEUE = "time.queue"
    PERFORMANCE_SPEEDUP = "performance.speedup"
    # Result
    RESULT_SUCCESS = "result.success"
    # Quality
    QUALITY_SCORE = "quality.score"
    QUALITY_CORRECTNESS = "quality.correctness"
    COVERAGE_RATIO = "coverage.ratio"
    # Agent
    AGENT_TASK_COMPLETION = "agent.task.completion"
    AGENT_PLAN_QUALITY = "agent.plan.quality"
    AGENT_PLAN_ADHERENCE = "agent.plan.adherence"
    AGENT_STEP_EFFICIENCY = "agent.step.efficiency"
    AGENT_TOOL_NAME = "agent.tool.name"
    AGENT_TOOL_SELECTION_CORRECTNESS = "agent.tool.selection.correctness"
    AGENT_TOOL_ARGUMENT_CORRECTNESS = "agent.tool.argument.correctness"
    AGENT_TOOL_SEQUENCE_CORRECTNESS = "agent.tool.sequence.correctness"
    AGENT_OUTPUT_CORRECTNESS = "agent.output.correctness"
    AGENT_OUTPUT_STRUCTURE_VALIDITY = "agent.output.structure.validity"
    # Assets
    PROMPT_VERSION = "prompt.version"
    AGENT_TOOL_VERSION = "agent.tool.version"
    AGENT_VERSION = "agent.version"
    DATASET_VERSION = "dataset.version"
    # Operations
    OPERATION_COUNT = "operation.count"
    OPERATION_DEPTH_MAX = "operation.depth.max"
    OPERATION_FANOUT_MAX = "operation.fanout.max"
    OPERATION_INCOMPLETE = "operation.incomplete"
    OPERATION_PARALLELISM = "operation.parallelism"
    OPERATION_RETRIES = "operation.retries"
    OPERATION_RETRIES_RECOVERED = "operation.retries.recovered"
    OPERATION_FIRST_ATTEMPT_SUCCESS = "operation.first_attempt.success"
    # Workflow
    WORKFLOW_VALIDATION_FAILURES = "workflow.validation.failures"
    WORKFLOW_APPROVAL_COUNT = "workflow.approval.count"
    WORKFLOW_APPROVAL_WAIT = "workflow.approval.wait"
    WORKFLOW_TOOL_CALL_SUCCESS = "workflow.tool_call.success"
    WORKFLOW_TOOL_CALL_FAILURE = "workflow.tool_call.failure"
    WORKFLOW_MESSAGE_GROWTH = "workflow.message.growth"
    WORKFLOW_EVIDENCE_REFERENCES = "workflow.evidence.references"
    # Data
    DATA_BYTES = "data.bytes"
    # Evaluation bookkeeping
    POLICY_RESULT = "policy.result"


class SemanticDefinition(BaseModel):
    """What one semantic type means: its parent, canonical unit, value shape, whether
    its values add up within a run, and which way is better.

    ``direction`` ``maximize`` / ``minimize``; ``None`` (the default): inherited from the
    nearest parent that declares it, else from the namespace (see the module docstring and
    :meth:`SemanticRegistry.direction_of`). Left out of a dump when ``None``.

    ``additive`` ``True``: the run's value is the sum of its operations (tokens, requests,
    cost, counts, bytes); ``False``: one value per run, chosen by projection; ``None``
    (the default): inherited from the nearest parent that declares it, and not additive
    when none does (see :meth:`SemanticRegistry.is_additive`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    parent: SemanticType | None = None
    unit: str | None = None
    shape: Shape | None = None
    description: str | None = None
    additive: bool | None = None
    direction: Direction | None = Field(default=None, exclude_if=lambda value: value is None)


def _d(
    parent: str | None = None,
    unit: str | None = None,
    shape: Shape | None = None,
    description: str | None = None,
    *,
    additive: bool | None = None,
    direction: Direction | None = None,
) -> SemanticDefinition:
    return SemanticDefinition(
        parent=parent,
        unit=unit,
        shape=shape,
        description=description,
        additive=additive,
        direction=direction,
    )


_MAX, _MIN = Direction.MAXIMIZE, Direction.MINIMIZE

NAMESPACE_DIRECTIONS: dict[str, Direction] = {
    "quality": _MAX,
    "result": _MAX,
    "time": _MIN,
    "money": _MIN,
}
"""The direction of every type under a namespace when neither the type nor its ancestors
declare one (``quality.helpfulness`` maximizes, ``time.render`` minimizes)."""


_BUILTIN_TYPES: dict[str, SemanticDefinition] = {
    # LLM usage and identity
    Semantic.LLM_TOKENS_INPUT: _d(
        unit="tokens",
        shape="integer",
        description="Prompt (input) tokens.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.LLM_TOKENS_OUTPUT: _d(
        unit="tokens",
        shape="integer",
        description="Completion (output) tokens.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.LLM_TOKENS_TOTAL: _d(
        unit="tokens",
        shape="integer",
        description="Input plus output tokens.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.LLM_TOKENS_CACHE_READ: _d(
        Semantic.LLM_TOKENS_INPUT, "tokens", "integer", "Input tokens served from a prompt cache."
    ),
    Semantic.LLM_TOKENS_CACHE_WRITE: _d(
        Semantic.LLM_TOKENS_INPUT, "tokens", "integer", "Input tokens written to a prompt cache."
    ),
    Semantic.LLM_TOKENS_REASONING: _d(
        Semantic.LLM_TOKENS_OUTPUT,
        "tokens",
        "integer",
        "Output tokens spent on reasoning (counted inside the output tokens).",
    ),
    Semantic.LLM_REQUEST_COUNT: _d(
        unit="requests",
        shape="integer",
        description="Model requests made.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.LLM_MODEL_NAME: _d(shape="string", description="Model identifier."),
    Semantic.LLM_MODEL_REQUESTED: _d(
        Semantic.LLM_MODEL_NAME, shape="string", description="Model the request asked for."
    ),
    Semantic.LLM_MODEL_RESPONSE: _d(
        Semantic.LLM_MODEL_NAME,
        shape="string",
        description="Model the provider reported answering.",
    ),
    Semantic.LLM_PROVIDER: _d(shape="string", description="Model provider."),
    Semantic.LLM_PROVIDER_NAME: _d(
        Semantic.LLM_PROVIDER, shape="string", description="Model provider name."
    ),
    Semantic.LLM_TEMPERATURE: _d(shape="number", description="Sampling temperature."),
    Semantic.SERVER_ADDRESS: _d(
        shape="string", description="Host a model request was sent to (OpenTelemetry name)."
    ),
    # Cost
    Semantic.MONEY_COST: _d(
        unit="usd", shape="number", description="Money spent.", additive=True, direction=_MIN
    ),
    Semantic.SERVING_COST: _d(Semantic.MONEY_COST, "usd", "number", "Cost of serving a request."),
    Semantic.OPTIMIZATION_COST: _d(
        Semantic.MONEY_COST, "usd", "number", "Cost spent by an optimizer."
    ),
    Semantic.LIFETIME_COST: _d(Semantic.MONEY_COST, "usd", "number", "Cost over a lifetime."),
    # Judges: no parent, so a judge's spend never adds to llm.tokens.* or money.cost.
    Semantic.JUDGE_TOKENS_INPUT: _d(
        unit="tokens",
        shape="integer",
        description="Input tokens a judge scorer's model calls used.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.JUDGE_TOKENS_OUTPUT: _d(
        unit="tokens",
        shape="integer",
        description="Output tokens a judge scorer's model calls used.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.JUDGE_REQUEST_COUNT: _d(
        unit="requests",
        shape="integer",
        description="Model requests a judge scorer made.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.JUDGE_COST: _d(
        unit="usd",
        shape="number",
        description="Money a judge scorer's model calls cost.",
        additive=True,
        direction=_MIN,
    ),
    Semantic.JUDGE_TIME_QUEUE: _d(
        unit="s",
        shape="number",
        description="Time a judge scorer's calls waited for the judge's rate limits "
        "(the sum over its attempts; not part of the run's queue or latency).",
        additive=True,
        direction=_MIN,
    ),
    # Time
    Semantic.TIME_LATENCY: _d(
        unit="s", shape="number", description="Elapsed time of an operation.", direction=_MIN
    ),
    Semantic.TIME_FIRST_CHUNK: _d(
        Semantic.TIME_LATENCY, "s", "number", "Time to the first streamed chunk."
    ),
    Semantic.TIME_CRITICAL_PATH: _d(
        Semantic.TIME_LATENCY, "s", "number", "Observed makespan of a trace."
    ),
    Semantic.TIME_QUEUE: _d(
        unit="s",
        shape="number",
        description="Time a run waited for its rate limits before its task calls "
        "(not part of its latency).",
    ),
    Semantic.PERFORMANCE_SPEEDUP: _d(
        unit="ratio",
        shape="number",
        description="Baseline time over candidate time.",
        direction=_MAX,
    ),
    # Result and quality
    Semantic.RESULT_SUCCESS: _d(
        unit="boolean",
        shape="boolean",
        description="Whether the run achieved its goal.",
        direction=_MAX,
    ),
    Semantic.QUALITY_SCORE: _d(
        shape="number", description="A quality score, usually in [0, 1].", direction=_MAX
    ),
    Semantic.QUALITY_CORRECTNESS: _d(
        Semantic.QUALITY_SCORE, shape="number", description="Correctness against an expected value."
    ),
    Semantic.COVERAGE_RATIO: _d(
        Semantic.QUALITY_SCORE, "ratio", "number", "Covered fraction in [0, 1]."
    ),
    # Agent
    Semantic.AGENT_TASK_COMPLETION: _d(
        Semantic.RESULT_SUCCESS, shape="boolean", description="Agent completed its task."
    ),
    Semantic.AGENT_PLAN_QUALITY: _d(Semantic.QUALITY_SCORE, shape="number"),
    Semantic.AGENT_PLAN_ADHERENCE: _d(Semantic.QUALITY_SCORE, shape="number"),
    Semantic.AGENT_STEP_EFFICIENCY: _d(Semantic.QUALITY_SCORE, shape="number"),
    Semantic.AGENT_TOOL_NAME: _d(shape="string", description="Name of a tool an agent called."),
    Semantic.AGENT_TOOL_SELECTION_CORRECTNESS: _d(Semantic.QUALITY_CORRECTNESS, shape="number"),
    Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS: _d(Semantic.QUALITY_CORRECTNESS, shape="number"),
    Semantic.AGENT_TOOL_SEQUENCE_CORRECTNESS: _d(Semantic.QUALITY_CORRECTNESS, shape="number"),
    Semantic.AGENT_OUTPUT_CORRECTNESS: _d(Semantic.QUALITY_CORRECTNESS, shape="number"),
    Semantic.AGENT_OUTPUT_STRUCTURE_VALIDITY: _d(Semantic.QUALITY_SCORE, shape="number"),
    # Assets
    Semantic.PROMPT_VERSION: _d(shape="string", description="Version of a prompt."),
    Semantic.AGENT_TOOL_VERSION: _d(shape="string", description="Version of a tool."),
    Semantic.AGENT_VERSION: _d(shape="string", description="Version of an agent."),
    Semantic.DATASET_VERSION: _d(shape="string", description="Version of a dataset."),
    # Operations (trace topology)
    Semantic.OPERATION_COUNT: _d(unit="operations", shape="integer", additive=True),
    Semantic.OPERATION_DEPTH_MAX: _d(shape="integer", description="Deepest span nesting."),
    Semantic.OPERATION_FANOUT_MAX: _d(
        shape="integer", description="Most direct children of one span."
    ),
    Semantic.OPERATION_INCOMPLETE: _d(
        unit="operations", shape="integer", description="Spans that never ended.", additive=True
    ),
    Semantic.OPERATION_PARALLELISM: _d(
        unit="ratio", shape="number", description="Leaf work over makespan."
    ),
    Semantic.OPERATION_RETRIES: _d(unit="operations", shape="integer", additive=True),
    Semantic.OPERATION_RETRIES_RECOVERED: _d(Semantic.OPERATION_RETRIES, "operations", "integer"),
    Semantic.OPERATION_FIRST_ATTEMPT_SUCCESS: _d(Semantic.RESULT_SUCCESS, shape="boolean"),
    # Workflow
    Semantic.WORKFLOW_VALIDATION_FAILURES: _d(unit="events", shape="integer", additive=True),
    Semantic.WORKFLOW_APPROVAL_COUNT: _d(unit="events", shape="integer", additive=True),
    Semantic.WORKFLOW_APPROVAL_WAIT: _d(Semantic.TIME_LATENCY, "s", "number"),
    Semantic.WORKFLOW_TOOL_CALL_SUCCESS: _d(unit="operations", shape="integer", additive=True),
    Semantic.WORKFLOW_TOOL_CALL_FAILURE: _d(unit="operations", shape="integer", additive=True),
    Semantic.WORKFLOW_MESSAGE_GROWTH: _d(unit="messages", shape="integer"),
    Semantic.WORKFLOW_EVIDENCE_REFERENCES: _d(unit="references", shape="integer", additive=True),
    # Data
    Semantic.DATA_BYTES: _d(
        unit="bytes", shape="integer", description="Bytes sent, received or stored.", additive=True
    ),
    Semantic.POLICY_RESULT: _d(
        Semantic.RESULT_SUCCESS, shape="boolean", description="Whether a policy held."
    ),
}

_BUILTIN_ALIASES: dict[str, str] = {
    "quality.answer": Semantic.QUALITY_SCORE,
    "llm.requests": Semantic.LLM_REQUEST_COUNT,
    "latency": Semantic.TIME_LATENCY,
    "cost": Semantic.MONEY_COST,
    "success": Semantic.RESULT_SUCCESS,
}


class SemanticRegistry(BaseModel):
    """Definitions of semantic types and aliases to them.

    ``normalize`` maps an alias to its canonical type (unknown names pass
    through unchanged: custom types need no registration). ``is_a`` follows
    parent links, so ``is_a("serving.cost", "money.cost")`` is true;
    ``is_additive`` says whether a type's values add up within a run. Raises
    ``ValueError`` on construction when an alias points to another alias's
    cycle or a parent chain loops.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    types: dict[SemanticType, SemanticDefinition] = Field(default_factory=dict)
    aliases: dict[str, SemanticType] = Field(default_factory=dict)
    _inherited_memo: dict[tuple[str, str], Any] = PrivateAttr(default_factory=dict)

    def model_post_init(self, __context: object) -> None:
        for name in self.types:
            seen = {name}
            parent = self.types[name].parent
            while parent is not None:
                if parent in seen:
                    raise ValueError(
                        f"semantic type {name!r} has a parent cycle through {parent!r}"
                    )
                seen.add(parent)
                definition = self.types.get(parent)
                parent = None if definition is None else definition.parent

    def normalize(self, name: str) -> SemanticType:
        """Return the canonical type for ``name`` (following aliases), or ``name`` itself."""
        seen: set[str] = set()
        while name in self.aliases and name not in seen:
            seen.add(name)
            name = self.aliases[name]
        return name

    def get(self, name: str) -> SemanticDefinition | None:
        """The definition of ``name`` (after alias normalisation), or ``None`` if unknown."""
        return self.types.get(self.normalize(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.normalize(name) in self.types

    def ancestors(self, name: str) -> tuple[SemanticType, ...]:
        """``name`` (normalised) followed by its parents up to the root."""
        chain = [self.normalize(name)]
        while (
            definition := self.types.get(chain[-1])
        ) is not None and definition.parent is not None:
            chain.append(self.normalize(definition.parent))
        return tuple(chain)

    def is_a(self, name: str, ancestor: str) -> bool:
        """Whether ``name`` equals ``ancestor`` or descends from it (aliases normalised)."""
        return self.normalize(ancestor) in self.ancestors(name)

    def is_additive(self, name: str) -> bool:
        """Whether values of ``name`` add up within one run (tokens, requests, cost, counts,
        bytes): the ``additive`` flag of ``name`` or of its nearest ancestor that sets one;
        ``False`` for unknown types and when no ancestor sets it."""
        return self._inherited(name, "additive") is True

    def direction_of(self, name: str) -> Direction | None:
        """Which way is better for ``name``: the ``direction`` of ``name`` or of its nearest
        ancestor that sets one; else that of the longest dotted prefix of ``name`` (or of its
        root ancestor) the registry defines with a direction; else the built-in
        :data:`NAMESPACE_DIRECTIONS` of its first segment; ``None`` when none applies."""
        direction: Direction | None = self._inherited(name, "direction")
        if direction is not None:
            return direction
        for semantic in self.ancestors(name):
            parts = semantic.split(".")
            for end in range(len(parts) - 1, 0, -1):
                definition = self.types.get(".".join(parts[:end]))
                if definition is not None and definition.direction is not None:
                    return definition.direction
        for semantic in self.ancestors(name):
            namespace = NAMESPACE_DIRECTIONS.get(semantic.split(".", 1)[0])
            if namespace is not None:
                return namespace
        return None

    def unit_of(self, name: str) -> str | None:
        """The canonical unit of ``name``, inherited from the nearest parent that declares one."""
        unit: str | None = self._inherited(name, "unit")
        return unit

    def shape_of(self, name: str) -> Shape | None:
        """The value shape of ``name``, inherited from the nearest parent that declares one."""
        shape: Shape | None = self._inherited(name, "shape")
        return shape

    def _inherited(self, name: str, attribute: str) -> Any:
        """``attribute`` of the nearest definition in ``name``'s ancestry that sets it (not
        ``None``), memoised: reports ask once per observation. The memo is read through the
        model's private slot, because pydantic's private-attribute access costs microseconds."""
        memo: dict[tuple[str, str], Any] = self.__pydantic_private__["_inherited_memo"]  # type: ignore[index]
        key = (attribute, name)
        if key not in memo:
            memo[key] = next(
                (
                    getattr(definition, attribute)
                    for semantic in self.ancestors(name)
                    if (definition := self.types.get(semantic)) is not None
                    and getattr(definition, attribute) is not None
                ),
                None,
            )
        return memo[key]

    def merged(
        self,
        other: SemanticRegistry | None = None,
        *,
        types: Mapping[str, SemanticDefinition] | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> SemanticRegistry:
        """A new registry with ``other``'s (or the given) entries laid over this one's."""
        new_types = dict(self.types)
        new_aliases = dict(self.aliases)
        if other is not None:
            new_types.update(other.types)
            new_aliases.update(other.aliases)
        new_types.update(types or {})
        new_aliases.update(aliases or {})
        return SemanticRegistry(version=self.version, types=new_types, aliases=new_aliases)

    def custom_entries(self, base: SemanticRegistry) -> SemanticRegistry:
        """The entries of this registry that differ from ``base`` (what a spec added)."""
        return SemanticRegistry(
            version=self.version,
            types={k: v for k, v in self.types.items() if base.types.get(k) != v},
            aliases={k: v for k, v in self.aliases.items() if base.aliases.get(k) != v},
        )

    def names(self) -> Iterable[SemanticType]:
        return self.types.keys()


DEFAULT_SEMANTIC_REGISTRY = SemanticRegistry(types=_BUILTIN_TYPES, aliases=_BUILTIN_ALIASES)
"""The built-in registry every benchmark starts from; specs lay their own entries over it."""
