"""Autobench judges: a model grades each run against a rubric (the ``judge:`` scorer kind).

Install ``autobench-judge`` (or ``autobench[judge]``) and the YAML ``score`` section
understands ``judge:``; the kind is registered through the ``autobench_scorers`` hook like
any third-party scorer, so the core and replay never import a provider SDK. The spec model
and its parts are importable from here for the Python builder; the model call, which imports
Pydantic AI, lives in :mod:`autobench.judge._call`. Pairwise judging of two recorded
variants (``autobench judge pairwise``) is :func:`judge_pairwise`. See docs/judges.md.
"""

from autobench.judge._fields import (
    IntegerScale,
    JudgeEndpoint,
    JudgeExample,
    JudgeModelTarget,
    LabelScale,
)
from autobench.judge._spec import JudgeScorer


def __getattr__(name: str) -> object:
    """``judge_pairwise``, ``PairwiseJudgeError`` and ``PairwiseOutcome``, imported on first
    use (they import Pydantic AI's agent machinery only when they run, but the module is
    not needed to load a spec)."""
    if name in ("judge_pairwise", "PairwiseJudgeError", "PairwiseOutcome"):
        from autobench.judge import _pairwise

        return getattr(_pairwise, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "IntegerScale",
    "JudgeEndpoint",
    "JudgeExample",
    "JudgeModelTarget",
    "JudgeScorer",
    "LabelScale",
    "PairwiseJudgeError",
    "PairwiseOutcome",
    "judge_pairwise",
]
