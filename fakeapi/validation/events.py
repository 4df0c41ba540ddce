"""Event validation as upstream's, for both shapes of one Event.

Every write of an Event passes the *legacy* rules, whichever API it came through. An Event without
``eventTime`` (an old-style recorder's) must live in its object's namespace; one with ``eventTime``
must name its reporting controller (a qualified name) and instance, its action and reason, within
upstream's lengths (128 characters; 1024 for the note), and may be about an object in another
namespace. Writes through events.k8s.io/v1 pass stricter rules on top: ``eventTime`` required,
``type`` ``Normal`` or ``Warning``, a series of at least 2 with its ``lastObservedTime``, the
``deprecated*`` fields unset, and on update only the series may change.

The shapes differ in field names (core ``involvedObject``/``message``/``reportingComponent``,
events.k8s.io ``regarding``/``note``/``reportingController``); each check reads the request's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi.name_syntax import is_dns1123_subdomain, is_qualified_name
from fakeapi.objects import text
from fakeapi.validation.field import FieldError, Path, invalid, required
from fakeapi.validation.meta import validate_immutable

__all__ = ["CORE_EVENT", "EVENTS_EVENT", "EventShape", "event_errors", "event_update_errors"]

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024
_TYPES = ("Normal", "Warning")
_DEPRECATED = (
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
)
#: what an events.k8s.io update may not change
_IMMUTABLE = (
    "regarding",
    "reason",
    "note",
    "deprecatedSource",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "deprecatedCount",
    "type",
    "eventTime",
    "action",
    "related",
    "reportingController",
    "reportingInstance",
)


@dataclass(frozen=True, slots=True)
class EventShape:
    """Where one API keeps the fields the rules read."""

    strict: bool
    involved: str
    message: str
    controller: str


CORE_EVENT = EventShape(
    strict=False, involved="involvedObject", message="message", controller="reportingComponent"
)
EVENTS_EVENT = EventShape(
    strict=True, involved="regarding", message="note", controller="reportingController"
)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _legacy(obj: Mapping[str, Any], shape: EventShape) -> list[FieldError]:
    errs: list[FieldError] = []
    namespace = text(_dict(obj.get("metadata")).get("namespace"))
    involved = text(_dict(obj.get(shape.involved)).get("namespace"))
    mismatch = invalid(Path("involvedObject").child("namespace"), involved,
                       "does not match event.namespace")
    if not obj.get("eventTime"):
        if (not involved and namespace not in ("", "default")) or (
            involved and involved != namespace
        ):
            errs.append(mismatch)
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errs.append(mismatch)
        controller = text(obj.get(shape.controller))
        path = Path(shape.controller)
        if not controller:
            errs.append(required(path))
        errs += [invalid(path, controller, msg) for msg in is_qualified_name(controller)]
        for field, limit in (
            ("reportingInstance", REPORTING_INSTANCE_LIMIT),
            ("action", ACTION_LIMIT),
            ("reason", REASON_LIMIT),
        ):
            value = text(obj.get(field))
            if not value:
                errs.append(required(Path(field)))
            elif len(value) > limit:
                errs.append(invalid(Path(field), "", f"can have at most {limit} characters"))
        if len(text(obj.get(shape.message))) > NOTE_LIMIT:
            errs.append(invalid(Path("note"), "", f"can have at most {NOTE_LIMIT} characters"))
    errs += [invalid(Path("namespace"), namespace, msg) for msg in is_dns1123_subdomain(namespace)]
    return errs


def _series(obj: Mapping[str, Any]) -> list[FieldError]:
    series = obj.get("series")
    if not isinstance(series, Mapping):
        return []
    errs: list[FieldError] = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errs.append(invalid(Path("series.count"), "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errs.append(required(Path("series.lastObservedTime")))
    return errs


def event_errors(obj: Mapping[str, Any], shape: EventShape) -> list[FieldError]:
    """The errors of an Event created through the API of ``shape``."""
    errs = _legacy(obj, shape)
    if not shape.strict:
        return errs
    errs += _series(obj)
    if not obj.get("eventTime"):
        errs.append(required(Path("eventTime")))
    kind = text(obj.get("type"))
    if kind not in _TYPES:
        errs.append(invalid(Path("type"), "", f"has invalid value: {kind}"))
    for field in _DEPRECATED:
        if obj.get(field):
            errs.append(invalid(Path(field), "", "needs to be unset"))
    if obj.get("deprecatedCount"):
        errs.append(invalid(Path("deprecatedCount"), "", "needs to be unset"))
    source = _dict(obj.get("deprecatedSource"))
    if source.get("component") or source.get("host"):
        errs.append(invalid(Path("deprecatedSource"), "", "needs to be unset"))
    return errs


def event_update_errors(
    new: Mapping[str, Any], old: Mapping[str, Any], shape: EventShape
) -> list[FieldError]:
    """The errors of an Event updated through the API of ``shape``."""
    errs = _legacy(new, shape)
    if not shape.strict:
        return errs
    if new.get("series") != old.get("series"):
        errs += _series(new)
    for field in _IMMUTABLE:
        errs += validate_immutable(new.get(field), old.get(field), Path(field))
    return errs
