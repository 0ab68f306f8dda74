"""The ``python`` scorer: a user function ``module:function`` called with the :class:`ScoringCall`."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import PrivateAttr, field_validator

from autobench.core._targets import check_target_syntax, resolve_target
from autobench.core.scoring._base import ScorerResolutionError, ScorerSpec, ScoringCall
from autobench.records import ScoreRecord


class PythonScorer(ScorerSpec):
    """``python: module:function``: score with a user function.

    Structured form ``{kind: python, name, target: module:function}``. The
    target resolves like the task (from the spec's directory first, then the
    import path; see :mod:`autobench.core._targets`), once per experiment in
    :meth:`prepare`: an unresolvable or non-callable target stops the
    experiment before any run with :class:`ScorerResolutionError`.

    The function is called as ``function(call)`` with the run's
    :class:`ScoringCall` (``ctx``, ``task_result``/``output``, ``case``,
    ``variant``, ``observations``, ``spans``, ``selected_spans``); it may be
    sync or async and returns a :class:`ScoreRecord` or a plain value (which
    becomes the score's ``value``). An exception it raises is a scorer error
    on that run only.
    """

    keyword: ClassVar[str] = "python"
    target_field: ClassVar[str | None] = "target"
    kind: Literal["python"] = "python"
    target: str
    _function: Callable[..., Any] | None = PrivateAttr(default=None)

    @field_validator("target")
    @classmethod
    def _module_colon_function(cls, value: str) -> str:
        return check_target_syntax(value, "python scorer target")

    @classmethod
    def from_dsl(cls, name: str, action: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        """``python: module:function`` (or ``python: {target: module:function}``)."""
        if isinstance(action, str):
            return {"kind": "python", "name": name, "target": action, **options}
        return super().from_dsl(name, action, options)

    def action_dsl(self) -> Any:
        return self.target

    def resolve_function(self, base_dir: Path | None) -> Callable[..., Any]:
        """The callable ``target`` names; raises :class:`ScorerResolutionError`."""
        what = f"python scorer '{self.name}' target"
        value = resolve_target(
            self.target, base_dir, what=what, where=self.origin, error=ScorerResolutionError
        )
        if not callable(value):
            where = f"{self.origin}: " if self.origin else ""
            raise ScorerResolutionError(
                f"{where}{what} {self.target!r} resolves to an object of type "
                f"{type(value).__name__}, which is not callable",
                module=self.target.partition(":")[0],
            )
        return value

    def prepare(self, base_dir: Path | None) -> PythonScorer:
        bound = self.model_copy()
        bound._function = self.resolve_function(base_dir)
        return bound

    async def score(self, call: ScoringCall) -> ScoreRecord | Any:
        function = self._function
        if function is None:  # not prepared: resolve from the import path
            function = self._function = self.resolve_function(None)
        result = function(call)
        if inspect.isawaitable(result):
            result = await result
        return result
