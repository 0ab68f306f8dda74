"""The ``instrumentation`` section: native SDK instrumentors, with located errors.

Shape (the same in the authoring DSL and the structured form)::

    instrumentation:
      all: {exclude: [httpx], strict: false}   # discovery (optional)
      openai: {}                               # an integration, privacy-safe defaults
      httpx: {capture: {path: hash, response_headers: [x-request-id]}}
      openai_agents: false                     # kept off whatever discovery finds
      pydantic_ai: true                        # the same as {} (null: not set)

Unknown integration names, unknown settings, unknown exclusions and capture modes
are :class:`SpecError`\\ s naming the file, line and column. Loading never imports
an instrumentor or an SDK.
"""

from __future__ import annotations

from typing import Any

from autobench.core.native import INTEGRATION_IDS, SETTINGS_MODELS, InstrumentationSpec
from autobench.core.native._settings import DiscoverySettings
from autobench.core.spec._checks import expect_keys, expect_mapping, validate_model
from autobench.core.spec._errors import SpecError
from autobench.core.spec._yaml import Located, kind_of

SECTION_KEYS = frozenset({"all", *INTEGRATION_IDS})


def load_instrumentation(item: Located) -> InstrumentationSpec:
    """The :class:`InstrumentationSpec` of an ``instrumentation`` section (null: none)."""
    if item.value is None:
        return InstrumentationSpec()
    expect_mapping(item, "instrumentation")
    expect_keys(item, SECTION_KEYS, "instrumentation")
    values: dict[str, Any] = {}
    for key, entry in item.items():
        if entry.value is None:
            continue  # not set, as in the structured form of an unset entry
        if key == "all":
            values["all"] = _discovery(entry)
        elif entry.value is False:
            values[key] = False
        elif entry.value is True:
            values[key] = SETTINGS_MODELS[key]()  # `openai: true` = `openai: {}`: the defaults
        else:
            expect_mapping(entry, f"instrumentation '{key}'")
            values[key] = validate_model(
                SETTINGS_MODELS[key], entry.value, entry, f"instrumentation '{key}'"
            )
    return InstrumentationSpec(**values)


def _discovery(entry: Located) -> DiscoverySettings:
    if entry.value is True:
        return DiscoverySettings()
    if not isinstance(entry.value, dict):
        raise SpecError(
            entry.location,
            f"instrumentation 'all' must be a mapping, not {kind_of(entry.value)}",
            expected="{exclude: [...], strict: true|false}",
        )
    exclude = entry.get("exclude")
    if exclude is not None and isinstance(exclude.value, list):
        for element in exclude.elements():
            if element.value not in INTEGRATION_IDS:
                raise SpecError(
                    element.location,
                    f"unknown integration {element.value!r} in exclude",
                    expected="one of: " + ", ".join(INTEGRATION_IDS),
                )
    return validate_model(DiscoverySettings, entry.value, entry, "instrumentation 'all'")
