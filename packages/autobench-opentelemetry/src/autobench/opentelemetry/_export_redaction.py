"""The output redaction of exported spans: every text an OTLP export carries.

Span and event names, attribute values and keys (of the resource, the scopes, the spans,
their events and links) and status descriptions pass through
:func:`autobench.report.redact_text` with the record's policy
(:func:`autobench.report.output_policy`), so the spans sent or written hold no secret the
policy recognises. A span with nothing to redact is kept as the same object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from autobench.abp import CapturePolicy
from autobench.records import redact_strings
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, Status

Redact = Callable[[Any], Any]


def redact_spans(spans: Sequence[ReadableSpan], policy: CapturePolicy) -> list[ReadableSpan]:
    """``spans`` with every text in them redacted by ``policy`` (see the module docstring);
    resources and scopes shared by spans are redacted once and stay shared."""

    def redact(value: Any) -> Any:
        return redact_strings(value, policy)

    resources: dict[int, Resource] = {}
    scopes: dict[int, InstrumentationScope | None] = {}
    return [_span(span, redact, resources, scopes) for span in spans]


def _attributes(values: Mapping[str, Any] | None, redact: Redact) -> dict[str, Any] | None:
    """The redacted copy of ``values``, or ``None`` when nothing changed."""
    if not values:
        return None
    plain = dict(values)
    redacted = redact(plain)
    return None if redacted is plain else cast(dict[str, Any], redacted)


def _resource(resource: Resource, redact: Redact, known: dict[int, Resource]) -> Resource:
    made = known.get(id(resource))
    if made is None:
        attributes = _attributes(resource.attributes, redact)
        made = resource if attributes is None else Resource(attributes, resource.schema_url)
        known[id(resource)] = made
    return made


def _scope(
    scope: InstrumentationScope | None,
    redact: Redact,
    known: dict[int, InstrumentationScope | None],
) -> InstrumentationScope | None:
    if scope is None:
        return None
    if id(scope) not in known:
        attributes = _attributes(scope.attributes, redact)
        name = redact(scope.name)
        known[id(scope)] = (
            scope
            if attributes is None and name is scope.name
            else InstrumentationScope(
                name,
                scope.version,
                scope.schema_url,
                cast(Any, attributes if attributes is not None else scope.attributes),
            )
        )
    return known[id(scope)]


def _span(
    span: ReadableSpan,
    redact: Redact,
    resources: dict[int, Resource],
    scopes: dict[int, InstrumentationScope | None],
) -> ReadableSpan:
    changed = False
    name = redact(span.name)
    changed |= name is not span.name
    attributes = _attributes(span.attributes, redact)
    changed |= attributes is not None
    events = []
    for event in span.events:
        event_name = redact(event.name)
        event_attributes = _attributes(event.attributes, redact)
        if event_attributes is None and event_name is event.name:
            events.append(event)
            continue
        changed = True
        events.append(
            Event(
                event_name,
                cast(Any, event_attributes if event_attributes is not None else event.attributes),
                event.timestamp,
            )
        )
    links = []
    for link in span.links:
        link_attributes = _attributes(link.attributes, redact)
        if link_attributes is None:
            links.append(link)
            continue
        changed = True
        links.append(Link(link.context, cast(Any, link_attributes)))
    status = span.status
    if status.description:
        description = redact(status.description)
        if description is not status.description:
            changed = True
            status = Status(status.status_code, description)
    resource = _resource(span.resource, redact, resources)
    scope = _scope(span.instrumentation_scope, redact, scopes)
    changed |= resource is not span.resource or scope is not span.instrumentation_scope
    if not changed:
        return span
    return ReadableSpan(
        name=name,
        context=span.context,
        parent=span.parent,
        resource=resource,
        attributes=cast(Any, attributes if attributes is not None else span.attributes),
        events=events,
        links=links,
        kind=span.kind,
        status=status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=scope,
    )
