"""Schemas of the spec sections shared by the authoring DSL, the structured form and
dataset files: cases, datasets, variants, instrumentation."""

from __future__ import annotations

from typing import Any

from autobench.core.native import INTEGRATION_IDS, SETTINGS_MODELS
from autobench.core.native._settings import DiscoverySettings
from autobench.core.schemas._defs import Definitions, closed, nullable
from autobench.core.spec._models import CaseDefaults
from autobench.records import Case, FactorValue

_TEXT = {"type": "string"}
_METADATA = nullable({"type": "object", "description": "Free-form metadata (any keys)."})
_VERSION = nullable(
    {"type": ["string", "integer"], "description": "Dataset version (an integer reads as text)."}
)
_FILE_REFERENCE = {
    "type": "string",
    "description": "A local file, file:// reference or glob, relative to the spec's directory.",
}


def cases(defs: Definitions) -> dict[str, Any]:
    """A list of cases."""
    return {"type": "array", "items": defs.ref(Case)}


def dataset_file_body(defs: Definitions, *, cases_required: bool) -> dict[str, Any]:
    """``{id, version, metadata, defaults, cases}``: the body of a dataset file."""
    return closed(
        {
            "id": nullable(_TEXT),
            "version": _VERSION,
            "metadata": _METADATA,
            "defaults": nullable(defs.ref(CaseDefaults)),
            "cases": cases(defs),
        },
        required=("cases",) if cases_required else (),
        description="Cases with an optional dataset id, version, metadata and case defaults.",
    )


def dataset_section(defs: Definitions) -> dict[str, Any]:
    """The ``dataset`` section of a spec: inline cases or a file reference."""
    return closed(
        {
            "id": nullable(_TEXT),
            "version": _VERSION,
            "metadata": _METADATA,
            "source": nullable(_FILE_REFERENCE),
            "defaults": nullable(defs.ref(CaseDefaults)),
            "cases": nullable({"anyOf": [cases(defs), _FILE_REFERENCE]}),
        },
        description="Inline cases, or the dataset file(s) named by 'source' or 'cases'.",
    )


def variants(defs: Definitions) -> dict[str, Any]:
    """Variants in mapping form ``{<id>: {...}}`` or list form ``[{id, ...}]``."""
    factor = defs.model(FactorValue)
    named_factor = closed(factor["properties"], required=("name",))
    structured_factor = closed(
        {key: value for key, value in factor["properties"].items() if key != "name"},
        required=("value",),
        description="A factor value with its semantic type and optimisation hint.",
    )
    factors = {
        "description": "Factor name -> value, or {value, semantic, optimize, description}.",
        "anyOf": [
            {
                "type": "object",
                "additionalProperties": {
                    "if": {"type": "object", "required": ["value"]},
                    "then": structured_factor,
                },
            },
            {"type": "array", "items": named_factor},
        ],
    }
    body = {"label": nullable(_TEXT), "description": nullable(_TEXT), "factors": nullable(factors)}
    by_id = closed(body, description="A named combination of factor values.")
    listed = closed({"id": _TEXT, **body}, required=("id",))
    return {
        "anyOf": [
            {"type": "object", "additionalProperties": nullable(defs.named("VariantBody", by_id))},
            {"type": "array", "items": listed},
        ]
    }


def instrumentation(defs: Definitions) -> dict[str, Any]:
    """The ``instrumentation`` section: discovery (``all``) and one entry per integration."""
    discovery = defs.model(DiscoverySettings)
    discovery["properties"]["exclude"] = {
        "type": "array",
        "items": {"enum": list(INTEGRATION_IDS)},
        "description": "Integrations discovery leaves out.",
    }
    properties: dict[str, Any] = {
        "all": {
            "description": "Install every installed, compatible built-in integration.",
            "anyOf": [defs.named("DiscoverySettings", discovery), {"type": ["boolean", "null"]}],
        }
    }
    for name in INTEGRATION_IDS:
        model = SETTINGS_MODELS[name]
        properties[name] = {
            "description": f"The {name} integration: settings, true for the defaults, false for off.",
            "anyOf": [defs.ref(model), {"type": ["boolean", "null"]}],
        }
    return closed(properties, description="Native SDK instrumentation of every run.")
