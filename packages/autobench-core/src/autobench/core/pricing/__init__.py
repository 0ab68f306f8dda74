"""Pricing: token prices per model, the pricing YAML, and importers of external price data.

:class:`PricingTable` holds :class:`ModelPrice` entries (input, output,
cache-read and cache-write :class:`TokenRate`\\ s, flat or tiered) by provider
and model id, with aliases; :meth:`PricingTable.resolve` normalises model ids.
:func:`call_cost` prices one call exactly with :class:`~decimal.Decimal`.
External catalogues (llm-prices, genai-prices) are only imported into this
model from local files; they never become a runtime dependency.
"""

from autobench.core.pricing._cost import InconsistentUsageError as InconsistentUsageError
from autobench.core.pricing._cost import MissingRateError as MissingRateError
from autobench.core.pricing._cost import TokenUsage as TokenUsage
from autobench.core.pricing._cost import call_cost as call_cost
from autobench.core.pricing._genai_prices import GenAIPricesSource, from_genai_prices
from autobench.core.pricing._io import PRICING_RECORD_TYPE as PRICING_RECORD_TYPE
from autobench.core.pricing._io import PRICING_RECORD_VERSION as PRICING_RECORD_VERSION
from autobench.core.pricing._io import PricingDocument as PricingDocument
from autobench.core.pricing._io import (
    PricingError,
    StaticPriceSource,
    dump_pricing_table,
    load_pricing_table,
)
from autobench.core.pricing._io import pricing_table_from_document as pricing_table_from_document
from autobench.core.pricing._io import pricing_table_to_document as pricing_table_to_document
from autobench.core.pricing._llm_prices import LLMPricesSource, from_llm_prices
from autobench.core.pricing._rates import UNIT_SIZES as UNIT_SIZES
from autobench.core.pricing._rates import PriceTier, TokenRate
from autobench.core.pricing._rates import RateUnit as RateUnit
from autobench.core.pricing._table import RATE_NAMES as RATE_NAMES
from autobench.core.pricing._table import AmbiguousModelError as AmbiguousModelError
from autobench.core.pricing._table import ModelPrice, PricingTable
from autobench.core.pricing._table import PricedModel as PricedModel
from autobench.core.pricing._table import ProviderPrices as ProviderPrices

__all__ = [
    "GenAIPricesSource",
    "LLMPricesSource",
    "ModelPrice",
    "PriceTier",
    "PricingError",
    "PricingTable",
    "StaticPriceSource",
    "TokenRate",
    "dump_pricing_table",
    "from_genai_prices",
    "from_llm_prices",
    "load_pricing_table",
]
