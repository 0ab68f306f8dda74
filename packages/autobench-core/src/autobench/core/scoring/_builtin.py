"""Built-in scorers, registered through the plugin hook (:data:`BUILTIN_SCORERS`).

``value``, ``pass`` and ``exact`` are defined here; ``schema``, ``python`` and
``expected_action`` in their own modules. The ``judge`` kind comes from the
autobench-judge distribution, registered through the same hook.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from autobench.core.scoring._actions import ExpectedActionScorer
from autobench.core.scoring._base import ScorerSpec, ScoringCall
from autobench.core.scoring._python import PythonScorer
from autobench.core.scoring._schema import SchemaScorer
from autobench.records import ObservationRole, ScoreRecord


class OutputMetricScorer(ScorerSpec):
    """``value: <path>``: record the value at ``path`` as the score (role objective by default)."""

    keyword: ClassVar[str] = "value"
    kind: Literal["output"] = "output"
    path: str

    async def score(self, call: ScoringCall) -> ScoreRecord:
        value = call.resolve(self.path)
        return self.score_record(value)

    def action_dsl(self) -> Any:
        return self.path


class PassFailScorer(ScorerSpec):
    """``pass: <path>``: ``bool(value)`` of ``path``; role constraint by default, so a
    false value fails the run's evaluation."""

    keyword: ClassVar[str] = "pass"
    default_role: ClassVar[ObservationRole] = ObservationRole.CONSTRAINT
    kind: Literal["pass_fail"] = "pass_fail"
    path: str

    async def score(self, call: ScoringCall) -> ScoreRecord:
        return self.score_record(bool(call.resolve(self.path)))

    def action_dsl(self) -> Any:
        return self.path


class ExactScorer(ScorerSpec):
    """``exact: {actual, expected}``: ``1.0`` when the two values are equal, else ``0.0``.

    ``actual`` is a path (``output.queue``). ``expected`` is a path when it is a
    string (``case.expected.queue``) and a literal otherwise (``true``, ``3``, a
    list or a mapping), so ``expected: true`` checks a flag. Equality is Python
    ``==`` on the resolved values (so ``1 == 1.0`` holds and mappings compare by
    content).
    """

    keyword: ClassVar[str] = "exact"
    kind: Literal["exact"] = "exact"
    actual: str
    expected: str | bool | int | float | list[Any] | dict[str, Any] | None

    async def score(self, call: ScoringCall) -> ScoreRecord:
        actual = call.resolve(self.actual)
        expected = call.resolve(self.expected) if isinstance(self.expected, str) else self.expected
        return self.score_record(
            1.0 if actual == expected else 0.0, actual_value=actual, expected_value=expected
        )

    def action_dsl(self) -> Any:
        return {"actual": self.actual, "expected": self.expected}


BUILTIN_SCORERS: tuple[type[ScorerSpec], ...] = (
    OutputMetricScorer,
    PassFailScorer,
    ExactScorer,
    SchemaScorer,
    PythonScorer,
    ExpectedActionScorer,
)
"""Every scorer kind Autobench ships, in registration order."""

NEVER_SUSPENDING_SCORERS: tuple[type[ScorerSpec], ...] = (
    OutputMetricScorer,
    PassFailScorer,
    ExactScorer,
    SchemaScorer,
    ExpectedActionScorer,
)
"""Built-in kinds whose ``score`` is a plain computation that never awaits (``python``
scorers call user code, which may)."""
