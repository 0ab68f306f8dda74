"""The ``judge`` scorer: a model grades a run's output against a rubric on a declared scale.

YAML::

    score:
      policy_ok:
        judge:
          model: openai:gpt-4o-mini          # a Pydantic AI model string
          # model: {name: llama3.1, base_url: http://localhost:11434/v1, api_key_env: LOCAL_KEY}
          # model: {python: judges:model}      # a Pydantic AI model object from your code
          rubric: file://rubric.md           # or the rubric text itself
          inputs: {question: case.input.question, answer: output.answer}
          scale: pass_fail                   # or {min: 1, max: 5}, or {labels: [good, bad]}
          examples:
            - {input: {question: ...}, output: {answer: ...}, verdict: fail, reason: ...}
          pricing: file://pricing.yaml       # prices the judge's own calls (judge.cost)
          timeout: 30
          retries: 1
          limits: {requests_per_minute: 500, tokens_per_minute: 200000, max_concurrency: 4}
        semantic: quality.answer.policy

The model call lives in :mod:`._call` (it imports Pydantic AI, and only when a judge runs);
this module is the spec's fields and their checks, which :mod:`._call` reads, and
:mod:`._spec` makes them the scorer (so the modules import one another one way only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    field_validator,
    model_validator,
)

from autobench.core._targets import check_target_syntax
from autobench.core.scoring._base import ScorerResolutionError, ScorerSpec
from autobench.core.spec._models import LimitSpec

if TYPE_CHECKING:
    from autobench.core.pricing import PricingTable

_ACTION_FIELDS = {
    "model",
    "rubric",
    "inputs",
    "scale",
    "examples",
    "pricing",
    "timeout",
    "retries",
    "limits",
}
"""The fields written under the ``judge`` keyword when the spec is dumped as YAML."""

_FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Closed(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class JudgeEndpoint(_Closed):
    """An OpenAI-compatible endpoint: ``name`` (the model id the endpoint serves),
    ``base_url``, and ``api_key_env``, the *name* of the environment variable holding the
    key (the key itself never appears in a spec; no variable: a placeholder key is sent,
    for local servers that check none)."""

    name: str = Field(min_length=1)
    base_url: str = Field(min_length=1)
    api_key_env: str | None = None


class JudgeModelTarget(_Closed):
    """``{python: module:attribute}``: a Pydantic AI ``Model`` object (or a callable
    returning one) from the user's code, resolved like a ``python`` scorer's function."""

    python: str

    @field_validator("python")
    @classmethod
    def _target(cls, value: str) -> str:
        return check_target_syntax(value, "judge model")


class IntegerScale(_Closed):
    """``{min, max}``: the judge answers a whole number in ``[min, max]``."""

    min: int
    max: int

    @model_validator(mode="after")
    def _ordered(self) -> IntegerScale:
        if self.max <= self.min:
            raise ValueError(f"scale max ({self.max}) must be above min ({self.min})")
        return self


class LabelScale(_Closed):
    """``{labels: [...]}``: the judge answers one of the labels (at least two, distinct)."""

    labels: tuple[str, ...] = Field(min_length=2)

    @field_validator("labels")
    @classmethod
    def _distinct(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(value)) != len(value) or not all(label.strip() for label in value):
            raise ValueError("scale labels must be distinct, non-empty strings")
        return value


def _scale_kind(value: Any) -> str | None:
    """Which scale a value spells: ``labels`` when it has labels, else ``integer`` for a
    mapping (so a wrong key is reported against the scale it was meant as)."""
    if isinstance(value, LabelScale) or (isinstance(value, Mapping) and "labels" in value):
        return "labels"
    if isinstance(value, IntegerScale | Mapping):
        return "integer"
    return "pass_fail"


JudgeScale = Annotated[
    Annotated[Literal["pass_fail"], Tag("pass_fail")]
    | Annotated[IntegerScale, Tag("integer")]
    | Annotated[LabelScale, Tag("labels")],
    Discriminator(_scale_kind),
]
"""``pass_fail``, ``{min, max}`` or ``{labels: [...]}``."""


class JudgeExample(_Closed):
    """A few-shot example: what the judge is shown (``input``, ``output``), the verdict
    expected of it (on the judge's scale) and, optionally, the reason."""

    input: Any = None
    output: Any = None
    verdict: bool | int | str
    reason: str | None = None


class JudgeFields(ScorerSpec):
    """The fields of a :class:`~autobench.judge.JudgeScorer` and their checks (the scorer
    itself, which calls the model, is :mod:`._spec`'s)."""

    model_config = ConfigDict(defer_build=True)

    keyword: ClassVar[str] = "judge"
    kind: Literal["judge"] = "judge"
    model: str | JudgeEndpoint | JudgeModelTarget
    rubric: str = Field(min_length=1)
    inputs: dict[str, str] = Field(default_factory=lambda: {"output": "output"})
    scale: JudgeScale = "pass_fail"
    examples: tuple[JudgeExample, ...] = ()
    pricing: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    retries: int = Field(default=0, ge=0, le=10)
    limits: LimitSpec | None = None
    _rubric_text: str | None = PrivateAttr(default=None)
    _rubric_version: str | None = PrivateAttr(default=None)
    _pricing_table: PricingTable | None = PrivateAttr(default=None)
    _model_object: Any = PrivateAttr(default=None)

    @field_validator("model")
    @classmethod
    def _model_string(
        cls, value: str | JudgeEndpoint | JudgeModelTarget
    ) -> str | JudgeEndpoint | JudgeModelTarget:
        if isinstance(value, str) and not value.strip():
            raise ValueError("judge model must not be empty")
        return value

    @field_validator("inputs", mode="before")
    @classmethod
    def _inputs(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list | tuple):
            return {str(path).rsplit(".", 1)[-1]: path for path in value}
        return value

    @field_validator("inputs")
    @classmethod
    def _input_names(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("a judge needs at least one input")
        for name in value:
            if not _FIELD_NAME.match(name):
                raise ValueError(f"judge input name {name!r} must be an identifier")
        return value

    @model_validator(mode="after")
    def _examples_on_scale(self) -> Self:
        for number, example in enumerate(self.examples, 1):
            problem = scale_problem(self.scale, example.verdict)
            if problem is not None:
                raise ValueError(f"judge example {number}: verdict {problem}")
        return self

    @classmethod
    def from_dsl(cls, name: str, action: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        """``judge: {model, rubric, ...}`` (a mapping only)."""
        if not isinstance(action, Mapping):
            raise ValueError("'judge' takes a mapping with at least 'model' and 'rubric'")
        return super().from_dsl(name, action, options)

    def action_dsl(self) -> Any:
        data = self.model_dump(include=_ACTION_FIELDS, exclude_defaults=True)
        data.pop("kind", None)  # the base model's serializer adds it to every dump
        return data

    # -- preparation --------------------------------------------------------------

    @property
    def rubric_text(self) -> str:
        """The rubric's text (read from its file by :meth:`prepare`, else inline)."""
        if self._rubric_text is not None:
            return self._rubric_text
        if self.rubric.startswith("file://"):
            return self._read_rubric(None)[0]
        return self.rubric

    def _read_rubric(self, base_dir: Path | None) -> tuple[str, str | None]:
        if not self.rubric.startswith("file://"):
            return self.rubric, None
        relative = self.rubric.removeprefix("file://")
        path = Path(relative) if base_dir is None else base_dir / relative
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except OSError as exc:
            where = f"{self.origin}: " if self.origin else ""
            raise ScorerResolutionError(
                f"{where}judge scorer '{self.name}' rubric {self.rubric!r} cannot be read: "
                f"{exc.strerror or exc}"
            ) from None


def scale_problem(scale: JudgeScale, value: Any) -> str | None:
    """Why ``value`` is not on ``scale`` (``None`` when it is)."""
    if scale == "pass_fail":
        if isinstance(value, bool) or value in ("pass", "fail"):
            return None
        return f"{value!r} is not pass/fail (true, false, 'pass' or 'fail')"
    if isinstance(scale, IntegerScale):
        whole = isinstance(value, int) and not isinstance(value, bool)
        if whole and scale.min <= value <= scale.max:
            return None
        return f"{value!r} is not a whole number in [{scale.min}, {scale.max}]"
    assert isinstance(scale, LabelScale)
    if isinstance(value, str) and value in scale.labels:
        return None
    return f"{value!r} is not one of the labels {', '.join(scale.labels)}"
