"""Scoring: scorer models, the scoring call and dotted-path resolution."""

from autobench.core.scoring._base import ScorerSpec, ScoringCall
from autobench.core.scoring._builtin import (
    BUILTIN_SCORERS,
    ExactScorer,
    OutputMetricScorer,
    PassFailScorer,
)
from autobench.core.scoring._paths import MissingPathError, resolve_dotted_path

__all__ = [
    "BUILTIN_SCORERS",
    "ExactScorer",
    "MissingPathError",
    "OutputMetricScorer",
    "PassFailScorer",
    "ScorerSpec",
    "ScoringCall",
    "resolve_dotted_path",
]
