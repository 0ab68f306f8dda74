"""Spec sections shared by the authoring DSL and the structured form.

Variants (mapping or list form), the task, structured scorers and reports,
and the semantic registry: each function takes the located section and
returns validated models, raising a located :class:`SpecError` otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from autobench.core._keys import first_error
from autobench.core.plugins import ExecutorRegistry, ScorerRegistry
from autobench.core.scoring import ScorerSpec
from autobench.core.spec._checks import (
    expect_keys,
    expect_list,
    expect_mapping,
    expect_string,
    located_validation_error,
    model_keys,
    validate_model,
)
from autobench.core.spec._errors import SpecError, did_you_mean, one_of
from autobench.core.spec._execution import load_execution
from autobench.core.spec._models import ExecutorSpec, ReportSpec, TaskSpec
from autobench.core.spec._yaml import Located, kind_of, note_reshaped
from autobench.records import FactorValue, SemanticDefinition, SemanticRegistry, Variant

VARIANT_KEYS = frozenset({"label", "description", "factors"})
FACTOR_KEYS = model_keys(FactorValue, exclude={"name"})
_TARGET = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def load_variants(item: Located) -> tuple[Variant, ...]:
    """Variants in mapping form ``{id: {label, description, factors} | null}`` or list
    form ``[{id, label, description, factors}]``. Duplicate ids are errors (at the second)."""
    variants: list[Variant] = []
    first_seen: dict[str, Located] = {}
    entries: list[tuple[Any, Located, Located | None]]
    if isinstance(item.value, dict):
        entries = [(key, entry, None) for key, entry in item.items()]
    elif isinstance(item.value, list):
        entries = [(None, entry, entry.get("id")) for entry in item.elements()]
    else:
        raise SpecError(
            item.location,
            f"variants must be a mapping or a list, not {kind_of(item.value)}",
            expected="{<id>: {label, factors}} or [{id, label, factors}]",
        )
    for key, entry, id_item in entries:
        if key is None:
            expect_mapping(entry, "a variant")
            if id_item is None:
                raise SpecError(
                    entry.location,
                    "a variant in list form needs an 'id'",
                    expected="{id, label, description, factors}",
                )
            variant_id = expect_string(id_item, "a variant id")
            keys = VARIANT_KEYS | {"id"}
        else:
            if not isinstance(key, str) or not key:
                raise SpecError(
                    entry.key_location,
                    f"variant id {key!r} must be a non-empty string",
                    expected="a string",
                )
            variant_id, id_item = key, entry
            keys = VARIANT_KEYS
        what = f"variant '{variant_id}'"
        fields = dict(expect_mapping(entry, what))
        expect_keys(entry, keys, what)
        if variant_id in first_seen:
            raise SpecError(
                id_item.location,
                f"duplicate variant id '{variant_id}' (first defined at {first_seen[variant_id].location})",
                expected="unique variant ids",
            )
        first_seen[variant_id] = id_item
        fields["id"] = variant_id
        factors = entry.get("factors")
        if factors is not None:
            fields["factors"] = _factors(factors, what)
        variants.append(validate_model(Variant, fields, entry, what))
    return tuple(variants)


def _factors(item: Located, what: str) -> list[dict[str, Any]]:
    """Factor dicts from the mapping form ``{name: value | {value, semantic, optimize, description}}``
    or the list form ``[{name, value, ...}]``. A mapping with a ``value`` key is the structured
    form and may hold only factor keys; wrap a mapping value that has its own ``value`` key as
    ``{value: {...}}``."""
    factors: list[dict[str, Any]] = []
    note_reshaped(item)
    if isinstance(item.value, list):
        for entry in item.elements():
            expect_mapping(entry, f"a factor of {what}")
            expect_keys(entry, FACTOR_KEYS | {"name"}, f"a factor of {what}")
            factors.append(_with_text(dict(entry.value), entry.get("value")))
        return factors
    expect_mapping(item, f"factors of {what}")
    for name, entry in item.items():
        value = entry.value
        if isinstance(value, dict) and "value" in value:
            expect_keys(entry, FACTOR_KEYS, f"factor '{name}' of {what}")
            factors.append(_with_text({"name": name, **value}, entry.get("value")))
        elif isinstance(value, dict) and value and set(value) <= FACTOR_KEYS:
            raise SpecError(
                entry.location,
                f"factor '{name}' of {what} has {', '.join(map(str, value))} but no 'value'",
                expected="{value, semantic, optimize, description}",
            )
        else:
            factors.append(_with_text({"name": name, "value": value}, entry))
    return factors


def _with_text(factor: dict[str, Any], value: Located | None) -> dict[str, Any]:
    """``factor`` with ``text``: the written text of a value YAML read as a number that does
    not give that text back (the record keeps both)."""
    if value is not None and "text" not in factor:
        written = value.doc.reshaped.get(id(value.node))
        if written is not None:
            factor["text"] = written[0].value
    return factor


def check_target(item: Located) -> str:
    """A task target of the form ``module:function`` (dotted names allowed on both sides)."""
    target = expect_string(item, "the task target")
    if not _TARGET.match(target):
        raise SpecError(
            item.location,
            f"task target '{target}' must have the form module:function",
            expected="module:function, for example app.tasks:run_case",
        )
    return target


def load_task(item: Located, base_dir: Path | None = None) -> TaskSpec | None:
    """``task: {kind: python, target: module:function, timeout, retries}`` (null for no
    task); ``timeout`` and ``retries`` per :mod:`._execution`."""
    if item.value is None:
        return None
    expect_mapping(item, "task")
    expect_keys(item, model_keys(TaskSpec, exclude={"origin"}), "task")
    target = item.get("target")
    if target is None:
        raise SpecError(item.location, "task needs a 'target'", expected="target: module:function")
    check_target(target)
    execution = load_execution(item, base_dir)
    fields = {key: value for key, value in item.value.items() if key not in execution}
    task = validate_model(TaskSpec, {**fields, **execution}, item, "task")
    return task.model_copy(update={"origin": str(target.location)})


def _spellings(model: type[ScorerSpec], names: Collection[str]) -> set[str]:
    """``names`` with the other spelling (name or alias) of each field they name."""
    return set(names) | {
        spelling
        for name, field in model.model_fields.items()
        if name in names or field.alias in names
        for spelling in (name, field.alias)
        if spelling
    }


def validate_scorer(
    data: dict[str, Any],
    item: Located,
    what: str,
    registry: ScorerRegistry,
    action: Located | None = None,
) -> ScorerSpec:
    """Validate a structured scorer mapping through the scorer ``registry``.

    Field errors point into ``item``, or into ``action`` (the DSL keyword's
    value) for fields the entry itself does not spell out.
    """
    try:
        return registry.validate(data)
    except ValidationError as exc:
        loc = first_error(exc)["loc"]
        in_action = action is not None and not (
            loc and isinstance(item.value, dict) and loc[0] in item.value
        )
        model = registry.by_kind.get(str(data.get("kind")))
        keys = frozenset() if model is None else model_keys(model)
        if in_action and model is not None:
            beside = model.dsl_options() | {"kind", "name"}
            keys = model_keys(model, exclude=_spellings(model, beside))
        raise located_validation_error(
            exc, action if in_action and action is not None else item, what, keys, model=model
        ) from None
    except (ValueError, TypeError) as exc:
        kind = item.get("kind")
        where = kind.location if kind is not None else item.location
        raise SpecError(
            where,
            f"invalid {what}: {exc}",
            expected=one_of(registry.by_kind) if kind is not None else None,
        ) from None


def locate_scorer(scorer: ScorerSpec, entry: Located, action: Located | None = None) -> ScorerSpec:
    """``scorer`` located at its target (the value of its kind's ``target_field``: the DSL
    keyword's string, or that key in the keyword's mapping or in ``entry``), else at its
    entry (the name's key in the DSL, the list item in the structured form)."""
    field = scorer.target_field
    found: Located | None = None
    if field is not None:
        if action is not None and isinstance(action.value, str):
            found = action
        elif action is not None and isinstance(action.value, dict):
            found = action.get(field)
        found = found or entry.get(field)
    if found is not None:
        return scorer.located_at(str(found.location))
    return scorer.located_at(str(entry.key_location if action is not None else entry.location))


def load_structured_scorers(item: Located, registry: ScorerRegistry) -> tuple[ScorerSpec, ...]:
    """``scoring: [{kind, name, ...}]`` (kinds of ``registry``); duplicate names are errors
    (at the second)."""
    scorers: list[ScorerSpec] = []
    first_seen: dict[str, Located] = {}
    expect_list(item, "scoring")
    for entry in item.elements():
        data = expect_mapping(entry, "a scorer")
        what = f"scorer '{data['name']}'" if isinstance(data.get("name"), str) else "a scorer"
        scorer = locate_scorer(validate_scorer(dict(data), entry, what, registry), entry)
        name_item = entry.get("name") or entry
        if scorer.name in first_seen:
            raise SpecError(
                name_item.location,
                f"duplicate scorer name '{scorer.name}' (first defined at {first_seen[scorer.name].location})",
                expected="unique scorer names",
            )
        first_seen[scorer.name] = name_item
        scorers.append(scorer)
    return tuple(scorers)


def load_structured_reports(item: Located) -> ReportSpec:
    """``reports: {leaderboard: {metrics: [...]}, matrix, comparisons: [...], distributions: [...]}``."""
    expect_mapping(item, "reports")
    return validate_model(ReportSpec, item.value, item, "reports")


def check_report_variants(report: ReportSpec, item: Located, variant_ids: Collection[str]) -> None:
    """Structured comparisons must name variants in ``variant_ids`` (when it is not empty)."""
    for index, comparison in enumerate(report.comparisons):
        for field, side in (("baseline", comparison.baseline), ("candidate", comparison.candidate)):
            if variant_ids and side not in variant_ids:
                where = item.descend(("comparisons", index, field)).location
                raise SpecError(
                    where,
                    f"comparison names unknown variant '{side}'",
                    expected=one_of(variant_ids),
                )


def load_semantic_registry(item: Located) -> SemanticRegistry:
    """``semantic_registry: {version, types: {name: {parent, unit, shape, description}}, aliases: {alias: type}}``."""
    if item.value is None:
        return SemanticRegistry()
    expect_mapping(item, "semantic_registry")
    expect_keys(item, model_keys(SemanticRegistry), "semantic_registry")
    types = item.get("types")
    if types is not None:
        expect_mapping(types, "semantic_registry types")
        for name, entry in types.items():
            if entry.value is not None:
                expect_mapping(entry, f"semantic type '{name}'")
                expect_keys(entry, model_keys(SemanticDefinition), f"semantic type '{name}'")
    return validate_model(SemanticRegistry, item.value, item, "semantic_registry")


def load_repeat(item: Located) -> int:
    """``repeat: <K>``: how many times each case x variant runs, an integer >= 1."""
    value = item.value
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(
            item.location,
            f"repeat must be an integer, not {kind_of(value)}",
            expected="an integer >= 1 (runs of each case x variant)",
        )
    if value < 1:
        raise SpecError(
            item.location,
            f"repeat must be at least 1, not {value}",
            expected="an integer >= 1 (runs of each case x variant)",
        )
    return value


_EXECUTOR_SHAPES = "executor: <name> or executor: {name: <name>, <option>: <value>, ...}"


def load_executor(item: Located, executors: ExecutorRegistry) -> ExecutorSpec | None:
    """``executor: <name>`` or ``executor: {name: <name>, <option>: <value>, ...}`` (null for
    none); the name must be one of ``executors`` (an error at the name lists them)."""
    if item.value is None:
        return None
    if isinstance(item.value, dict):
        name_item = item.get("name")
        if name_item is None:
            raise SpecError(item.location, "executor needs a 'name'", expected=_EXECUTOR_SHAPES)
    elif isinstance(item.value, str):
        name_item = item
    else:
        raise SpecError(
            item.location,
            f"executor must be a name or a mapping, not {kind_of(item.value)}",
            expected=_EXECUTOR_SHAPES,
        )
    name = expect_string(name_item, "the executor name")
    if name not in executors:
        raise SpecError(
            name_item.location,
            f"unknown executor '{name}'{did_you_mean(name, executors.names())}",
            expected=one_of(executors.names()),
        )
    return validate_model(ExecutorSpec, item.value, item, "executor")
