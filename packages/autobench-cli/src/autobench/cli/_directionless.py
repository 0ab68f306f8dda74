"""``validate``'s warning about objectives and constraints no direction is known for.

A report marks the best variant of a column and a comparison says improved or regressed
only when it knows which way is better: the scorer's ``goal``, else the semantic catalog
(the type's own or inherited ``direction``, else its namespace's). A scorer whose role is
``objective`` or ``constraint`` and that has neither is listed, with where the YAML
declares it; the spec is still valid (exit 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from autobench.cli._console import stderr_console

if TYPE_CHECKING:
    from autobench.core.scoring import ScorerSpec
    from autobench.core.spec import BenchmarkSpec
    from autobench.core.spec._yaml import Located


def directionless_scorers(spec: BenchmarkSpec) -> list[ScorerSpec]:
    """The objective and constraint scorers with no ``goal`` whose semantic type (if any)
    has no direction in the spec's semantic registry, in spec order."""
    from autobench.records import ObservationRole

    evaluated = (ObservationRole.OBJECTIVE, ObservationRole.CONSTRAINT)
    registry = spec.registry
    return [
        scorer
        for scorer in spec.scoring
        if scorer.effective_role in evaluated
        and scorer.direction is None
        and (scorer.semantic_type is None or registry.direction_of(scorer.semantic_type) is None)
    ]


def _scorer_nodes(top: Located) -> dict[str, Located]:
    """Each scorer's YAML entry by name: ``score: {name: ...}`` of the authoring form, or
    ``scoring: [{name: ...}]`` of the structured form."""
    found: dict[str, Located] = {}
    if (scoring := top.get("scoring")) is not None:
        for item in scoring.elements():
            if isinstance(item.value, dict) and isinstance(item.value.get("name"), str):
                found[item.value["name"]] = item
    container = top.get("benchmark")
    entries = container.items() if container is not None else []
    if entries and (score := entries[0][1].get("score")) is not None:
        for name, item in score.items():
            found[str(name)] = item
    return found


def scorer_locations(spec_path: Path) -> dict[str, str]:
    """``file:line:column`` of each scorer the spec file declares, by name (empty when the
    file cannot be read again)."""
    from autobench.core.spec._yaml import parse_yaml

    try:
        document = parse_yaml(spec_path.read_text(encoding="utf-8"), spec_path)
    except (OSError, ValueError):
        return {}
    return {name: str(item.key_location) for name, item in _scorer_nodes(document.located).items()}


def warn_directionless(spec: BenchmarkSpec, spec_path: Path) -> list[str]:
    """Print one warning per :func:`directionless_scorers` entry on stderr and return the
    lines (empty when every objective and constraint has a direction)."""
    locations = scorer_locations(spec_path)
    lines = []
    for scorer in directionless_scorers(spec):
        where = locations.get(scorer.name, str(spec_path))
        semantic = (
            f"semantic type {scorer.semantic_type}" if scorer.semantic_type else "no semantic type"
        )
        maybe = " unless its records carry one" if scorer.kind == "python" else ""
        lines.append(
            f"{where}: {scorer.effective_role.value} {scorer.name!r} has no direction{maybe} "
            f"({semantic}, "
            "no goal): reports mark no best variant for it and comparisons say 'changed', "
            "not improved or regressed; add `goal: maximize` or `goal: minimize`, or a "
            "semantic type with a direction (quality.*, result.* maximize; time.*, money.* "
            "minimize)"
        )
    console = stderr_console()
    for line in lines:
        console.print(Text(f"warning: {line}", style="yellow"))
    return lines
