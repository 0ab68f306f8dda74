"""Post-derivation: evidence computed across the runs of a finished experiment.

``post_derive:`` entries are :class:`PostDeriverSpec` models selected by
``kind`` through the ``autobench_post_derivers`` hook; the built-in one is
:class:`PairedBaselineDeriverSpec` (``kind: paired_baseline``). See
``docs/policies.md`` for the formulas, verdicts and where the results are stored.
"""

from autobench.core._derived_output import DerivedMetricOutput
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.postderive._formulas import DIFFERENCE_FORMULAS as DIFFERENCE_FORMULAS
from autobench.core.postderive._formulas import RATIO_FORMULAS as RATIO_FORMULAS
from autobench.core.postderive._formulas import ComparisonVerdict
from autobench.core.postderive._formulas import PairedFormula as PairedFormula
from autobench.core.postderive._formulas import apply_formula as apply_formula
from autobench.core.postderive._formulas import verdict as verdict
from autobench.core.postderive._matching import RunMatchKey
from autobench.core.postderive._matching import match_key as match_key
from autobench.core.postderive._paired import UNAVAILABLE as UNAVAILABLE
from autobench.core.postderive._paired import VERDICT_SEMANTIC as VERDICT_SEMANTIC
from autobench.core.postderive._paired import (
    ComparisonVerdictSpec,
    PairedBaselineDeriverSpec,
    RelativeNoiseThreshold,
)
from autobench.core.postderive._paired import default_direction as default_direction

__all__ = [
    "ComparisonVerdict",
    "ComparisonVerdictSpec",
    "DerivedMetricOutput",
    "PairedBaselineDeriverSpec",
    "PostDeriverSpec",
    "RelativeNoiseThreshold",
    "RunMatchKey",
]
