"""The ``redaction:`` section: secret names and patterns a benchmark adds to the built-in
redaction rules.

.. code-block:: yaml

    redaction:
      keys: [session_id, x-tenant-key]        # mapping keys whose values are secret
      patterns: ['acme_[A-Za-z0-9]{32}']      # regular expressions, anywhere in text
      query_params: [ticket]                  # URL query / form parameters

Every capture policy of the process redacts them once the spec is built (see
:mod:`autobench.abp._secrets`), and ``experiment.yaml`` records them for the readers.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from autobench.abp import pattern_problem
from autobench.core.spec._checks import expect_keys, expect_mapping, model_keys, validate_model
from autobench.core.spec._yaml import Located


def _compiles(pattern: str) -> str:
    """``pattern`` when it can be a secret pattern (:func:`autobench.abp.pattern_problem`)."""
    problem = pattern_problem(pattern)
    if problem is not None:
        raise ValueError(f"{pattern!r} {problem}")
    return pattern


class RedactionSpec(BaseModel):
    """Secrets the benchmark's application handles beyond the built-in rules
    (``redaction: {keys, patterns, query_params}``): mapping keys whose values are secret
    (any spelling: ``sessionId`` matches ``session_id``, ``X-Session-Id``), regular
    expressions whose matches are secret wherever they occur, and URL query or form
    parameter names whose values are secret. Added to every capture policy of the process
    when the spec is built (:func:`autobench.abp.extend_redaction`) and recorded in
    ``experiment.yaml`` for the record's readers. A pattern that
    :func:`autobench.abp.pattern_problem` refuses (not a regular expression, matching the
    empty string, nested unbounded repetition, over 1,000 characters) raises
    ``ValueError``."""

    model_config = ConfigDict(frozen=True, extra="forbid")  # as every spec model

    keys: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    patterns: tuple[Annotated[str, Field(min_length=1), AfterValidator(_compiles)], ...] = ()
    query_params: tuple[Annotated[str, Field(min_length=1)], ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.keys or self.patterns or self.query_params)


def load_redaction(item: Located) -> RedactionSpec:
    """``redaction: {keys: [...], patterns: [...], query_params: [...]}``; raises a located
    :class:`~autobench.core.spec.SpecError` for an unknown key, a value that is not a list
    of strings, or a pattern that does not compile (at that pattern)."""
    fields = expect_mapping(item, "redaction")
    expect_keys(item, model_keys(RedactionSpec), "redaction")
    return validate_model(RedactionSpec, fields, item, "redaction")
