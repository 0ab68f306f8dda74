"""One token rate: a flat price or token tiers, per million, thousand or single tokens.

Computation (exact, :class:`~decimal.Decimal`)::

    cost_usd = tokens * price / unit_size        # unit_size: mtok 1_000_000, ktok 1_000, tok 1

Tier rule (threshold, or "cliff", pricing): the tier is chosen by the
request's **total input tokens** ``T`` (``llm.tokens.input``, cached tokens
included): the first tier whose ``up_to >= T`` applies, and the open last tier
when ``T`` exceeds every limit. The whole request is then priced at that
tier's rate: every token of that rate, not just those above the limit. A
request exactly at ``up_to`` is in that tier; one token above is in the next.
Output and cache rates with tiers are chosen by the same input count. This is
how genai-prices defines ``TieredPrices`` ("crossing a tier applies that rate
to ALL tokens", the tier applying when ``total_input_tokens > tier.start``) and
how Google prices Gemini prompts "<= 200k tokens" versus "> 200k tokens" for
both input and output.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

RateUnit = Literal["mtok", "ktok", "tok"]
"""Per how many tokens a price is given: a million, a thousand, or one."""

UNIT_SIZES: dict[str, int] = {"mtok": 1_000_000, "ktok": 1_000, "tok": 1}
"""Tokens per price unit."""

Price = Annotated[Decimal, Field(ge=0, allow_inf_nan=False)]
"""A non-negative, finite price in USD (floats are read through their shortest ``repr``)."""


class PricingModel(BaseModel):
    """Base of the pricing models: immutable, unknown keys refused."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class PriceTier(PricingModel):
    """One tier: a request whose total input tokens are ``<= up_to`` (and above the previous
    tier's ``up_to``) is billed at ``price`` for every token of the rate, not only the tokens
    past the previous limit.

    ``up_to`` is ``None`` only for the last, open tier.
    """

    up_to: int | None = Field(
        default=None,
        gt=0,
        description="The largest request, in total input tokens (cached included), this tier "
        "prices; omitted on the last, open tier.",
    )
    price: Price = Field(
        description="USD per unit for every token of the rate in a request this tier prices "
        "(the whole request, not just the tokens above the previous tier's limit)."
    )

    @model_validator(mode="before")
    @classmethod
    def _spellings(cls, data: Any) -> Any:
        """Accept ``up_to_tokens`` and ``price_per_million_tokens`` (the per-mtok spelling)."""
        if isinstance(data, dict):
            data = dict(data)
            if "up_to_tokens" in data and "up_to" not in data:
                data["up_to"] = data.pop("up_to_tokens")
            if "price_per_million_tokens" in data and "price" not in data:
                data["price"] = data.pop("price_per_million_tokens")
        return data


class TokenRate(PricingModel):
    """The price of one kind of token (input, output, cache read, cache write).

    Either a flat ``price`` or ``tiers`` (every tier but the last has an
    increasing ``up_to``; the last has none). When both are given ``price``
    must equal the first tier's price (it is the headline rate). Raises
    ``ValueError`` otherwise.
    """

    unit: RateUnit = "mtok"
    price: Price | None = None
    tiers: tuple[PriceTier, ...] = Field(
        default=(),
        description="Threshold prices: the request's total input tokens choose one tier (the "
        "first whose up_to they do not exceed, else the last), and that tier's price applies "
        "to the whole request, as providers bill long-context tiers.",
    )

    @model_validator(mode="before")
    @classmethod
    def _spellings(cls, data: Any) -> Any:
        """``price_per_million_tokens: x`` is ``unit: mtok, price: x``."""
        if isinstance(data, dict) and "price_per_million_tokens" in data:
            data = dict(data)
            if data.setdefault("unit", "mtok") != "mtok":
                raise ValueError("price_per_million_tokens needs unit 'mtok'")
            if "price" in data:
                raise ValueError("give 'price' or 'price_per_million_tokens', not both")
            data["price"] = data.pop("price_per_million_tokens")
        return data

    @model_validator(mode="after")
    def _check_tiers(self) -> TokenRate:
        if not self.tiers:
            if self.price is None:
                raise ValueError("a rate needs 'price' or 'tiers'")
            return self
        *bounded, last = self.tiers
        if last.up_to is not None:
            raise ValueError("the last tier must be open (no 'up_to')")
        previous = 0
        for tier in bounded:
            if tier.up_to is None:
                raise ValueError("only the last tier may omit 'up_to'")
            if tier.up_to <= previous:
                raise ValueError("tier limits must increase")
            previous = tier.up_to
        if self.price is not None and self.price != self.tiers[0].price:
            raise ValueError(
                f"price {self.price} differs from the first tier's price {self.tiers[0].price}"
            )
        return self

    @property
    def unit_size(self) -> int:
        """Tokens per price unit (``1_000_000`` for ``mtok``)."""
        return UNIT_SIZES[self.unit]

    def price_at(self, input_tokens: int) -> Decimal:
        """The price per :attr:`unit` for a request with ``input_tokens`` total input tokens."""
        for tier in self.tiers:
            if tier.up_to is None or input_tokens <= tier.up_to:
                return tier.price
        assert self.price is not None  # validated: no tiers means a flat price
        return self.price

    def cost(self, tokens: int, *, input_tokens: int) -> Decimal:
        """``tokens * price_at(input_tokens) / unit_size``, exactly, in USD."""
        return Decimal(tokens) * self.price_at(input_tokens) / self.unit_size
