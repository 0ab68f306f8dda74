"""Optimization feedback records built from recorded runs."""

from autobench.core.feedback._records import (
    FailureCategory,
    FeedbackError,
    FeedbackRecord,
    FeedbackScore,
    FeedbackSpan,
    OptimizationFeedbackInput,
    build_feedback_records,
    build_optimization_feedback_input,
    feedback_record,
)

__all__ = [
    "FailureCategory",
    "FeedbackError",
    "FeedbackRecord",
    "FeedbackScore",
    "FeedbackSpan",
    "OptimizationFeedbackInput",
    "build_feedback_records",
    "build_optimization_feedback_input",
    "feedback_record",
]
