"""Autobench and OpenTelemetry, both ways.

* Import: the ``opentelemetry`` instrumentor turns the OpenTelemetry spans started inside
  a run into ABP spans of that run, mapping the GenAI semantic conventions to Autobench
  semantics (``autobench.opentelemetry._import``).
* Export: ``autobench export DIR --format otlp-json`` writes an experiment's traces as
  OTLP JSON, and ``--format otlp --endpoint URL`` sends them over OTLP/HTTP
  (``autobench.opentelemetry._export``).

Installed by the ``autobench-opentelemetry`` distribution (the ``opentelemetry`` extra of
``autobench``, part of ``instrumentation``). Core never imports an OpenTelemetry SDK.
"""
