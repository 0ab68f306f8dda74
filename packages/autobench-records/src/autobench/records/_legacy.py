"""Older record shapes, converted into the one :class:`~autobench.abp.Trace` model on load.

Two older shapes are read (never written):

**Legacy trace envelope** (what adapters built as ``TraceEnvelope(...)`` and
what older run records stored under ``trace:``)::

    trace_id: trace-42                  # -> id
    name: checkout-agent
    root_span_ids: [...]                # dropped: roots are spans without a parent
    spans:
      - span_id: s1                     # or id            -> id
        parent_id: null                 # or parent_span_id -> parent
        name: llm_call                  # or operation     -> operation
        duration_seconds: 0.42          # or duration      -> duration
        scope: {instrumentor_name: x, instrumentor_version: 1, package_name: p,
                package_version: 1, mechanism: hook, layer: client}
                                        # -> scope key "x" plus an entry of ``scopes``

Any other field is kept as it is (the models keep unknown fields). A span
without ``started_at`` takes the earliest ``started_at`` of the trace (or the
run's start, or the Unix epoch); a span without ``offset`` gets its
``started_at`` minus the trace's earliest one (wall clock: the only clock
such records have).

**Legacy span tree** (the ``spans:`` section of older run records), a mapping
keyed by span name::

    spans:
      call_router: {kind: workflow, started_at: ..., duration: 0.0124, attributes: {...}}
      lookup_user: {kind: tool, parent: call_router, input: {...}, output: {...}}

Each entry becomes a span with operation = its name, the id ``legacy-`` plus
the first 12 hex digits of the name's sha256, and the parent named by
``parent``. When the record also has a ``trace:`` with spans, tree entries
whose name is not already an operation of that trace are added to it; an
entry without a known parent then hangs under the trace's first root.

**Legacy run record sections**: ``scores`` and ``artifacts`` as mappings keyed
by name become lists; ``metrics: {measurements: {...}, diagnostics: {...}}``
becomes observations (diagnostics with kind and role ``diagnostic``);
``assets: {name: {version}}`` becomes factor observations; ``protocol:`` is
dropped (the trace names its protocol); a ``run:`` without ``index`` gets 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

LEGACY_SCOPE = "autobench.legacy"
"""Scope key of spans converted from a legacy span tree."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SPAN_RENAMES = {
    "span_id": "id",
    "parent_id": "parent",
    "parent_span_id": "parent",
    "name": "operation",
    "duration_seconds": "duration",
}
_SCOPE_RENAMES = {
    "instrumentor_name": "name",
    "instrumentor_version": "version",
    "package_name": "package",
}
_LEGACY_RUN_SECTIONS = ("spans", "metrics", "protocol", "assets")


def is_legacy_trace(document: Mapping[str, Any]) -> bool:
    """Whether a trace document uses the legacy envelope shape (see the module docstring)."""
    if "trace_id" in document and "id" not in document:
        return True
    spans = document.get("spans")
    if isinstance(spans, list) and spans and isinstance(spans[0], Mapping):
        first = spans[0]  # a trace is written in one shape: its first span tells which
        return not first.keys().isdisjoint(_SPAN_RENAMES) or isinstance(first.get("scope"), Mapping)
    return False


def upgrade_trace_document(
    document: Mapping[str, Any], *, started_at: datetime | None = None
) -> dict[str, Any]:
    """A legacy trace envelope document as a current trace document (unchanged if current)."""
    if not is_legacy_trace(document):
        return dict(document)
    trace = {key: value for key, value in document.items() if key != "root_span_ids"}
    if "trace_id" in trace:
        trace.setdefault("id", trace.pop("trace_id"))
    scopes: dict[str, Any] = dict(trace.get("scopes") or {})
    spans = [_upgrade_span(span, scopes) for span in trace.get("spans") or ()]
    trace["spans"] = _fill_times(spans, started_at)
    if scopes:
        trace["scopes"] = scopes
    return trace


def _upgrade_span(span: Mapping[str, Any], scopes: dict[str, Any]) -> dict[str, Any]:
    upgraded: dict[str, Any] = {}
    for key, value in span.items():
        target = _SPAN_RENAMES.get(key, key)
        if target not in upgraded or key == target:
            upgraded[target] = value
    scope = upgraded.get("scope")
    if isinstance(scope, Mapping):
        entry = {_SCOPE_RENAMES.get(key, key): value for key, value in scope.items()}
        entry.setdefault("name", "unknown")
        entry.setdefault("version", "0")
        entry["version"] = str(entry["version"])
        if entry.get("package_version") is not None:
            entry["package_version"] = str(entry["package_version"])
        scopes.setdefault(entry["name"], entry)
        upgraded["scope"] = entry["name"]
    return upgraded


def _fill_times(
    spans: list[dict[str, Any]], started_at: datetime | None, *, origin: datetime | None = None
) -> list[dict[str, Any]]:
    """Give every span a ``started_at`` and an ``offset`` (rules in the module docstring);
    offsets count from ``origin``, by default the earliest ``started_at``."""
    starts = [_as_datetime(span.get("started_at")) for span in spans]
    known = [start for start in starts if start is not None]
    if origin is None:
        origin = min(known) if known else (started_at or _EPOCH)
    for span, start in zip(spans, starts, strict=True):
        if start is None:
            span["started_at"] = origin
            span.setdefault("offset", 0.0)
        else:
            span.setdefault("offset", max(0.0, (start - origin).total_seconds()))
    return spans


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    return None


def legacy_span_id(name: str) -> str:
    """The span id given to the legacy span-tree entry ``name``."""
    return "legacy-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]


def span_tree_spans(
    tree: Mapping[str, Any], *, root: str | None = None, known: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Span documents for a legacy ``spans:`` mapping (name -> fields), in mapping order.

    ``known`` maps operation names already in the trace to their span ids (a
    ``parent`` naming one of them links to it); ``root`` is the parent of
    entries whose ``parent`` is missing or unknown (``None``: they are roots).
    """
    ids = {name: legacy_span_id(str(name)) for name in tree}
    known = dict(known or {})
    spans: list[dict[str, Any]] = []
    for name, fields in tree.items():
        entry = dict(fields) if isinstance(fields, Mapping) else {}
        parent_name = entry.pop("parent", None)
        parent = ids.get(parent_name) or known.get(parent_name) or root
        span = {"id": ids[name], "operation": str(name), "parent": parent, **entry}
        span.setdefault("scope", LEGACY_SCOPE)
        spans.append(span)
    return spans


def _legacy_scope() -> dict[str, Any]:
    return {"name": LEGACY_SCOPE, "version": "0", "mechanism": "manual", "layer": "application"}


def is_legacy_run_body(body: Mapping[str, Any]) -> bool:
    """Whether parsed ``run.yaml`` sections use any legacy shape (see the module docstring)."""
    return (
        not body.keys().isdisjoint(_LEGACY_RUN_SECTIONS)
        or isinstance(body.get("scores"), Mapping)
        or isinstance(body.get("artifacts"), Mapping)
        or (isinstance(body.get("trace"), Mapping) and is_legacy_trace(body["trace"]))
        or (isinstance(body.get("run"), Mapping) and "index" not in body["run"])
    )


def upgrade_run_body(body: dict[str, Any]) -> dict[str, Any]:
    """Convert the legacy sections of parsed ``run.yaml`` sections in place; return ``body``."""
    if not is_legacy_run_body(body):
        return body
    run = body.get("run")
    started_at = None
    if isinstance(run, dict):
        run.setdefault("index", 0)
        started_at = _as_datetime(run.get("started_at"))
    body.pop("protocol", None)
    trace = body.get("trace")
    if isinstance(trace, Mapping) and "artifact" not in trace:
        body["trace"] = upgrade_trace_document(trace, started_at=started_at)
    tree = body.pop("spans", None)
    if isinstance(tree, Mapping) and tree:
        body["trace"] = _with_span_tree(body.get("trace"), tree, run, started_at)
    observations = list(body.get("observations") or ())
    observations += _metric_observations(body.pop("metrics", None))
    observations += _asset_observations(body.pop("assets", None))
    if observations:
        body["observations"] = observations
    for section, key in (("scores", "name"), ("artifacts", "id")):
        value = body.get(section)
        if isinstance(value, Mapping):
            body[section] = [_keyed(name, item, key) for name, item in value.items()]
    return body


def _keyed(name: str, item: Any, key: str) -> dict[str, Any]:
    entry = dict(item) if isinstance(item, Mapping) else {"value": item}
    entry.setdefault(key, name)
    entry.setdefault("name", name)
    return entry


def _with_span_tree(
    trace: Any, tree: Mapping[str, Any], run: Any, started_at: datetime | None
) -> dict[str, Any]:
    document = dict(trace) if isinstance(trace, Mapping) and "artifact" not in trace else {}
    if not document:
        run_id = run.get("id") if isinstance(run, Mapping) else None
        document = {"id": f"legacy-{run_id or 'trace'}"}
    existing = list(document.get("spans") or ())
    known = {span.get("operation"): span.get("id") for span in existing}
    roots = [span.get("id") for span in existing if span.get("parent") is None]
    added = span_tree_spans(
        {name: fields for name, fields in tree.items() if name not in known},
        root=roots[0] if roots else None,
        known=known,
    )
    origin = None
    if existing:
        base = _as_datetime(existing[0].get("started_at"))
        offset = existing[0].get("offset")
        if base is not None and isinstance(offset, int | float):
            origin = base - timedelta(seconds=offset)
    added = _fill_times(added, started_at, origin=origin)
    document["spans"] = existing + added
    scopes = dict(document.get("scopes") or {})
    if any(span.get("scope") == LEGACY_SCOPE for span in added):
        scopes.setdefault(LEGACY_SCOPE, _legacy_scope())
    document["scopes"] = scopes
    return document


def _metric_observations(metrics: Any) -> list[dict[str, Any]]:
    if not isinstance(metrics, Mapping):
        return []
    observations: list[dict[str, Any]] = []
    for group, entries in metrics.items():
        if not isinstance(entries, Mapping):
            continue
        for name, fields in entries.items():
            entry = dict(fields) if isinstance(fields, Mapping) else {"value": fields}
            entry.setdefault("id", f"legacy.{name}")
            entry.setdefault("name", name)
            if group == "diagnostics":
                entry.setdefault("kind", "diagnostic")
                entry.setdefault("role", "diagnostic")
            observations.append(entry)
    return observations


def _asset_observations(assets: Any) -> list[dict[str, Any]]:
    if not isinstance(assets, Mapping):
        return []
    return [
        {
            "id": f"legacy.asset.{name}",
            "name": str(name),
            "kind": "factor",
            "value": fields.get("version") if isinstance(fields, Mapping) else fields,
        }
        for name, fields in assets.items()
    ]
