"""Scoring: scorer models, the scoring call, span selectors and dotted-path resolution."""

from autobench.core.scoring._actions import (
    DEFAULT_SEMANTICS,
    ExpectedAction,
    ExpectedActionScorer,
    expected_actions,
)
from autobench.core.scoring._base import ScorerResolutionError, ScorerSpec, ScoringCall
from autobench.core.scoring._builtin import (
    BUILTIN_SCORERS,
    NEVER_SUSPENDING_SCORERS,
    ExactScorer,
    OutputMetricScorer,
    PassFailScorer,
)
from autobench.core.scoring._paths import MissingPathError, resolve_dotted_path
from autobench.core.scoring._python import PythonScorer
from autobench.core.scoring._schema import SchemaScorer
from autobench.core.scoring._selector import SpanSelector

__all__ = [
    "BUILTIN_SCORERS",
    "DEFAULT_SEMANTICS",
    "NEVER_SUSPENDING_SCORERS",
    "ExactScorer",
    "ExpectedAction",
    "ExpectedActionScorer",
    "MissingPathError",
    "OutputMetricScorer",
    "PassFailScorer",
    "PythonScorer",
    "SchemaScorer",
    "ScorerResolutionError",
    "ScorerSpec",
    "ScoringCall",
    "SpanSelector",
    "expected_actions",
    "resolve_dotted_path",
]
