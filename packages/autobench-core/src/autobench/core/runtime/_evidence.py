"""The evidence buffer: where one run's observations, artifacts and errors accumulate.

The buffer only stores; :class:`~autobench.core.runtime._recorder.EvidenceRecorder`
decides what to store. Observation ids are ``obs_1``, ``obs_2``, ... and
artifact ids ``art_1``, ``art_2``, ... in recording order, per run. Appends are
safe from several threads (ids come from :func:`itertools.count`, and
``list.append`` is atomic), because a sync task may hand work to its own threads.
"""

from __future__ import annotations

import itertools
import traceback
from typing import Any

from autobench.abp import DEFAULT_CAPTURE_POLICY, Trace, gc_paused_for
from autobench.core.runtime._user_frame import user_location
from autobench.records import (
    ArtifactRef,
    AssetBinding,
    Direction,
    ErrorRecord,
    Observation,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    trusted_observation,
)


class EvidenceBuffer:
    """Observations, artifacts (with their payloads) and errors of one case x variant run."""

    __slots__ = (
        "_artifact_ids",
        "_built",
        "_entries",
        "_exception_spans",
        "_observation_ids",
        "artifacts",
        "assets",
        "case_id",
        "errors",
        "payloads",
        "traces",
        "variant_id",
    )

    def __init__(self, case_id: str, variant_id: str) -> None:
        self.case_id = case_id
        self.variant_id = variant_id
        self._entries: list[Observation | tuple[Any, ...]] = []
        """Observations in recording order; the per-metric path stores a plain tuple of
        strings and numbers instead (see :meth:`add_metric`), built on reading."""
        self._built = 0
        """Entries before this index are all built (none is a tuple)."""
        self.artifacts: list[ArtifactRef] = []
        self.payloads: dict[str, Any] = {}
        self.errors: list[ErrorRecord] = []
        self.traces: list[Trace] = []
        """External traces attached by ``attach_trace``, merged into the run's at its end."""
        self.assets: dict[str, AssetBinding] = {}
        """Tracked asset id -> the exact version attached by ``ctx.attach_tracked_asset``."""
        self._observation_ids = itertools.count(1)
        self._artifact_ids = itertools.count(1)
        self._exception_spans: dict[int, tuple[BaseException, str]] = {}

    def add_observation(
        self,
        name: str,
        value: Any,
        *,
        kind: ObservationKind,
        span_id: str | None,
        semantic_type: str | None = None,
        unit: str | None = None,
        direction: Direction | str | None = None,
        role: ObservationRole | str | None = None,
        reason: str | None = None,
        tags: dict[str, str] | None = None,
        source: ObservationSource = ObservationSource.TASK_OBSERVATION,
    ) -> Observation:
        """Store one observation (a task observation unless ``source`` says otherwise, for
        example ``derived``) and return it.

        ``direction`` and ``role`` accept the enum or its string value (raising
        ``ValueError`` for anything else). Non-numeric values, reasons and tags go
        through the default capture policy (secrets redacted, long text truncated),
        as span payloads do.
        """
        capture = DEFAULT_CAPTURE_POLICY
        observation = Observation(
            id=f"obs_{next(self._observation_ids)}",
            name=str(name),
            kind=kind,
            value=capture.apply(value),
            unit=unit,
            semantic_type=semantic_type,
            direction=None if direction is None else Direction(direction),
            role=None if role is None else ObservationRole(role),
            source=source,
            span_id=span_id,
            reason=None if reason is None else capture.text(reason),
            tags=capture.apply_mapping(dict(tags)) if tags else {},
            case_id=self.case_id,
            variant_id=self.variant_id,
        )
        self._entries.append(observation)
        return observation

    @property
    def observations(self) -> list[Observation]:
        """The run's observations in recording order (a list the runtime may extend)."""
        entries = self._entries
        start, end = self._built, len(entries)  # a thread of the task may append meanwhile
        if start < end:
            # Many live objects at once, no cycles among them: the collector would only
            # traverse them again and again.
            with gc_paused_for(end - start):
                metric = self._metric
                for index in range(start, end):
                    entry = entries[index]
                    if entry.__class__ is tuple:
                        entries[index] = metric(entry)
            self._built = end
        return entries  # type: ignore[return-value]

    def add_metric(
        self,
        name: str,
        value: Any,
        span_id: str | None,
        semantic_type: str | None = None,
        unit: str | None = None,
        direction: Direction | str | None = None,
        role: ObservationRole | str | None = None,
    ) -> Observation:
        """:meth:`add_observation` of a task metric without tags, on the per-metric path.

        Arguments of the expected types (``name`` a ``str``; ``semantic_type`` and ``unit``
        a ``str`` or ``None``) are stored without model validation
        (:func:`~autobench.records.trusted_observation`: about 0.5 microseconds instead of
        6); anything else takes :meth:`add_observation`, which validates and raises as
        before. A number, boolean or ``None`` value is stored as it is (the capture policy
        leaves those alone); other values go through it.
        """
        if (
            name.__class__ is not str
            or (unit is not None and unit.__class__ is not str)
            or (semantic_type is not None and semantic_type.__class__ is not str)
        ):
            return self.add_observation(
                name,
                value,
                kind=ObservationKind.METRIC,
                span_id=span_id,
                semantic_type=semantic_type,
                unit=unit,
                direction=direction,
                role=role,
            )
        kind = value.__class__
        if not (kind is int or kind is float or kind is bool or value is None):
            value = DEFAULT_CAPTURE_POLICY.apply(value)
        entry = (
            next(self._observation_ids),
            name,
            value,
            span_id,
            semantic_type,
            unit,
            None if direction is None else Direction(direction).value,
            None if role is None else ObservationRole(role).value,
        )
        # Kept as a tuple of strings and numbers: the garbage collector stops tracking such a
        # tuple, so a run's 100,000 metrics cost its full collections nothing (a tracked
        # model and its dict each would be traversed again and again as the run grows).
        self._entries.append(entry)
        return self._metric(entry)

    def _metric(self, entry: tuple[Any, ...]) -> Observation:
        number, name, value, span_id, semantic_type, unit, direction, role = entry
        return trusted_observation(
            {
                "id": f"obs_{number}",
                "name": name,
                "kind": ObservationKind.METRIC,
                "value": value,
                "unit": unit,
                "semantic_type": semantic_type,
                "direction": None if direction is None else Direction(direction),
                "role": None if role is None else ObservationRole(role),
                "source": ObservationSource.TASK_OBSERVATION,
                "span_id": span_id,
                "reason": None,
                "tags": {},
                "case_id": self.case_id,
                "variant_id": self.variant_id,
            }
        )

    def add_artifact(
        self,
        name: str,
        payload: Any,
        *,
        media_type: str,
        tags: dict[str, str] | None,
        span_id: str | None,
        artifact_id: str | None = None,
    ) -> ArtifactRef:
        """Store an artifact payload and return its reference (no path until a sink stores it).

        ``artifact_id`` defaults to the next ``art_<n>``; ABP payload references
        bring their own (``abp_payload_<n>``)."""
        artifact_id = artifact_id or f"art_{next(self._artifact_ids)}"
        ref = ArtifactRef(
            id=artifact_id,
            name=str(name),
            media_type=media_type,
            tags=dict(tags) if tags else {},
            span_id=span_id,
        )
        self.payloads[artifact_id] = payload
        self.artifacts.append(ref)
        return ref

    def add_error(self, error: ErrorRecord) -> ErrorRecord:
        self.errors.append(error)
        return error

    def note_exception_span(self, exc: BaseException, span_id: str) -> None:
        """Remember the innermost span an exception passed through (the first one noted)."""
        self._exception_spans.setdefault(id(exc), (exc, span_id))

    def exception_span(self, exc: BaseException) -> str | None:
        """The innermost span ``exc`` passed through, or ``None`` if it passed through none."""
        entry = self._exception_spans.get(id(exc))
        return entry[1] if entry is not None and entry[0] is exc else None


def error_record(
    error: BaseException | str,
    *,
    stage: str,
    source: str | None = None,
    span_id: str | None = None,
) -> ErrorRecord:
    """An :class:`ErrorRecord` for an exception (type, message, full traceback, and the
    innermost frame of the user's code: :func:`~autobench.core.runtime._user_frame.user_location`)
    or a message.

    A plain message becomes type ``Error`` without a traceback. Messages and
    tracebacks go through the default capture policy's text redaction: an
    exception that quotes a credential does not write it to the record.
    """
    redact = DEFAULT_CAPTURE_POLICY.text
    if isinstance(error, BaseException):
        trace = (
            redact("".join(traceback.format_exception(error)))
            if error.__traceback__ is not None
            else None
        )
        return ErrorRecord(
            stage=stage,
            type=type(error).__name__,
            message=redact(str(error)),
            traceback=trace,
            location=user_location(error),
            source=source,
            span_id=span_id,
        )
    return ErrorRecord(
        stage=stage, type="Error", message=redact(str(error)), source=source, span_id=span_id
    )
