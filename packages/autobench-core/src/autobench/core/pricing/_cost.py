"""The cost of one LLM call from its token usage and the model's prices.

Token accounting: ``input_tokens`` counts **all** prompt tokens, cache reads
and cache writes included (OpenAI's ``prompt_tokens``, Pydantic AI's and
genai-prices' ``input_tokens``). The uncached part is
``input_tokens - cache_read_tokens - cache_write_tokens`` and is priced at the
``input`` rate; cache reads at ``cache_read``, cache writes at
``cache_write``, completion tokens at ``output``. Each rate is
``tokens * price / unit_size`` (:mod:`autobench.core.pricing._rates`), its
tier chosen by ``input_tokens``; the call's cost is their exact sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Context, Decimal, Inexact, localcontext

from autobench.abp import AutobenchError
from autobench.core.pricing._table import ModelPrice

EXACT_PRECISION = 400
"""Significant digits for cost arithmetic: far more than any token count times a price needs;
the ``Inexact`` trap makes a rounding step an error instead of a silent approximation."""


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts of one call (non-negative integers)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def uncached_input_tokens(self) -> int:
        """Input tokens neither read from nor written to a cache (may be negative when the
        counts are inconsistent; :func:`call_cost` refuses that)."""
        return self.input_tokens - self.cache_read_tokens - self.cache_write_tokens


class MissingRateError(AutobenchError, LookupError):
    """The call used tokens of a kind the model has no price for; ``rates`` names them."""

    def __init__(self, rates: tuple[str, ...]) -> None:
        self.rates = rates
        super().__init__(f"no price for {', '.join(rates)} tokens")


class InconsistentUsageError(AutobenchError, ValueError):
    """Cache token counts exceed the input token count."""


def call_cost(price: ModelPrice, usage: TokenUsage) -> Decimal:
    """The exact cost in USD of one call.

    Raises :class:`InconsistentUsageError` when cache reads plus writes exceed
    the input tokens, and :class:`MissingRateError` when a kind of token the
    call used (count above zero) has no rate. Zero tokens of a kind never need
    its rate.
    """
    if usage.uncached_input_tokens < 0:
        raise InconsistentUsageError(
            f"cache tokens ({usage.cache_read_tokens} read + {usage.cache_write_tokens} written) "
            f"exceed the {usage.input_tokens} input tokens; llm.tokens.input must count every "
            "input token, cached ones included"
        )
    counts = {
        "input": usage.uncached_input_tokens,
        "output": usage.output_tokens,
        "cache_read": usage.cache_read_tokens,
        "cache_write": usage.cache_write_tokens,
    }
    missing = tuple(name for name, n in counts.items() if n > 0 and price.rate(name) is None)
    if missing:
        raise MissingRateError(missing)
    total = Decimal(0)
    # Prices are decimals and unit sizes powers of ten, so the exact result has a bounded
    # number of digits: compute with enough precision that no step ever rounds.
    with localcontext(Context(prec=EXACT_PRECISION, traps=[Inexact])):
        for name, tokens in counts.items():
            rate = price.rate(name)
            if tokens > 0 and rate is not None:
                total += rate.cost(tokens, input_tokens=usage.input_tokens)
    return total
