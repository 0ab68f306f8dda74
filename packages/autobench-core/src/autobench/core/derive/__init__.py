"""Per-run derivation: derivers compute new evidence from a run's observations after scoring.

The built-in :class:`TokenCostDeriverSpec` (``kind: token_cost``) prices a
run's LLM usage; plugins add kinds through the ``autobench_derivers`` hook.
"""

from autobench.core._derived_output import DerivedMetricOutput as DerivedMetricOutput
from autobench.core.derive._base import DerivationCall as DerivationCall
from autobench.core.derive._base import DerivedValue as DerivedValue
from autobench.core.derive._base import DeriverSpec as DeriverSpec
from autobench.core.derive._base import PreparedDeriver as PreparedDeriver
from autobench.core.derive._token_cost import AMBIGUOUS_INPUT as AMBIGUOUS_INPUT
from autobench.core.derive._token_cost import MISSING_INPUTS as MISSING_INPUTS
from autobench.core.derive._token_cost import MISSING_RATES as MISSING_RATES
from autobench.core.derive._token_cost import TOKEN_COST_DIAGNOSTICS as TOKEN_COST_DIAGNOSTICS
from autobench.core.derive._token_cost import UNKNOWN_PRICING as UNKNOWN_PRICING
from autobench.core.derive._token_cost import (
    TokenCostDeriver,
    TokenCostDeriverSpec,
    TokenCostInputs,
)

BUILTIN_DERIVERS: tuple[type[DeriverSpec], ...] = (TokenCostDeriverSpec,)
"""Deriver kinds Autobench registers itself (through the ``autobench_derivers`` hook)."""

__all__ = [
    "TokenCostDeriver",
    "TokenCostDeriverSpec",
    "TokenCostInputs",
]
