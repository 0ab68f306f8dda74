"""Payloads between Autobench cases/specs and pydantic-evals ``Case``/``Dataset`` shapes.

The payloads are plain models and need no library. Building real pydantic-evals objects
(:meth:`PydanticEvalsBridge.to_case`, :meth:`~PydanticEvalsBridge.to_dataset`) imports
``pydantic_evals`` lazily, on that call only; :class:`PydanticEvalsUnavailableError` is
raised when it is not installed. The bridge does not run pydantic-evals evaluations.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from autobench.abp import AutobenchError
from autobench.core.spec import BenchmarkSpec, DatasetSpec
from autobench.records import Case

_MODULE = "pydantic_evals"
_TAGS_KEY = "autobench_tags"


class PydanticEvalsUnavailableError(AutobenchError, ImportError):
    """``pydantic-evals`` is not installed (``pip install pydantic-evals``)."""


class PydanticEvalsCasePayload(BaseModel):
    """The fields of one pydantic-evals ``Case``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    inputs: Any = None
    expected_output: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class PydanticEvalsDatasetPayload(BaseModel):
    """The fields of one pydantic-evals ``Dataset`` (its cases, no evaluators)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    cases: tuple[PydanticEvalsCasePayload, ...] = ()


class PydanticEvalsBridge:
    """Convert Autobench cases and specs to pydantic-evals shapes and back.

    A case maps to ``name`` (case id), ``inputs`` (case input), ``expected_output``
    (case expected) and ``metadata`` (case metadata plus its tags under
    ``autobench_tags``).
    """

    module_name = _MODULE

    def is_available(self) -> bool:
        """Whether ``pydantic_evals`` can be imported (checked without importing it)."""
        try:
            return importlib.util.find_spec(self.module_name) is not None
        except (ImportError, ValueError):
            return False

    def require_module(self) -> ModuleType:
        """The imported ``pydantic_evals`` module; :class:`PydanticEvalsUnavailableError`
        when it is not installed."""
        try:
            return importlib.import_module(self.module_name)
        except ImportError as exc:
            raise PydanticEvalsUnavailableError(
                "the pydantic-evals bridge needs the 'pydantic-evals' package "
                "(pip install pydantic-evals)"
            ) from exc

    def case_payload(self, case: Case) -> PydanticEvalsCasePayload:
        metadata = dict(case.metadata)
        if case.tags:
            metadata[_TAGS_KEY] = list(case.tags)
        return PydanticEvalsCasePayload(
            name=case.id, inputs=case.input, expected_output=case.expected, metadata=metadata
        )

    def dataset_payload(
        self, spec: BenchmarkSpec | DatasetSpec | Iterable[Case], *, name: str | None = None
    ) -> PydanticEvalsDatasetPayload:
        """The dataset of ``spec`` (named by the benchmark id), of a :class:`DatasetSpec`
        (named by its id), or of the given cases. Raises ``TypeError`` for anything else."""
        cases: Iterable[Case]
        if isinstance(spec, BenchmarkSpec):
            cases, default_name = spec.cases, spec.benchmark.id
        elif isinstance(spec, DatasetSpec):
            cases, default_name = spec.cases, spec.id or "autobench"
        else:
            cases, default_name = list(spec), "autobench"
            if not all(isinstance(case, Case) for case in cases):
                raise TypeError("dataset_payload takes a BenchmarkSpec, a DatasetSpec or cases")
        return PydanticEvalsDatasetPayload(
            name=name or default_name, cases=tuple(self.case_payload(case) for case in cases)
        )

    def to_case(self, case: Case | PydanticEvalsCasePayload) -> Any:
        """A ``pydantic_evals.Case`` (imports pydantic-evals)."""
        module = self.require_module()
        payload = case if isinstance(case, PydanticEvalsCasePayload) else self.case_payload(case)
        return module.Case(
            name=payload.name,
            inputs=payload.inputs,
            expected_output=payload.expected_output,
            metadata=dict(payload.metadata),
        )

    def to_dataset(
        self,
        spec: BenchmarkSpec | Iterable[Case] | PydanticEvalsDatasetPayload,
        *,
        name: str | None = None,
    ) -> Any:
        """A ``pydantic_evals.Dataset`` without evaluators (imports pydantic-evals)."""
        module = self.require_module()
        payload = (
            spec
            if isinstance(spec, PydanticEvalsDatasetPayload)
            else self.dataset_payload(spec, name=name)
        )
        return module.Dataset(
            name=name or payload.name, cases=[self.to_case(item) for item in payload.cases]
        )

    def from_case(self, item: Any, *, index: int = 0) -> Case:
        """An Autobench :class:`Case` from a pydantic-evals ``Case`` or a case payload;
        an unnamed case gets the id ``case_<index>``."""
        name = getattr(item, "name", None) or f"case_{index}"
        metadata = dict(getattr(item, "metadata", None) or {})
        tags = metadata.pop(_TAGS_KEY, ())
        return Case(
            id=name,
            input=getattr(item, "inputs", None),
            expected=getattr(item, "expected_output", None),
            metadata=metadata,
            tags=tuple(tags),
        )

    def from_dataset(self, dataset: Any) -> tuple[Case, ...]:
        """Autobench cases from a pydantic-evals ``Dataset`` or a dataset payload.

        Case ids are unique: an id seen before (for example an unnamed case's
        ``case_<index>`` that a named case already uses) gets a ``-2``, ``-3`` ... suffix.
        """
        cases: list[Case] = []
        seen: set[str] = set()
        for index, item in enumerate(dataset.cases):
            case = self.from_case(item, index=index)
            unique, counter = case.id, 1
            while unique in seen:
                counter += 1
                unique = f"{case.id}-{counter}"
            seen.add(unique)
            cases.append(case if unique == case.id else case.model_copy(update={"id": unique}))
        return tuple(cases)
