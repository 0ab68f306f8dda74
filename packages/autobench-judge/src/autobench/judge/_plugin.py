"""The ``autobench`` entry point of this distribution: the ``judge`` scorer kind.

Loading the spec lists every scorer kind, so this module imports only the judge's spec model
(pydantic and Autobench's core); Pydantic AI is imported when a judge first calls its model
(:mod:`autobench.judge._call`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pluggy

from autobench.core.scoring import ScorerSpec
from autobench.judge._spec import JudgeScorer

hookimpl = pluggy.HookimplMarker("autobench")


@hookimpl
def autobench_scorers() -> Sequence[type[ScorerSpec]]:
    """``(JudgeScorer,)``: the ``judge:`` keyword of the YAML ``score`` section."""
    return (JudgeScorer,)
