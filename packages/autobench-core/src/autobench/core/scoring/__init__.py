"""Scoring: scorer models, the scoring call, span selectors and dotted-path resolution."""

from autobench.core.scoring._actions import DEFAULT_SEMANTICS as DEFAULT_SEMANTICS
from autobench.core.scoring._actions import ExpectedAction as ExpectedAction
from autobench.core.scoring._actions import ExpectedActionScorer
from autobench.core.scoring._actions import expected_actions as expected_actions
from autobench.core.scoring._base import (
    ScorerArtifact,
    ScorerEvidence,
    ScorerObservation,
    ScorerResolutionError,
    ScorerSpec,
    ScoringCall,
)
from autobench.core.scoring._builtin import BUILTIN_SCORERS as BUILTIN_SCORERS
from autobench.core.scoring._builtin import NEVER_SUSPENDING_SCORERS as NEVER_SUSPENDING_SCORERS
from autobench.core.scoring._builtin import ExactScorer, OutputMetricScorer, PassFailScorer
from autobench.core.scoring._paths import MissingPathError, resolve_dotted_path
from autobench.core.scoring._python import PythonScorer
from autobench.core.scoring._schema import SchemaScorer
from autobench.core.scoring._selector import SpanSelector

__all__ = [
    "ExactScorer",
    "ExpectedActionScorer",
    "MissingPathError",
    "OutputMetricScorer",
    "PassFailScorer",
    "PythonScorer",
    "SchemaScorer",
    "ScorerArtifact",
    "ScorerEvidence",
    "ScorerObservation",
    "ScorerResolutionError",
    "ScorerSpec",
    "ScoringCall",
    "SpanSelector",
    "resolve_dotted_path",
]
