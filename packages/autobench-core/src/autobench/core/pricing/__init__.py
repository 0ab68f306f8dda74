"""Pricing: token prices per model, the pricing YAML, and importers of external price data.

:class:`PricingTable` holds :class:`ModelPrice` entries (input, output,
cache-read and cache-write :class:`TokenRate`\\ s, flat or tiered) by provider
and model id, with aliases; :meth:`PricingTable.resolve` normalises model ids.
:func:`call_cost` prices one call exactly with :class:`~decimal.Decimal`.
External catalogues (llm-prices, genai-prices) are only imported into this
model from local files; they never become a runtime dependency.
"""

from autobench.core.pricing._cost import (
    InconsistentUsageError,
    MissingRateError,
    TokenUsage,
    call_cost,
)
from autobench.core.pricing._genai_prices import GenAIPricesSource, from_genai_prices
from autobench.core.pricing._io import (
    PRICING_RECORD_TYPE,
    PRICING_RECORD_VERSION,
    PricingDocument,
    PricingError,
    StaticPriceSource,
    dump_pricing_table,
    load_pricing_table,
    pricing_table_from_document,
    pricing_table_to_document,
)
from autobench.core.pricing._llm_prices import LLMPricesSource, from_llm_prices
from autobench.core.pricing._rates import UNIT_SIZES, PriceTier, RateUnit, TokenRate
from autobench.core.pricing._table import (
    RATE_NAMES,
    AmbiguousModelError,
    ModelPrice,
    PricedModel,
    PricingTable,
    ProviderPrices,
)

__all__ = [
    "PRICING_RECORD_TYPE",
    "PRICING_RECORD_VERSION",
    "RATE_NAMES",
    "UNIT_SIZES",
    "AmbiguousModelError",
    "GenAIPricesSource",
    "InconsistentUsageError",
    "LLMPricesSource",
    "MissingRateError",
    "ModelPrice",
    "PriceTier",
    "PricedModel",
    "PricingDocument",
    "PricingError",
    "PricingTable",
    "ProviderPrices",
    "RateUnit",
    "StaticPriceSource",
    "TokenRate",
    "TokenUsage",
    "call_cost",
    "dump_pricing_table",
    "from_genai_prices",
    "from_llm_prices",
    "load_pricing_table",
    "pricing_table_from_document",
    "pricing_table_to_document",
]
