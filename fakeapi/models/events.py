"""events.k8s.io/v1 Event: the structured successor of core/v1 Event.

Both kinds are served from the same storage upstream; here they are separate resources, which is
enough for clients that write one and read the same one back. The ``deprecated*`` fields carry the
core/v1 fields that have no new-style equivalent.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import Int32, K8sModel, MicroTime, Time, atomic_map
from fakeapi.models.core import EventSource
from fakeapi.models.meta import ObjectMeta, ObjectReference

__all__ = ["Event", "EventSeries"]


class EventSeries(K8sModel):
    """Bookkeeping for an event that keeps recurring."""

    count: Int32
    """Number of occurrences in the series so far."""
    last_observed_time: MicroTime
    """When the last occurrence was observed (MicroTime)."""


class Event(K8sModel):
    """A report of something that happened to an object, for cluster introspection."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. events.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    event_time: MicroTime
    """When the event was first observed (MicroTime). Required."""
    series: EventSeries | None = None
    """Data about the series this event belongs to; unset for a singleton event."""
    reporting_controller: str | None = None
    """Controller that emitted the event, e.g. kubernetes.io/kubelet."""
    reporting_instance: str | None = None
    """Instance of the controller that emitted the event, e.g. kubelet-xyzf."""
    action: str | None = None
    """What action was taken, or failed, regarding the regarding object."""
    reason: str | None = None
    """Why the action was taken, in CamelCase."""
    regarding: Annotated[ObjectReference | None, atomic_map()] = None
    """The object this event is about."""
    related: Annotated[ObjectReference | None, atomic_map()] = None
    """A second object involved in the event, if any."""
    note: str | None = None
    """Human-readable description of the event, at most 1 kB."""
    type: str | None = None
    """Type of the event: Normal or Warning."""
    deprecated_source: EventSource | None = None
    """The core/v1 source field, kept for compatibility."""
    deprecated_first_timestamp: Time | None = None
    """The core/v1 firstTimestamp field, kept for compatibility."""
    deprecated_last_timestamp: Time | None = None
    """The core/v1 lastTimestamp field, kept for compatibility."""
    deprecated_count: Int32 | None = None
    """The core/v1 count field, kept for compatibility."""
