"""resource.k8s.io/v1beta2 ResourcePool (seed KEP-5677): availability summary of one device pool.

Created, updated and deleted only by the ResourcePool controller; the summary holds counts only
(no claim references), so reading it needs no access to claims. Served as the seed text describes
it (KEP-5677, docs/keps.md), not as upstream's later ResourcePoolStatusRequest.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, Time, atomic_list, map_list
from fakeapi.models.meta import Condition, ObjectMeta

__all__ = ["ResourcePool", "ResourcePoolSpec", "ResourcePoolStatus", "ResourcePoolSummary"]


class ResourcePoolSpec(K8sModel):
    """Which pool this object summarises; immutable."""

    driver: str
    """The driver of the pool."""
    pool_name: str
    """The pool name (ResourceSlice spec.pool.name)."""
    node_name: str | None = None
    """The node of a node-local pool."""


class ResourcePoolSummary(K8sModel):
    """Device counts; total = allocated + available + unavailable."""

    total_devices: int
    """Devices listed in any slice of the pool."""
    allocated_devices: int
    """Devices allocated at least once (including partially allocated ones)."""
    available_devices: int
    """Unallocated devices that can accept an allocation."""
    unavailable_devices: int | None = None
    """Unallocated devices that cannot accept one (e.g. shared counters exhausted)."""
    partially_allocated_devices: int | None = None
    """Multi-allocatable devices with some but not all capacity allocated."""


class ResourcePoolStatus(K8sModel):
    """The computed state of the pool."""

    summary: ResourcePoolSummary | None = None
    """Device counts."""
    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Complete and Valid conditions."""
    validation_errors: Annotated[list[str] | None, atomic_list()] = None
    """The first 10 cross-slice validation errors."""
    truncated_error_count: int | None = None
    """The total number of errors when validationErrors was truncated; 0 otherwise."""
    observed_slice_count: int | None = None
    """Slices of the pool's current generation that were seen."""
    expected_slice_count: int | None = None
    """Slices the pool says it has (resourceSliceCount)."""
    observed_generation: int | None = None
    """The pool generation this status reflects."""
    last_update_time: Time | None = None
    """When the status was last computed."""


class ResourcePool(K8sModel):
    """Availability of the devices in one (driver, pool)."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourcePoolSpec
    """The pool summarised."""
    status: ResourcePoolStatus | None = None
    """The summary, conditions and validation results."""
