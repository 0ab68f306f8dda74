"""Post-derivation: evidence computed across the runs of a finished experiment.

``post_derive:`` entries are :class:`PostDeriverSpec` models selected by
``kind`` through the ``autobench_post_derivers`` hook; the built-in one is
:class:`PairedBaselineDeriverSpec` (``kind: paired_baseline``). See
``docs/policies.md`` for the formulas, verdicts and where the results are stored.
"""

from autobench.core._derived_output import DerivedMetricOutput
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.postderive._formulas import (
    DIFFERENCE_FORMULAS,
    RATIO_FORMULAS,
    ComparisonVerdict,
    PairedFormula,
    apply_formula,
    verdict,
)
from autobench.core.postderive._matching import RunMatchKey, match_key
from autobench.core.postderive._paired import (
    UNAVAILABLE,
    VERDICT_SEMANTIC,
    ComparisonVerdictSpec,
    PairedBaselineDeriverSpec,
    RelativeNoiseThreshold,
    default_direction,
)

__all__ = [
    "DIFFERENCE_FORMULAS",
    "RATIO_FORMULAS",
    "UNAVAILABLE",
    "VERDICT_SEMANTIC",
    "ComparisonVerdict",
    "ComparisonVerdictSpec",
    "DerivedMetricOutput",
    "PairedBaselineDeriverSpec",
    "PairedFormula",
    "PostDeriverSpec",
    "RelativeNoiseThreshold",
    "RunMatchKey",
    "apply_formula",
    "default_direction",
    "match_key",
    "verdict",
]
