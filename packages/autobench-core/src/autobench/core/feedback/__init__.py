"""Optimization feedback records built from recorded runs."""

from autobench.core.feedback._records import FailureCategory as FailureCategory
from autobench.core.feedback._records import FeedbackError as FeedbackError
from autobench.core.feedback._records import (
    FeedbackRecord,
    OptimizationFeedbackInput,
    build_feedback_records,
    build_optimization_feedback_input,
)
from autobench.core.feedback._records import FeedbackScore as FeedbackScore
from autobench.core.feedback._records import FeedbackSpan as FeedbackSpan
from autobench.core.feedback._records import feedback_record as feedback_record

__all__ = [
    "FeedbackRecord",
    "OptimizationFeedbackInput",
    "build_feedback_records",
    "build_optimization_feedback_input",
]
