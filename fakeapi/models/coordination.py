"""coordination.k8s.io/v1 Lease: the lock object behind leader election and node heartbeats.

Times are ``MicroTime`` strings with exactly six fractional digits
(``2026-01-01T00:00:00.000000Z``); clients compare them to decide whether a lease has expired.
"""

from __future__ import annotations

from fakeapi.models.base import Int32, K8sModel, MicroTime
from fakeapi.models.meta import ObjectMeta

__all__ = ["Lease", "LeaseSpec"]


class LeaseSpec(K8sModel):
    """Who holds the lease and until when."""

    holder_identity: str | None = None
    """Identity of the current holder."""
    lease_duration_seconds: Int32 | None = None
    """Seconds candidates wait after the last renewal before they may take the lease over."""
    acquire_time: MicroTime | None = None
    """When the current holder acquired the lease (MicroTime)."""
    renew_time: MicroTime | None = None
    """When the holder last renewed the lease (MicroTime)."""
    lease_transitions: Int32 | None = None
    """How many times the lease has changed holders."""
    strategy: str | None = None
    """How coordinated leader election picks a leader, e.g. OldestEmulationVersion."""
    preferred_holder: str | None = None
    """The holder that should take the lease next in coordinated leader election."""


class Lease(K8sModel):
    """A lease: a lightweight lock with a holder and a duration."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. coordination.k8s.io/v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: LeaseSpec | None = None
    """Who holds the lease and until when."""
