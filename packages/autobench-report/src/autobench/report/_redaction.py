"""Output redaction, as the report and the CLI use it: the functions of
:mod:`autobench.records._output_redaction` (one mechanism, shared with the OpenTelemetry
exporter, which does not depend on the report)."""

from autobench.records import (
    output_policy,
    redact_content,
    redact_known,
    redact_strings,
    redact_text,
    redact_url,
    url_secrets,
)

__all__ = [
    "output_policy",
    "redact_content",
    "redact_known",
    "redact_strings",
    "redact_text",
    "redact_url",
    "url_secrets",
]
