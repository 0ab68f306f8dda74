"""The warning, before ``validate`` shows a plan and before ``run`` starts a run, about
variants that name different factors.

A comparison of two variants is read factor by factor: what changed between them. When
one variant sets a factor another does not (``model`` in one, ``model_name`` in the other),
the two differ in what they name as well as in values, and a task reading
``ctx.factor("model")`` gets a ``KeyError`` in the variant that spells it otherwise. A typo
is the usual cause, so each factor some variants set and others do not is listed with the
``file:line:column`` of every variant involved, and a did-you-mean among the factor names
the other variants set (difflib, as every did-you-mean of the loader).

It is a warning, not a refusal (exit code 0): a factor that only some variants have can be
deliberate (``reasoning_effort`` only for the models that take it, an ablation that adds
one setting), and the records keep each variant's own factors, so nothing is lost.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from autobench.cli._console import stderr_console

if TYPE_CHECKING:
    from autobench.core.spec import BenchmarkSpec
    from autobench.core.spec._yaml import Located


def _variant_nodes(top: Located) -> dict[str, Located]:
    """Each variant's YAML entry by id: the authoring form (``benchmark: {<id>: {variants}}``)
    or the structured form (top-level ``variants``), as a mapping or a list."""
    variants = top.get("variants")
    if variants is None and (container := top.get("benchmark")) is not None:
        entries = container.items() if isinstance(container.value, dict) else []
        if entries and isinstance(entries[0][1].value, dict):
            variants = entries[0][1].get("variants")
    if variants is None:
        return {}
    if isinstance(variants.value, dict):
        return {str(key): entry for key, entry in variants.items()}
    if isinstance(variants.value, list):
        found = {}
        for entry in variants.elements():
            if isinstance(entry.value, dict) and isinstance(entry.value.get("id"), str):
                found[entry.value["id"]] = entry
        return found
    return {}


def _locations(spec_path: Path) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """``file:line:column`` of each variant (by id) and of each factor name (by variant id
    and name) the spec file declares; empty when the file cannot be read again."""
    from autobench.core.spec._yaml import parse_yaml

    try:
        document = parse_yaml(spec_path.read_text(encoding="utf-8"), spec_path)
    except (OSError, ValueError):
        return {}, {}
    variants: dict[str, str] = {}
    factors: dict[tuple[str, str], str] = {}
    for variant_id, entry in _variant_nodes(document.located).items():
        variants[variant_id] = str(
            entry.key_location if entry.value is None or "id" not in entry.value else entry.location
        )
        node = entry.get("factors") if isinstance(entry.value, dict) else None
        if node is not None and isinstance(node.value, dict):
            for name, item in node.items():
                factors[variant_id, str(name)] = str(item.key_location)
        elif node is not None and isinstance(node.value, list):
            for item in node.elements():
                name_item = item.get("name") if isinstance(item.value, dict) else None
                if name_item is not None:
                    factors[variant_id, str(name_item.value)] = str(name_item.location)
    return variants, factors


def factor_name_warnings(spec: BenchmarkSpec, spec_path: Path) -> list[str]:
    """One line per factor name some variants of ``spec`` set and others do not (in the
    order names first appear), located in ``spec_path``; empty when every variant names
    the same factors."""
    named = {variant.id: [factor.name for factor in variant.factors] for variant in spec.variants}
    every = [name for names in named.values() for name in names]
    partial = [
        name
        for index, name in enumerate(every)
        if name not in every[:index] and not all(name in names for names in named.values())
    ]
    if not partial:
        return []
    variant_at, factor_at = _locations(spec_path)

    def variant(variant_id: str, name: str | None = None) -> str:
        where = factor_at.get((variant_id, name)) if name else None
        where = where or variant_at.get(variant_id, str(spec_path))
        return f"'{variant_id}' ({where})"

    lines = []
    for name in partial:
        having = [vid for vid, names in named.items() if name in names]
        lacking = [vid for vid, names in named.items() if name not in names]
        elsewhere = [
            other
            for vid in lacking
            for other in named[vid]
            if not any(other in named[setter] for setter in having)
        ]
        close = difflib.get_close_matches(name, list(dict.fromkeys(elsewhere)), n=1, cutoff=0.6)
        hint = "."
        if close:
            owner = next(vid for vid in lacking if close[0] in named[vid])
            hint = f"; did you mean {close[0]!r}, as variant {variant(owner, close[0])} names it?"
        first = factor_at.get((having[0], name), variant_at.get(having[0], str(spec_path)))
        setters = ", ".join(variant(vid, name) for vid in having)
        others = ", ".join(variant(vid) for vid in lacking)
        lines.append(
            f"{first}: factor {name!r} is set by variant {setters} but not by {others}{hint} "
            "Comparisons between these variants are confounded: they differ in which factors "
            "they name, not only in values, and ctx.factor raises KeyError where one is missing."
        )
    return lines


def warn_factor_names(spec: BenchmarkSpec, spec_path: Path) -> list[str]:
    """Print :func:`factor_name_warnings` on stderr (``warning: ...``) and return them."""
    lines = factor_name_warnings(spec, spec_path)
    console = stderr_console()
    for line in lines:
        console.print(Text(f"warning: {line}", style="yellow"))
    return lines
