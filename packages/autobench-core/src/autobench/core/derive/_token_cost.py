"""The built-in ``token_cost`` deriver: the money an LLM-using run spent, from its usage.

YAML::

    derive:
      - kind: token_cost
        pricing: file://pricing/models.yaml      # relative to the spec, local only
        output: {name: cost, semantic_type: money.cost, unit: usd, direction: minimize, role: objective}
        inputs: {input_tokens: llm.tokens.input, output_tokens: llm.tokens.output,
                 cache_read_tokens: llm.tokens.cache_read, cache_write_tokens: llm.tokens.cache_write,
                 model: llm.model.name, model_response: llm.model.response,
                 model_requested: llm.model.requested, provider: llm.provider,
                 server_address: server.address}

Per run the usage observations are grouped into calls (:mod:`._calls`); each
call needs a model and its input and output token counts (cache counts and
the provider are optional). The model is the call's ``model`` value, else the
model the provider answered with (``model_response``), else the one requested
(``model_requested``): the first with a price is used. It is resolved in the pricing table
(:meth:`PricingTable.resolve`), where a price entry's provider matches the call when it
names the call's provider (``llm.provider``, ``openai``) or its server address
(``server.address``, ``llm.example.com``), and priced exactly (:func:`call_cost`). When
every call is priced, one metric with their sum (USD, value a float, the
exact decimal in the ``exact`` tag, the first ten calls itemised in the
reason) is recorded; when the run counts more model requests than calls were
priced (usage recorded per run rather than per request), the reason says so
and the ``requests`` tag gives the count; when any call is not, no
cost is recorded at all (never a partial sum, never ``0``) and each problem
is a diagnostic observation named:

``token_cost_missing_inputs``
    no usage in the run, or a call without a model, input or output tokens;
``token_cost_unknown_pricing``
    the model (with its provider) has no price in the table;
``token_cost_missing_rates``
    the call used a kind of token its model has no rate for;
``token_cost_ambiguous_input``
    a call has two token observations of one kind, conflicting models or
    providers, a value that is not a token count, cache counts above the
    input count, or a model string matching several prices.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from autobench.core._derived_output import DerivedMetricOutput
from autobench.core.derive._base import (
    DerivationCall,
    DerivedValue,
    DeriverSpec,
    PreparedDeriver,
)
from autobench.core.derive._calls import IDENTITY_FIELDS, TOKEN_FIELDS, CallEvidence, group_calls
from autobench.core.pricing import (
    AmbiguousModelError,
    InconsistentUsageError,
    MissingRateError,
    PricingDocument,
    PricingTable,
    TokenUsage,
    call_cost,
    load_pricing_table,
)
from autobench.records import (
    Direction,
    ObservationKind,
    ObservationQuery,
    ObservationRole,
    Semantic,
    SemanticRegistry,
    same_unit,
)

MISSING_INPUTS = "token_cost_missing_inputs"
UNKNOWN_PRICING = "token_cost_unknown_pricing"
MISSING_RATES = "token_cost_missing_rates"
AMBIGUOUS_INPUT = "token_cost_ambiguous_input"
TOKEN_COST_DIAGNOSTICS = (MISSING_INPUTS, UNKNOWN_PRICING, MISSING_RATES, AMBIGUOUS_INPUT)
"""Names of the diagnostics the deriver records."""


class TokenCostInputs(BaseModel):
    """The semantic types ``token_cost`` reads, by role (defaults: the built-in LLM types)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    input_tokens: str = Semantic.LLM_TOKENS_INPUT
    output_tokens: str = Semantic.LLM_TOKENS_OUTPUT
    cache_read_tokens: str = Semantic.LLM_TOKENS_CACHE_READ
    cache_write_tokens: str = Semantic.LLM_TOKENS_CACHE_WRITE
    model: str = Semantic.LLM_MODEL_NAME
    model_response: str = Semantic.LLM_MODEL_RESPONSE
    model_requested: str = Semantic.LLM_MODEL_REQUESTED
    provider: str = Semantic.LLM_PROVIDER
    server_address: str = Semantic.SERVER_ADDRESS


def _default_output() -> DerivedMetricOutput:
    return DerivedMetricOutput(
        name="token_cost",
        semantic_type=Semantic.MONEY_COST,
        unit="usd",
        direction=Direction.MINIMIZE,
    )


class TokenCostDeriverSpec(DeriverSpec):
    """``kind: token_cost``: price a run's LLM usage with a local pricing file.

    ``pricing`` is a path or ``file://`` reference relative to the spec.
    ``output.unit`` must be ``usd`` (prices are in US dollars; there are no
    exchange rates). Raises ``ValueError`` for another unit.
    """

    model_config = ConfigDict(defer_build=True)

    kind: Literal["token_cost"] = "token_cost"
    pricing: str = Field(min_length=1)
    output: DerivedMetricOutput = Field(default_factory=_default_output)
    inputs: TokenCostInputs = Field(default_factory=TokenCostInputs)
    file_fields = ("pricing",)

    @field_validator("output")
    @classmethod
    def _usd(cls, output: DerivedMetricOutput) -> DerivedMetricOutput:
        if output.unit is None:
            return output.model_copy(update={"unit": "usd"})
        if not same_unit(output.unit, "usd"):
            raise ValueError(
                f"token_cost writes US dollars: unit must be 'usd', not {output.unit!r}"
            )
        return output

    def check_file(self, field: str, data: Any) -> None:
        """The pricing file must hold a valid pricing table (pydantic errors follow ``data``)."""
        PricingDocument.model_validate(data)

    def file_model(self, field: str) -> type[BaseModel] | None:
        return PricingDocument

    def prepare(self, *, base_dir: Path | None, registry: SemanticRegistry) -> PreparedDeriver:
        """Read the pricing file (once per experiment). Raises ``PricingError`` (a
        ``ValueError``) when it is missing or invalid."""
        path = self.file_path("pricing", self.pricing, base_dir)
        return TokenCostDeriver(self, load_pricing_table(path), source=path.name)


_LISTED_CALLS = 10
"""Calls listed one by one in the cost's reason; more are counted."""


def _requests(call: DerivationCall) -> int | None:
    """The run's total of model requests, when it recorded a whole number of them."""
    total = ObservationQuery(observations=call.observations, registry=call.registry).first_exact(
        Semantic.LLM_REQUEST_COUNT
    )
    value = None if total is None else total.value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class TokenCostDeriver:
    """A prepared ``token_cost`` deriver: the spec and its loaded table."""

    def __init__(self, spec: TokenCostDeriverSpec, table: PricingTable, *, source: str) -> None:
        self.spec = spec
        self.table = table
        self.source = source
        self.semantics = spec.inputs.model_dump()

    def derive(self, call: DerivationCall) -> Sequence[DerivedValue]:
        """The run's cost, or its diagnostics (see the module docstring)."""
        calls, saw_identity = group_calls(
            call.observations,
            call.spans,
            call.variant,
            self.semantics,
            call.registry,
            call.scopes,
        )
        if not calls:
            what = "a model but no token usage" if saw_identity else "no LLM usage"
            return [
                self._diagnostic(
                    MISSING_INPUTS,
                    ["input_tokens", "output_tokens"],
                    f"the run recorded {what}",
                    None,
                )
            ]
        diagnostics: list[DerivedValue] = []
        priced: list[tuple[str, TokenUsage, Decimal]] = []
        for evidence in calls:
            outcome = self._price(evidence)
            if isinstance(outcome, DerivedValue):
                diagnostics.append(outcome)
            else:
                priced.append(outcome)
        if diagnostics:
            return diagnostics
        total = sum((cost for _, _, cost in priced), Decimal(0))
        output = self.spec.output
        details = "; ".join(
            f"{model}: {u.input_tokens} in, {u.output_tokens} out = {cost:f} usd"
            for model, u, cost in priced[:_LISTED_CALLS]
        )
        if len(priced) > _LISTED_CALLS:
            details += f"; ... and {len(priced) - _LISTED_CALLS} more"
        reason = f"{len(priced)} LLM call(s) priced from {self.source}: {details}"
        tags = {"exact": f"{total:f}", "calls": str(len(priced))}
        requests = _requests(call)
        if requests is not None and requests > len(priced):
            # usage recorded per run (or per agent) rather than per request: tiers apply to
            # each priced call's total, which may differ from the requests' own prices
            reason += (
                f" (the usage of {requests} requests was recorded as {len(priced)} call(s) "
                "and priced as such)"
            )
            tags["requests"] = str(requests)
        return [
            DerivedValue(
                name=output.name,
                value=float(total),
                semantic_type=output.semantic_type,
                unit=output.unit,
                direction=output.direction,
                role=output.role,
                reason=reason,
                tags=tags,
            )
        ]

    def _diagnostic(self, name: str, value: Any, reason: str, span_id: str | None) -> DerivedValue:
        return DerivedValue(
            name=name,
            value=value,
            kind=ObservationKind.DIAGNOSTIC,
            role=ObservationRole.DIAGNOSTIC,
            reason=reason,
            span_id=span_id,
            tags={"deriver": self.spec.output.name},
        )

    def _price(self, evidence: CallEvidence) -> DerivedValue | tuple[str, TokenUsage, Decimal]:
        where = f"the call in span {evidence.span_id}" if evidence.span_id else "the run's call"
        span = evidence.span_id
        counts: dict[str, int] = {}
        for name in TOKEN_FIELDS:
            found = evidence.tokens.get(name, [])
            if len(found) > 1:
                return self._diagnostic(
                    AMBIGUOUS_INPUT, name,
                    f"{where} has {len(found)} {self.semantics[name]} observations", span,
                )  # fmt: skip
            if found:
                value = found[0].value
                if (
                    isinstance(value, bool)
                    or not isinstance(value, int | float)
                    or value < 0
                    or value != int(value)
                ):
                    return self._diagnostic(
                        AMBIGUOUS_INPUT, name, f"{where}: {value!r} is not a token count", span
                    )
                counts[name] = int(value)
        for name in IDENTITY_FIELDS:
            if len(evidence.identity[name]) > 1:
                values = ", ".join(map(str, evidence.identity[name]))
                return self._diagnostic(
                    AMBIGUOUS_INPUT, name, f"{where} has several {name}s: {values}", span
                )
        # the model the call names, else the one that answered, else the one it asked for
        models = [str(m) for m in evidence.identity["model"]] or [
            str(m)
            for m in (*evidence.identity["model_response"], *evidence.identity["model_requested"])
        ]
        missing = [n for n in ("input_tokens", "output_tokens") if n not in counts]
        if not models:
            missing.insert(0, "model")
        if missing:
            names = ", ".join(self.semantics[n] for n in missing)
            return self._diagnostic(MISSING_INPUTS, missing, f"{where} has no {names}", span)
        provider = evidence.identity["provider"][0] if evidence.identity["provider"] else None
        address = evidence.identity["server_address"]
        server = str(address[0]) if address else None
        entry = None
        for model in dict.fromkeys(models):
            try:
                entry = self.table.resolve(
                    model, None if provider is None else str(provider), server_address=server
                )
            except AmbiguousModelError as exc:
                return self._diagnostic(AMBIGUOUS_INPUT, model, f"{where}: {exc}", span)
            if entry is not None:
                break
        if entry is None:
            served = f" (provider {provider})" if provider is not None else ""
            served += f" (server {server})" if server is not None else ""
            tried = " or ".join(repr(m) for m in dict.fromkeys(models))
            return self._diagnostic(
                UNKNOWN_PRICING,
                models[0],
                f"{where}: no price for model {tried}{served} in {self.source}",
                span,
            )
        usage = TokenUsage(**{name: counts.get(name, 0) for name in TOKEN_FIELDS})
        try:
            return model, usage, call_cost(entry.price, usage)
        except InconsistentUsageError as exc:
            return self._diagnostic(AMBIGUOUS_INPUT, "cache_tokens", f"{where}: {exc}", span)
        except MissingRateError as exc:
            return self._diagnostic(
                MISSING_RATES, list(exc.rates), f"{where}: {entry.model_id} has {exc}", span
            )
