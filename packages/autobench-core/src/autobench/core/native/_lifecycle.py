"""Which instrumentors a benchmark installs, and their installation around the matrix.

:func:`resolve_instrumentation` turns a spec's :class:`InstrumentationSpec` and its
runtime-only custom instrumentors into the instrumentors to install, in this order
and with this precedence (spec "Native Instrumentation"):

1. custom :class:`~autobench.abp.Instrumentor` instances, as given; two with one id
   are refused;
2. explicit entries (settings), unless a custom instrumentor has that id; ``false``
   keeps an integration off;
3. with ``all``: every other built-in integration that is not excluded.

An integration that cannot be installed here (its distribution or SDK is missing, or
its SDK's version is outside the supported range) is skipped with a reason, or, with
``all.strict``, raises :class:`~autobench.abp.InstrumentationError` before anything
runs. :class:`InstrumentationSession` installs the selected instrumentors through one
:class:`~autobench.abp.InstrumentationManager` and closes them when the matrix ends,
whatever the way it ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from autobench.abp import (
    Compatibility,
    InstrumentationError,
    InstrumentationManager,
    Instrumentor,
)
from autobench.core.native._integrations import (
    IntegrationEntry,
    create_instrumentor,
    status_of,
)
from autobench.core.native._settings import InstrumentationSpec, IntegrationSettings

SKIPPED = "instrumentation.skipped"
"""Name of the diagnostic every run records for an integration that was not installed."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """An integration left out, and why."""

    integration: str
    state: str
    reason: str


@dataclass(slots=True)
class ResolvedInstrumentation:
    """The instrumentors to install, in order, and the integrations skipped."""

    instrumentors: list[Instrumentor] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    strict: bool = False


def resolve_instrumentation(
    spec: InstrumentationSpec,
    custom: Sequence[Instrumentor],
    entries: Sequence[IntegrationEntry],
) -> ResolvedInstrumentation:
    """The instrumentors a benchmark installs (module rules). Raises ``ValueError`` when two
    custom instrumentors share an id, and :class:`InstrumentationError` when ``strict`` and a
    selected integration cannot be installed."""
    strict = spec.all is not None and spec.all.strict
    resolved = ResolvedInstrumentation(strict=strict)
    taken: set[str] = set()
    for instrumentor in custom:
        instrumentor_id = instrumentor.info.id
        if instrumentor_id in taken:
            raise ValueError(f"two instrumentors share the id {instrumentor_id!r}")
        taken.add(instrumentor_id)
        resolved.instrumentors.append(instrumentor)
    by_id = {entry.id: entry for entry in entries}
    explicit = spec.explicit()
    wanted: list[tuple[IntegrationEntry, IntegrationSettings | None]] = []
    for name, chosen in explicit.items():
        if name in taken or chosen is False:
            continue
        wanted.append((by_id[name], chosen))
    if spec.all is not None:
        excluded = set(spec.all.exclude)
        for entry in entries:
            if entry.id in taken or entry.id in explicit or entry.id in excluded:
                continue
            wanted.append((entry, None))
    for entry, settings in wanted:
        status = status_of(entry)
        if not status.compatibility.installable:
            resolved.skipped.append(_skipped(entry.id, status.compatibility, strict=strict))
            continue
        resolved.instrumentors.append(create_instrumentor(entry, settings))
    return resolved


def _skipped(name: str, compatibility: Compatibility, *, strict: bool) -> Skipped:
    """What skipping integration ``name`` records; with ``strict``, the error instead."""
    if strict:
        raise InstrumentationError(
            Compatibility(
                compatibility.state,
                compatibility.reason,
                compatibility.instrumentor or name,
                compatibility.target_version,
            )
        )
    return Skipped(name, str(compatibility.state), compatibility.reason)


class InstrumentationSession:
    """Installs resolved instrumentors for the benchmark matrix; a context manager.

    ``skipped`` lists what was not installed (resolution and installation alike); the
    runtime records it on every run. Closing uninstalls everything (also on error or
    cancellation); it is idempotent.
    """

    def __init__(self, resolved: ResolvedInstrumentation, *, capture_policy: Any = None) -> None:
        self.resolved = resolved
        self.manager = InstrumentationManager(capture_policy=capture_policy)
        self.skipped: list[Skipped] = list(resolved.skipped)

    def __enter__(self) -> InstrumentationSession:
        try:
            for instrumentor in self.resolved.instrumentors:
                try:
                    self.manager.install(instrumentor)
                except InstrumentationError as error:
                    self.skipped.append(
                        _skipped(
                            instrumentor.info.id, error.compatibility, strict=self.resolved.strict
                        )
                    )
        except BaseException:
            self.manager.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.manager.close()

    def diagnostics(self) -> tuple[tuple[str, dict[str, str], str], ...]:
        """``(name, value, reason)`` of the diagnostic each run records per skipped integration."""
        return tuple(
            (SKIPPED, {"integration": item.integration, "state": item.state}, item.reason)
            for item in self.skipped
        )
