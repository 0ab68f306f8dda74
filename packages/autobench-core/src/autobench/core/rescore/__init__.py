"""Re-scoring recorded experiments without running their task (``autobench rescore``).

:func:`rescore_experiment` runs named scorers (of the recorded spec, or of a spec file)
on every recorded run and writes derived records with lineage under
``derived/rescore/``; :func:`rescore_scorers` resolves the scorers alone.
"""

from autobench.core.rescore._rescore import RescoreOutcome, recorded_call, rescore_experiment
from autobench.core.rescore._scorers import (
    RescoreScorers,
    UnknownScorerError,
    definition_of,
    rescore_scorers,
)

__all__ = [
    "RescoreOutcome",
    "RescoreScorers",
    "UnknownScorerError",
    "definition_of",
    "recorded_call",
    "rescore_experiment",
    "rescore_scorers",
]
