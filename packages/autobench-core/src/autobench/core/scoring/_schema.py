"""The ``schema`` scorer: validate a value with a JSON Schema (draft 2020-12) or a pydantic model."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from autobench.core._targets import check_target_syntax, resolve_target
from autobench.core.scoring._base import ScorerResolutionError, ScorerSpec, ScoringCall
from autobench.records import ScoreRecord

if TYPE_CHECKING:  # jsonschema is imported when a schema scorer is built (it is slow to import)
    from jsonschema import ValidationError as SchemaViolation

MAX_REASONS = 20
"""At most this many failing paths are listed in a score's ``reason``."""


class SchemaScorer(ScorerSpec):
    """``schema: {path, schema | model}``: ``1.0`` when the value at ``path`` is valid, else ``0.0``.

    YAML::

        score:
          output_shape:
            schema:
              path: output                 # dotted path, default ``output``
              schema: {type: object, required: [answer, citations]}
              # or: model: app.models:Answer   (a pydantic model, resolved like the task)
            semantic: agent.output.structure.validity

    ``schema`` is a full JSON Schema checked against draft 2020-12
    (``Draft202012Validator``; ``format`` keywords are asserted for the
    formats the validator knows). A schema that is itself invalid is a spec
    error when the spec loads. ``model`` names a pydantic model
    (``module:Model``), resolved once per experiment from the spec's directory
    first (:class:`ScorerResolutionError` before any run when it fails), and
    the value is checked with ``Model.model_validate``.

    On an invalid value the score's ``reason`` lists the failing paths in
    JSON-path form, sorted, separated by ``; ``, for example
    ``$.citations: 'citations' is a required property`` or, for a model,
    ``$.items[0].price: Input should be a valid number``. A path that does not
    resolve is a scorer error, not an invalid value. Pydantic models, tuples
    and dataclasses in the value are turned into JSON-like data before a JSON
    Schema check.
    """

    keyword: ClassVar[str] = "schema"
    target_field: ClassVar[str | None] = "model"
    kind: Literal["schema"] = "schema"
    path: str = "output"
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    model: str | None = None
    _validator: Any = PrivateAttr(default=None)  # a Draft202012Validator
    _model_class: type[BaseModel] | None = PrivateAttr(default=None)

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            from jsonschema import Draft202012Validator
            from jsonschema.exceptions import SchemaError

            try:
                Draft202012Validator.check_schema(value)
            except SchemaError as exc:
                raise ValueError(
                    f"not a valid JSON Schema (draft 2020-12) at {exc.json_path}: {exc.message}"
                ) from None
        return value

    @field_validator("model")
    @classmethod
    def _model_target(cls, value: str | None) -> str | None:
        return None if value is None else check_target_syntax(value, "schema model")

    @model_validator(mode="after")
    def _one_target(self) -> SchemaScorer:
        if (self.json_schema is None) == (self.model is None):
            raise ValueError("a schema scorer needs exactly one of 'schema' and 'model'")
        return self

    def model_post_init(self, context: Any, /) -> None:
        if self.json_schema is not None:
            from jsonschema import Draft202012Validator

            self._validator = Draft202012Validator(
                self.json_schema, format_checker=Draft202012Validator.FORMAT_CHECKER
            )

    def action_dsl(self) -> Any:
        target = {"schema": self.json_schema} if self.model is None else {"model": self.model}
        return {"path": self.path, **target}

    def resolve_model(self, base_dir: Path | None) -> type[BaseModel]:
        """The pydantic model class ``model`` names; raises :class:`ScorerResolutionError`."""
        assert self.model is not None
        what = f"schema scorer '{self.name}' model"
        value = resolve_target(
            self.model, base_dir, what=what, where=self.origin, error=ScorerResolutionError
        )
        if not (isinstance(value, type) and issubclass(value, BaseModel)):
            where = f"{self.origin}: " if self.origin else ""
            raise ScorerResolutionError(
                f"{where}{what} {self.model!r} is not a pydantic model class",
                module=self.model.partition(":")[0],
            )
        return value

    def prepare(self, base_dir: Path | None) -> SchemaScorer:
        if self.model is None:
            return self
        bound = self.model_copy()
        bound._model_class = self.resolve_model(base_dir)
        return bound

    async def score(self, call: ScoringCall) -> ScoreRecord:
        value = call.resolve(self.path)
        if self._validator is not None:
            problems = _schema_problems(self._validator.iter_errors(_jsonable(value)))
        else:
            model = self._model_class
            if model is None:  # not prepared: resolve from the import path
                model = self._model_class = self.resolve_model(None)
            try:
                model.model_validate(value)
                problems = []
            except ValidationError as exc:
                problems = sorted(
                    f"{_json_path(error['loc'])}: {error['msg']}"
                    for error in exc.errors(include_url=False)
                )
        return self.score_record(0.0 if problems else 1.0, reason=_reason(problems))


def _jsonable(value: Any) -> Any:
    """JSON-like data for a JSON Schema check: models dumped, tuples as lists."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable(dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


def _json_path(steps: Iterable[Any]) -> str:
    path = "$"
    for step in steps:
        if isinstance(step, int):
            path += f"[{step}]"
        elif isinstance(step, str) and step.isidentifier():
            path += f".{step}"
        else:
            path += f"[{str(step)!r}]"
    return path


def _schema_problems(errors: Iterable[SchemaViolation]) -> list[str]:
    """``<json path>: <message>`` per violation; a missing required property is reported
    at its own path."""
    problems: dict[str, None] = {}
    for error in errors:
        steps = list(error.absolute_path)
        required = error.validator_value
        if (
            error.validator == "required"
            and isinstance(error.instance, Mapping)
            and isinstance(required, list)
        ):
            for name in required:
                if name not in error.instance:
                    problems[f"{_json_path([*steps, name])}: {name!r} is a required property"] = (
                        None
                    )
            continue
        problems[f"{_json_path(steps)}: {error.message}"] = None
    return sorted(problems)


def _reason(problems: list[str]) -> str | None:
    if not problems:
        return None
    shown = problems[:MAX_REASONS]
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "")
