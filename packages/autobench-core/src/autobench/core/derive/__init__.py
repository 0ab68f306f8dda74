"""Per-run derivation: derivers compute new evidence from a run's observations after scoring.

The built-in :class:`TokenCostDeriverSpec` (``kind: token_cost``) prices a
run's LLM usage; plugins add kinds through the ``autobench_derivers`` hook.
"""

from autobench.core._derived_output import DerivedMetricOutput
from autobench.core.derive._base import (
    DerivationCall,
    DerivedValue,
    DeriverSpec,
    PreparedDeriver,
)
from autobench.core.derive._token_cost import (
    AMBIGUOUS_INPUT,
    MISSING_INPUTS,
    MISSING_RATES,
    TOKEN_COST_DIAGNOSTICS,
    UNKNOWN_PRICING,
    TokenCostDeriver,
    TokenCostDeriverSpec,
    TokenCostInputs,
)

BUILTIN_DERIVERS: tuple[type[DeriverSpec], ...] = (TokenCostDeriverSpec,)
"""Deriver kinds Autobench registers itself (through the ``autobench_derivers`` hook)."""

__all__ = [
    "AMBIGUOUS_INPUT",
    "BUILTIN_DERIVERS",
    "MISSING_INPUTS",
    "MISSING_RATES",
    "TOKEN_COST_DIAGNOSTICS",
    "UNKNOWN_PRICING",
    "DerivationCall",
    "DerivedMetricOutput",
    "DerivedValue",
    "DeriverSpec",
    "PreparedDeriver",
    "TokenCostDeriver",
    "TokenCostDeriverSpec",
    "TokenCostInputs",
]
