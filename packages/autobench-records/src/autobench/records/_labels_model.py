"""The model of a human labels file: what people said about a record's outputs.

A labels file sits beside a record (``labels.yaml`` in the record directory by convention,
:data:`LABELS_FILE`) and names, per item, the run it labels (``run_id``, or ``case`` and
``variant``) and the label a person gave it, optionally who gave it and a note. Reading and
writing live in :mod:`autobench.records._labels`; this module imports only pydantic so the
schema builders can use it.
"""

from __future__ import annotations

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    model_validator,
)

LABELS_VERSION = 1
"""The version of the labels files this Autobench writes and reads."""

LABELS_FILE = "labels.yaml"
"""The conventional name of the labels file inside a record directory: the report shows the
calibration of the score it names, and ``autobench label`` writes it."""

LabelValue = StrictBool | StrictInt | StrictFloat | str
"""A label: ``true``/``false`` for pass/fail, an integer for an ordinal scale, text for
named categories (a CSV cell is text; it is read against the score's scale when matched)."""


class Label(BaseModel):
    """One person's label of one run: ``run_id``, or ``case`` and ``variant`` (which must
    then name a single run: with repeats, use ``run_id``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    run_id: str | None = Field(default=None, min_length=1)
    case: str | None = Field(default=None, min_length=1)
    variant: str | None = Field(default=None, min_length=1)
    label: LabelValue
    labeller: str | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _names_a_run(self) -> Label:
        if self.run_id is None and (self.case is None or self.variant is None):
            raise ValueError("a label names its run: run_id, or both case and variant")
        return self

    @property
    def item(self) -> str:
        """How messages name the labelled item: ``run <id>`` or ``case <c> / variant <v>``."""
        if self.run_id is not None:
            return f"run {self.run_id}"
        return f"case {self.case} / variant {self.variant}"


class LabelsFile(BaseModel):
    """A labels file: the ``score`` the labels are for (the name of a score of the record's
    runs; ``None`` when the file does not say) and the labels, in the order written."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    score: str | None = Field(default=None, min_length=1)
    labels: tuple[Label, ...] = ()
