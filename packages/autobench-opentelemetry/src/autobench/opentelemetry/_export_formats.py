"""The ``otlp-json`` and ``otlp`` export formats (light: the OpenTelemetry SDK and the
protobuf types are imported when a format is used, not when formats are listed).

Both are replay-only: they read the record's runs and traces (``needs_traces``) and never
import the task. What the spans hold is described in
:mod:`autobench.opentelemetry._export_spans` and ``docs/opentelemetry.md`` (Export).
"""

from __future__ import annotations

from autobench.records import ExperimentResult


class OtlpJsonExporter:
    """``otlp-json``: the experiment's traces as one OTLP JSON request (a one-line file)."""

    name = "otlp-json"
    extension = "json"
    description = "OpenTelemetry traces as OTLP JSON: one resource, a trace per run."
    needs_traces = True

    def prepare(self) -> None:
        """Import the OpenTelemetry SDK and encoder now, while the record is read."""
        import autobench.opentelemetry._export_otlp  # noqa: F401

    def export(self, report: object, result: ExperimentResult) -> str:
        """The OTLP JSON text of ``result`` (``report`` is not used)."""
        from autobench.opentelemetry._export_otlp import otlp_json, otlp_request

        return otlp_json(otlp_request(result))


class OtlpHttpExporter:
    """``otlp``: sends the experiment's traces to an OTLP/HTTP endpoint (``send``).

    ``export`` gives the protobuf body of the request (an ``ExportTraceServiceRequest``,
    binary), for a program that wants the bytes; ``autobench export`` calls ``send``.
    """

    name = "otlp"
    extension = "binpb"
    description = "Send OpenTelemetry traces to an OTLP/HTTP endpoint (--endpoint URL)."
    needs_traces = True

    def prepare(self) -> None:
        """Import the OpenTelemetry SDK and the OTLP/HTTP exporter now, while the record is read."""
        import autobench.opentelemetry._export_otlp
        import autobench.opentelemetry._export_send  # noqa: F401

    def export(self, report: object, result: ExperimentResult) -> bytes:
        """The OTLP protobuf encoding of ``result`` (``report`` is not used)."""
        from autobench.opentelemetry._export_otlp import otlp_request

        return otlp_request(result).SerializeToString()

    def send(self, report: object, result: ExperimentResult, endpoint: str) -> str:
        """Send every span of ``result`` to ``endpoint`` over OTLP/HTTP; return one line
        saying what went where. Raises ``OtlpSendError`` (an ``AutobenchError``) when the
        URL is not http(s) or a request fails."""
        from autobench.opentelemetry._export_send import send_spans
        from autobench.opentelemetry._export_spans import experiment_spans

        spans = experiment_spans(result)
        url = send_spans(spans, endpoint)
        return f"sent {len(spans):,} spans of {len(result.runs):,} runs to {url}"
