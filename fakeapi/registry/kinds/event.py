"""Events: core/v1 Event (what ``kubectl get events`` and ``describe`` read) and events.k8s.io/v1.

Events have no status subresource and no spec: every field is written by the reporter. The core
printer follows upstream's: Last Seen prefers the series' last observation, then lastTimestamp,
then the first time seen; Object is ``<kind lowercased>/<name>``; Count is 1 for singleton events
written through the new API. ``kubectl describe`` finds an object's events with the
``involvedObject.*`` field selectors, so all of upstream's event field labels are served.

Both APIs serve the same objects, as upstream does: events.k8s.io/v1 Events are stored as core
Events and converted on the way in and out (:class:`EventsV1Conversion`), so an event a
controller records through either API shows in ``kubectl describe`` and in both watches.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from fakeapi.objects import as_dict, dig, text
from fakeapi.registry.kinds.common import since_cell
from fakeapi.registry.strategy import Column, Obj, Strategy, WriteContext
from fakeapi.validation.events import CORE_EVENT, EVENTS_EVENT, event_errors, event_update_errors
from fakeapi.validation.field import FieldError

__all__ = ["CoreEventStrategy", "EventsEventStrategy", "EventsV1Conversion"]

_INVOLVED = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")


def _first_seen(obj: Obj, now: datetime) -> str:
    if obj.get("firstTimestamp"):
        return since_cell(obj.get("firstTimestamp"), now)
    return since_cell(obj.get("eventTime"), now)


def _last_seen(obj: Obj, now: datetime) -> str:
    series = obj.get("series")
    if isinstance(series, dict):
        return since_cell(series.get("lastObservedTime"), now)
    if obj.get("lastTimestamp"):
        return since_cell(obj.get("lastTimestamp"), now)
    return _first_seen(obj, now)


def _count(obj: Obj, _now: datetime) -> int:
    series = obj.get("series")
    if isinstance(series, dict):
        return int(series.get("count") or 0)
    count = obj.get("count")
    return count if isinstance(count, int) and count else 1


def _target(ref: Any) -> str:
    ref = as_dict(ref)
    kind = text(ref.get("kind")).lower()
    name = text(ref.get("name"))
    return f"{kind}/{name}" if name else kind


def _source(obj: Obj, _now: datetime) -> str:
    component = text(dig(obj, "source", "component")) or text(obj.get("reportingComponent"))
    instance = text(dig(obj, "source", "host")) or text(obj.get("reportingInstance"))
    if not component:
        return "<unknown>"
    return f"{component}, {instance}" if instance else component


class CoreEventStrategy(Strategy):
    """core/v1 Event: namespaced, no status; the involved object's namespace must match."""

    field_labels = (
        *(f"involvedObject.{key}" for key in _INVOLVED),
        "reason",
        "reportingComponent",
        "source",
        "type",
    )
    columns: ClassVar[tuple[Column, ...]] = (
        Column("Last Seen", _last_seen, description="Time when last event occurred"),
        Column("Type", lambda obj, _now: text(obj.get("type")), description="Event type"),
        Column("Reason", lambda obj, _now: text(obj.get("reason")), description="Event reason"),
        Column(
            "Object",
            lambda obj, _now: _target(obj.get("involvedObject")),
            description="The object that this event is about",
        ),
        Column(
            "Subobject",
            lambda obj, _now: text(dig(obj, "involvedObject", "fieldPath")),
            description="The subobject that this event is about",
            priority=1,
        ),
        Column("Source", _source, description="Event source", priority=1),
        Column(
            "Message",
            lambda obj, _now: text(obj.get("message")).strip(),
            description="Event message",
        ),
        Column("First Seen", _first_seen, description="Time when first event occurred", priority=1),
        Column("Count", _count, type="integer", description="Event count", priority=1),
        Column(
            "Name",
            lambda obj, _now: text(dig(obj, "metadata", "name")),
            format="name",
            description="Event name",
            priority=1,
        ),
    )

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return event_errors(obj, CORE_EVENT)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return event_update_errors(new, old, CORE_EVENT)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        involved = as_dict(obj.get("involvedObject"))
        fields = {f"involvedObject.{key}": text(involved.get(key)) for key in _INVOLVED}
        fields["reason"] = text(obj.get("reason"))
        fields["reportingComponent"] = text(obj.get("reportingComponent"))
        fields["source"] = text(dig(obj, "source", "component"))
        fields["type"] = text(obj.get("type"))
        return fields


def _events_last_seen(obj: Obj, now: datetime) -> str:
    series = obj.get("series")
    if isinstance(series, dict):
        return since_cell(series.get("lastObservedTime"), now)
    return since_cell(obj.get("deprecatedLastTimestamp") or obj.get("eventTime"), now)


class EventsEventStrategy(Strategy):
    """events.k8s.io/v1 Event: namespaced, no status; ``regarding.*`` field selectors."""

    field_labels = (
        *(f"regarding.{key}" for key in _INVOLVED),
        "reason",
        "reportingController",
        "type",
    )
    columns: ClassVar[tuple[Column, ...]] = (
        Column("Last Seen", _events_last_seen, description="Time when last event occurred"),
        Column("Type", lambda obj, _now: text(obj.get("type")), description="Event type"),
        Column("Reason", lambda obj, _now: text(obj.get("reason")), description="Event reason"),
        Column(
            "Object",
            lambda obj, _now: _target(obj.get("regarding")),
            description="The object that this event is about",
        ),
        Column(
            "Message",
            lambda obj, _now: text(obj.get("note")).strip(),
            description="Event message",
        ),
    )

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return event_errors(obj, EVENTS_EVENT)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return event_update_errors(new, old, EVENTS_EVENT)

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        regarding = as_dict(obj.get("regarding"))
        fields = {f"regarding.{key}": text(regarding.get(key)) for key in _INVOLVED}
        fields["reason"] = text(obj.get("reason"))
        fields["reportingController"] = text(obj.get("reportingController"))
        fields["type"] = text(obj.get("type"))
        return fields


# events.k8s.io/v1 field -> core/v1 field; the rest (metadata, reason, type, action, eventTime,
# series, related, reportingInstance) has the same name in both
_EVENTS_V1_TO_CORE = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_CORE_TO_EVENTS_V1 = {core: v1 for v1, core in _EVENTS_V1_TO_CORE.items()}


def _renamed(obj: Obj, names: dict[str, str], api_version: str) -> Obj:
    out: Obj = {"apiVersion": api_version, "kind": "Event"}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind"):
            out[names.get(key, key)] = value
    return out


class EventsV1Conversion:
    """events.k8s.io/v1 Event <-> core/v1 Event (the stored shape), field by field."""

    def to_storage(self, obj: Obj) -> Obj:
        return _renamed(obj, _EVENTS_V1_TO_CORE, "v1")

    def from_storage(self, obj: Obj) -> Obj:
        return _renamed(obj, _CORE_TO_EVENTS_V1, "events.k8s.io/v1")
