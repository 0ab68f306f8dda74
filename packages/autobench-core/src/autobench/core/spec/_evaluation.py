"""Consistency rules between a spec's variants, policies and post-derivers.

Shared by the :class:`BenchmarkSpec` validator (``ValueError``) and the YAML
loader (which raises the same message as a located ``SpecError``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from autobench.core.policies import PolicySpec
from autobench.core.postderive import PairedBaselineDeriverSpec, PostDeriverSpec
from autobench.records import SemanticRegistry


def duplicate_policy(policies: Sequence[PolicySpec]) -> str | None:
    """The message for the first policy name used twice, or ``None``."""
    seen: set[str] = set()
    for policy in policies:
        if policy.name in seen:
            return f"duplicate policy name {policy.name!r}"
        seen.add(policy.name)
    return None


def post_deriver_problem(
    index: int,
    deriver: PostDeriverSpec,
    earlier: Sequence[PostDeriverSpec],
    variant_ids: Collection[str],
    registry: SemanticRegistry,
) -> str | None:
    """Why ``deriver`` (entry ``index``) does not fit the spec, or ``None``: a baseline
    variant the spec does not declare (when it declares variants) or an output name
    another post-deriver already emits."""
    if (
        isinstance(deriver, PairedBaselineDeriverSpec)
        and variant_ids
        and deriver.baseline_variant not in variant_ids
    ):
        return (
            f"post_derive entry {index} names unknown baseline variant "
            f"{deriver.baseline_variant!r} (variants: {', '.join(sorted(variant_ids))})"
        )
    if isinstance(deriver, PairedBaselineDeriverSpec):
        measured = registry.normalize(deriver.metric)
        for semantic in deriver.output_semantic_types():
            if registry.normalize(semantic) == measured:
                return (
                    f"post_derive entry {index} writes its result as {semantic!r}, the metric it "
                    "reads: the derived value would hide the measurement (choose a type such as "
                    "performance.speedup or a custom one)"
                )
    taken = {name for other in earlier for name in other.output_names()}
    for name in deriver.output_names():
        if name in taken:
            return f"post_derive entry {index} emits {name!r}, which another entry already emits"
    return None


def policy_problem(
    policy: PolicySpec, post_derive: Sequence[PostDeriverSpec], registry: SemanticRegistry
) -> str | None:
    """Why ``policy`` cannot be checked per run, or ``None``: its metric is (or descends
    from, or is a parent of) a semantic type only post-derivation produces, which exists
    after every run is recorded; check such policies on the replayed result with
    ``evaluate_run_policies``."""
    for deriver in post_derive:
        for semantic in deriver.output_semantic_types():
            if registry.is_a(semantic, policy.metric) or registry.is_a(policy.metric, semantic):
                return (
                    f"policy {policy.name!r} reads {policy.metric!r}, which post_derive "
                    "produces only after all runs are recorded; per-run policies cannot see it "
                    "(check it on the replayed result with evaluate_run_policies)"
                )
    return None
