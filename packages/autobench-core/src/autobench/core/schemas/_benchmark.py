"""The editor schema of a benchmark spec file (``autobench.yaml``).

Both forms the loader accepts are described (see
:func:`autobench.core.spec.load_benchmark_spec`): the authoring DSL
``benchmark: {<id>: {...sections}}`` and the structured form
``benchmark: {id, description}`` with the sections at the top level. Every
mapping the loader checks for unknown keys is closed
(``additionalProperties: false``), so an editor flags a misspelt key.
"""

from __future__ import annotations

from typing import Any

import pluggy

from autobench.core.plugins import (
    DeriverRegistry,
    ExecutorRegistry,
    PostDeriverRegistry,
    ScorerRegistry,
)
from autobench.core.schemas import _evaluation as evaluation
from autobench.core.schemas import _sections as sections
from autobench.core.schemas._defs import Definitions, closed, document, nullable
from autobench.core.spec._loader import DSL_KEYS, STRUCTURED_KEYS
from autobench.core.spec._models import BenchmarkInfo, LimitSpec, RetrySpec, TaskSpec
from autobench.core.spec._redaction import RedactionSpec
from autobench.records import SemanticRegistry

_TARGET = {
    "type": "string",
    "pattern": r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$",
    "description": "module:function, imported relative to the spec's directory.",
}


def _common(defs: Definitions, manager: pluggy.PluginManager) -> dict[str, Any]:
    """Sections with the same shape in both forms."""
    derivers = DeriverRegistry.from_manager(manager).by_kind.values()
    post_derivers = PostDeriverRegistry.from_manager(manager).by_kind.values()
    return {
        "dataset": nullable(defs.named("Dataset", sections.dataset_section(defs))),
        "variants": nullable(defs.named("Variants", sections.variants(defs))),
        "semantic_registry": nullable(defs.ref(SemanticRegistry)),
        "policies": nullable(evaluation.policies(defs)),
        "post_derive": nullable(evaluation.by_kind(defs, post_derivers)),
        "derive": nullable(evaluation.by_kind(defs, derivers)),
        "instrumentation": nullable(defs.named("Instrumentation", sections.instrumentation(defs))),
        "strict_scalars": nullable(
            {
                "type": "boolean",
                "description": "Refuse a factor or case value whose written text YAML reads "
                "as a number that loses it (2.10, 007).",
            }
        ),
        "executor": nullable(defs.named("Executor", _executor(manager))),
        "repeat": nullable(
            {
                "type": "integer",
                "minimum": 1,
                "description": "How many times every case x variant runs (default 1); "
                "`autobench run --repeat` overrides it.",
            }
        ),
        "limits": nullable(
            {
                "type": "object",
                "description": "Rate limits keyed by a factor name: the runs sharing a value "
                "of that factor share the budget.",
                "additionalProperties": defs.ref(LimitSpec),
            }
        ),
        "redaction": nullable(defs.ref(RedactionSpec)),
    }


def _executor(manager: pluggy.PluginManager) -> dict[str, Any]:
    """``executor: <name>`` or ``{name, <option>: <value>}``; the names are open (an
    installed plugin adds executors), those of ``manager`` are given as examples."""
    name = {
        "type": "string",
        "minLength": 1,
        "description": "An executor name: local (built in) or one an installed plugin adds.",
        "examples": list(ExecutorRegistry.from_manager(manager).names()),
    }
    return {
        "description": "The executor that runs the matrix (default: local); "
        "`autobench run --executor` overrides it.",
        "anyOf": [
            name,
            {
                "type": "object",
                "properties": {"name": name},
                "required": ["name"],
                "additionalProperties": True,
                "description": "The executor's name and its options.",
            },
        ],
    }


_TIMEOUT = nullable(
    {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "Seconds each call of the task may take; a call past it errors "
        "the attempt with stage timeout.",
    }
)


def _task(defs: Definitions) -> dict[str, Any]:
    task = defs.model(TaskSpec)
    task["properties"]["target"] = _TARGET
    task["properties"]["timeout"] = _TIMEOUT
    task["properties"]["retries"] = nullable(defs.ref(RetrySpec))
    task["properties"].pop("origin", None)
    return nullable(defs.named("TaskSpec", closed(task["properties"], required=("target",))))


def _authoring(defs: Definitions, manager: pluggy.PluginManager) -> dict[str, Any]:
    scorers = ScorerRegistry.from_manager(manager)
    body = {
        "description": nullable({"type": "string"}),
        **_common(defs, manager),
        "cases": nullable({"anyOf": [sections.cases(defs), {"type": "string"}]}),
        "run": nullable(
            closed(
                {"python": _TARGET, "timeout": _TIMEOUT, "retries": nullable(defs.ref(RetrySpec))},
                required=("python",),
            )
        ),
        "task": _task(defs),
        "score": nullable(evaluation.dsl_score(defs, scorers)),
        "report": nullable(evaluation.dsl_report(defs)),
        "reports": nullable(evaluation.structured_reports(defs)),
    }
    assert set(body) == DSL_KEYS, "the benchmark schema and the DSL loader disagree"
    benchmark = defs.named("Benchmark", closed(body, description="One named benchmark."))
    return closed(
        {
            "benchmark": {
                "type": "object",
                "description": "Benchmark id -> its sections (one benchmark per file).",
                "minProperties": 1,
                "maxProperties": 1,
                "additionalProperties": benchmark,
            },
            "strict_scalars": body["strict_scalars"],
        },
        required=("benchmark",),
        description="The authoring DSL: benchmark: {<id>: {...}}.",
    )


def _structured(defs: Definitions, manager: pluggy.PluginManager) -> dict[str, Any]:
    scorers = ScorerRegistry.from_manager(manager).by_kind.values()
    body = {
        "benchmark": defs.ref(BenchmarkInfo),
        **_common(defs, manager),
        "task": _task(defs),
        "scoring": nullable(evaluation.by_kind(defs, scorers)),
        "reports": nullable(evaluation.structured_reports(defs)),
    }
    assert set(body) == STRUCTURED_KEYS, "the benchmark schema and the loader disagree"
    return closed(
        body,
        required=("benchmark",),
        description="The structured form: benchmark: {id, description} and top-level sections.",
    )


def benchmark_schema(manager: pluggy.PluginManager) -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of a benchmark spec file, with the scorer, deriver
    and post-deriver kinds registered in ``manager``."""
    defs = Definitions()
    forms = {"anyOf": [_authoring(defs, manager), _structured(defs, manager)]}
    return document(
        "Autobench benchmark spec",
        "A benchmark in the authoring DSL (benchmark: {<id>: {...}}) or the structured form.",
        forms,
        defs,
    )
