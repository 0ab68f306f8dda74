"""Typed, serializable settings of the built-in native instrumentors and of discovery.

A benchmark selects integrations in its ``instrumentation`` section (YAML) or
with ``Benchmark.instrument(...)`` / ``.instrument_all(...)`` (Python); both
produce an :class:`InstrumentationSpec`. Settings are plain data: they
round-trip through the YAML DSL and are recorded with the spec. Custom
:class:`~autobench.abp.Instrumentor` instances are runtime-only and never
serialized.

Precedence (spec "Native Instrumentation"): an explicit entry, including
``false``, wins over discovery (``all``); a custom instrumentor with the same
id wins over both; ``all.exclude`` only narrows discovery.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

INTEGRATION_IDS = ("pydantic_ai", "openai", "openai_agents", "httpx", "opentelemetry")
"""The built-in integrations, by the id used in YAML and in ``exclude``."""


class SettingsModel(BaseModel):
    """Base of instrumentation settings: immutable, strict about unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class HTTPXCaptureSettings(SettingsModel):
    """What the HTTPX instrumentor records of a request (privacy-safe defaults).

    ``path``: ``hash`` (sha256 of the path without its query, 16 hex chars), ``full``
    (the path without its query) or ``none``. Query strings and user information are
    never recorded. ``request_headers``/``response_headers`` name the headers to keep
    (case-insensitive; secrets among them are still redacted). Bodies are off by
    default; when on, at most ``max_body_bytes`` bytes of a text body are kept, and a
    binary body is recorded as its size and sha256 only.
    """

    path: Literal["hash", "full", "none"] = "hash"
    request_headers: tuple[str, ...] = ()
    response_headers: tuple[str, ...] = ()
    request_body: bool = False
    response_body: bool = False
    max_body_bytes: int = Field(default=65536, ge=0)

    @field_validator("request_headers", "response_headers")
    @classmethod
    def _lower(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name.strip().lower() for name in value))


class IntegrationSettings(SettingsModel):
    """Base of one integration's settings; ``integration`` is its id."""

    integration: ClassVar[str]


class HTTPXInstrumentation(IntegrationSettings):
    """The HTTPX instrumentor (transport layer): one span per request of any ``httpx`` or
    ``httpx2`` client, with the capture settings above."""

    integration: ClassVar[str] = "httpx"
    capture: HTTPXCaptureSettings = Field(default_factory=HTTPXCaptureSettings)


class OpenAIInstrumentation(IntegrationSettings):
    """The OpenAI client instrumentor (client layer): chat completions, responses and
    embeddings, sync and async, raw and streamed. ``capture_input``/``capture_output``
    store the request messages and the response content on the span (off by default:
    prompts and answers may be private or large; the capture policy applies)."""

    integration: ClassVar[str] = "openai"
    capture_input: bool = False
    capture_output: bool = False


class PydanticAIInstrumentation(IntegrationSettings):
    """The Pydantic AI instrumentor (framework layer): agent runs, model requests, tool
    calls and output validation of every agent run inside a benchmark run. Tool arguments
    and results are recorded (the capture policy applies); ``capture_input`` /
    ``capture_output`` also store each model request's messages and response parts (off by
    default: prompts and answers may be private or large)."""

    integration: ClassVar[str] = "pydantic_ai"
    capture_input: bool = False
    capture_output: bool = False


class OpenAIAgentsInstrumentation(IntegrationSettings):
    """The OpenAI Agents instrumentor (framework layer, native trace processor): workflow,
    agent, generation, tool, handoff, guardrail and custom spans. ``capture_input`` /
    ``capture_output`` store tool arguments and results (off by default; the capture policy
    applies)."""

    integration: ClassVar[str] = "openai_agents"
    capture_input: bool = False
    capture_output: bool = False


class OpenTelemetryInstrumentation(IntegrationSettings):
    """The OpenTelemetry bridge (``autobench-opentelemetry``): every OpenTelemetry span started
    inside a run becomes an ABP span of that run, with the GenAI semantic conventions mapped
    to Autobench's. ``capture_content`` also keeps the message, prompt and tool argument/result
    attributes those conventions define (off by default: they may be private or large; the
    capture policy applies)."""

    integration: ClassVar[str] = "opentelemetry"
    capture_content: bool = False


SETTINGS_MODELS: dict[str, type[IntegrationSettings]] = {
    model.integration: model
    for model in (
        PydanticAIInstrumentation,
        OpenAIInstrumentation,
        OpenAIAgentsInstrumentation,
        HTTPXInstrumentation,
        OpenTelemetryInstrumentation,
    )
}


class DiscoverySettings(SettingsModel):
    """``all``: install every installed, compatible built-in integration. ``exclude``
    narrows discovery (never an explicit entry); ``strict`` fails the benchmark before any
    run when a discovered integration is unavailable or unsupported, instead of skipping it
    with an ``instrumentation.skipped`` diagnostic on every run."""

    exclude: tuple[str, ...] = ()
    strict: bool = False

    @field_validator("exclude")
    @classmethod
    def _known(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in value if name not in INTEGRATION_IDS]
        if unknown:
            raise ValueError(
                f"unknown integration {unknown[0]!r} in exclude "
                f"(expected one of: {', '.join(INTEGRATION_IDS)})"
            )
        return tuple(dict.fromkeys(value))


class InstrumentationSpec(SettingsModel):
    """The ``instrumentation`` section: discovery and one entry per built-in integration
    (its settings, or ``False`` to keep it off whatever discovery finds)."""

    all: DiscoverySettings | None = None
    pydantic_ai: PydanticAIInstrumentation | Literal[False] | None = None
    openai: OpenAIInstrumentation | Literal[False] | None = None
    openai_agents: OpenAIAgentsInstrumentation | Literal[False] | None = None
    httpx: HTTPXInstrumentation | Literal[False] | None = None
    opentelemetry: OpenTelemetryInstrumentation | Literal[False] | None = None

    def explicit(self) -> dict[str, IntegrationSettings | Literal[False]]:
        """The integrations named explicitly, by id (settings or ``False``)."""
        found: dict[str, IntegrationSettings | Literal[False]] = {}
        for name in INTEGRATION_IDS:
            value = getattr(self, name)
            if value is not None:
                found[name] = value
        return found

    @property
    def empty(self) -> bool:
        """Whether the section selects nothing."""
        return self.all is None and not self.explicit()
