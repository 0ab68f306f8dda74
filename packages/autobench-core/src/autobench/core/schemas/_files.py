"""The editor schemas of dataset and pricing files."""

from __future__ import annotations

from typing import Any

from autobench.core.pricing._io import PricingDocument
from autobench.core.schemas import _sections as sections
from autobench.core.schemas._defs import Definitions, closed, document
from autobench.core.spec._datasets import FILE_KEYS


def dataset_schema() -> dict[str, Any]:
    """The JSON schema of a dataset file, in every form the loader reads: ``{cases, id,
    version, metadata, defaults}``, the id-keyed ``{<id>: {..., cases}}``, either one under
    a top-level ``dataset:`` (with an optional ``record:`` header), or a bare list of cases."""
    defs = Definitions()
    body = defs.named("DatasetFile", sections.dataset_file_body(defs, cases_required=True))
    keyed = {
        "type": "object",
        "description": "Dataset id -> its body.",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": {"not": {"enum": sorted(FILE_KEYS)}},
        "additionalProperties": body,
    }
    listed = sections.cases(defs)
    wrapped = closed(
        {
            "record": {"type": "object", "description": "The header of an exported dataset."},
            "dataset": {"anyOf": [body, keyed, listed]},
        },
        required=("dataset",),
    )
    return document(
        "Autobench dataset file",
        "The cases of a benchmark, with optional id, version, metadata and defaults.",
        {"anyOf": [body, keyed, wrapped, listed]},
        defs,
    )


def pricing_schema() -> dict[str, Any]:
    """The JSON schema of a pricing file (``pricing:`` and an optional ``record:`` header)."""
    defs = Definitions()
    body = defs.model(PricingDocument)
    return document(
        "Autobench pricing file",
        "Token prices per model, read by the token_cost deriver.",
        {key: value for key, value in body.items() if key != "title"},
        defs,
    )
