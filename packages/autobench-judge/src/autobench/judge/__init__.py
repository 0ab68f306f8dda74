"""Autobench judges: a model grades each run against a rubric (the ``judge:`` scorer kind).

Install ``autobench-judge`` (or ``autobench[judge]``) and the YAML ``score`` section
understands ``judge:``; the kind is registered through the ``autobench_scorers`` hook like
any third-party scorer, so the core and replay never import a provider SDK. The spec model
and its parts are importable from here for the Python builder; the model call, which imports
Pydantic AI, lives in :mod:`autobench.judge._call`. See docs/judges.md.
"""

from autobench.judge._fields import (
    IntegerScale,
    JudgeEndpoint,
    JudgeExample,
    JudgeModelTarget,
    LabelScale,
)
from autobench.judge._spec import JudgeScorer

__all__ = [
    "IntegerScale",
    "JudgeEndpoint",
    "JudgeExample",
    "JudgeModelTarget",
    "JudgeScorer",
    "LabelScale",
]
