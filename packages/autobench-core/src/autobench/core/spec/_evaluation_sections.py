"""The ``policies`` and ``post_derive`` sections (same shape in the DSL and the structured form).

``policies: [{name, metric, unit, description, <one requirement>}]`` and
``post_derive: [{kind, ...}]`` (kinds from the ``autobench_post_derivers``
hook). Errors are located :class:`SpecError`\\ s: a policy with no requirement
points at the policy, one with two at the second requirement's key.
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import ValidationError

from autobench.core.plugins import AutobenchPlugins
from autobench.core.policies import REQUIREMENTS, PolicySpec
from autobench.core.postderive import PostDeriverSpec
from autobench.core.spec._checks import (
    expect_keys,
    expect_list,
    expect_mapping,
    kind_error,
    located_validation_error,
    model_keys,
    validate_model,
)
from autobench.core.spec._errors import SpecError
from autobench.core.spec._evaluation import duplicate_policy, policy_problem, post_deriver_problem
from autobench.core.spec._yaml import Located
from autobench.records import SemanticRegistry, UnitConversionError, conversion_factor

_ONE_OF = "exactly one of: " + ", ".join(REQUIREMENTS)


def load_policies(item: Located) -> tuple[PolicySpec, ...]:
    """``policies: [{name, metric, unit, description, <requirement>}]``."""
    expect_list(item, "policies")
    policies: list[PolicySpec] = []
    for entry in item.elements():
        fields = expect_mapping(entry, "a policy")
        what = f"policy '{fields['name']}'" if isinstance(fields.get("name"), str) else "a policy"
        expect_keys(entry, model_keys(PolicySpec), what)
        declared = [key for key in fields if key in REQUIREMENTS and fields[key] is not None]
        if not declared:
            raise SpecError(entry.location, f"{what} has no requirement", expected=_ONE_OF)
        if len(declared) > 1:
            second = entry.get(declared[1])
            assert second is not None
            raise SpecError(
                second.key_location,
                f"{what} has more than one requirement ({', '.join(declared)})",
                expected=_ONE_OF,
            )
        policy = validate_model(PolicySpec, fields, entry, what)
        if (problem := duplicate_policy([*policies, policy])) is not None:
            raise SpecError((entry.get("name") or entry).location, problem, expected="unique names")
        policies.append(policy)
    return tuple(policies)


def load_post_derivers(
    item: Located, variant_ids: Collection[str], plugins: AutobenchPlugins
) -> tuple[PostDeriverSpec, ...]:
    """``post_derive: [{kind, ...}]``, validated by kind (the post-derivers of
    ``plugins``); a baseline variant must be one of ``variant_ids`` (when the spec
    declares variants)."""
    expect_list(item, "post_derive")
    registry = plugins.post_derivers
    derivers: list[PostDeriverSpec] = []
    for index, entry in enumerate(item.elements()):
        fields = expect_mapping(entry, "a post_derive entry")
        kind = entry.get("kind")
        if kind is None or kind.value not in registry.by_kind:
            raise kind_error(entry, f"post_derive entry {index}", registry.by_kind)
        model = registry.by_kind[kind.value]
        what = f"post_derive entry {index} ({kind.value})"
        try:
            deriver = registry.validate(fields)
        except ValidationError as exc:
            raise located_validation_error(
                exc, entry, what, model_keys(model), model=model
            ) from None
        problem = post_deriver_problem(
            index, deriver, derivers, variant_ids, plugins.semantic_registry
        )
        if problem is not None:
            where = entry.get("baseline_variant") or entry.get("output") or entry
            raise SpecError(where.location, problem)
        derivers.append(deriver)
    return tuple(derivers)


def check_policies(
    policies: tuple[PolicySpec, ...],
    item: Located,
    post_derive: tuple[PostDeriverSpec, ...],
    registry: SemanticRegistry,
) -> None:
    """Refuse, at the policy's ``metric``, a policy on a post-derived semantic type, and, at
    its ``unit``, a unit its metric's canonical unit does not convert to (every run would
    otherwise fail the policy with ``unit_mismatch``)."""
    for index, policy in enumerate(policies):
        problem = policy_problem(policy, post_derive, registry)
        if problem is not None:
            where = item.descend((index, "metric"))
            raise SpecError(where.location, problem)
        canonical = registry.unit_of(policy.metric)
        if policy.unit is not None and canonical is not None:
            try:
                conversion_factor(canonical, policy.unit)
            except UnitConversionError as exc:
                raise SpecError(
                    item.descend((index, "unit")).location,
                    f"policy {policy.name!r}: {policy.metric} is recorded in {canonical!r}; {exc}",
                    expected=f"a unit {canonical!r} converts to",
                ) from None
