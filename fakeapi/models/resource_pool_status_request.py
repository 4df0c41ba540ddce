"""resource.k8s.io/v1alpha3 ResourcePoolStatusRequest: KEP-5677 as upstream shipped it (1.36, 1.37).

A request-and-answer object, cluster-scoped: a user creates one naming a driver (and optionally a
pool); the resourcepoolstatusrequest controller answers once in ``status`` — the matching pools,
sorted by driver and pool, with their device counts — and never touches it again. To ask again,
delete and recreate it. The seed's standing ResourcePool (v1beta2) is served beside it.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, atomic_list, map_list
from fakeapi.models.meta import Condition, ObjectMeta

__all__ = [
    "PoolStatus",
    "ResourcePoolStatusRequest",
    "ResourcePoolStatusRequestSpec",
    "ResourcePoolStatusRequestStatus",
]


class ResourcePoolStatusRequestSpec(K8sModel):
    """Which pools to report; immutable."""

    driver: str
    """The DRA driver whose pools are reported (a DNS subdomain, e.g. gpu.example.com)."""
    pool_name: str | None = None
    """Only the pool of this name; all pools of the driver when unset."""
    limit: int | None = None
    """The most pools listed in status (1 to 1000, default 100); poolCount counts them all."""
    default_partition_type_attribute: str | None = None
    """The attribute that names a partitioned device's type where its slice declares none."""


class PoolStatus(K8sModel):
    """The devices of one pool."""

    driver: str
    """The DRA driver of the pool."""
    pool_name: str
    """The pool name."""
    node_name: str | None = None
    """The node of a node-local pool."""
    total_devices: int | None = None
    """Devices in the pool's slices of its newest generation. Unset with validationError."""
    allocated_devices: int | None = None
    """Devices allocated to claims. Unset with validationError."""
    available_devices: int | None = None
    """Devices that can be allocated: total - allocated - unavailable. Unset with
    validationError."""
    unavailable_devices: int | None = None
    """Unallocated devices that cannot be allocated (taints, exhausted counters)."""
    resource_slice_count: int | None = None
    """The slices of the pool's newest generation."""
    generation: int
    """The newest pool generation of the pool's slices."""
    validation_error: str | None = None
    """Why the pool could not be counted (e.g. not all slices of the newest generation are
    published yet); the counts are unset then."""


class ResourcePoolStatusRequestStatus(K8sModel):
    """The answer, written once by the controller."""

    pool_count: int
    """The number of pools matching the request, whether or not all are listed."""
    pools: Annotated[list[PoolStatus] | None, atomic_list()] = None
    """The first spec.limit matching pools, sorted by driver then pool name."""
    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Complete (the answer is there) or Failed (it could not be computed)."""


class ResourcePoolStatusRequest(K8sModel):
    """A one-time request for the status of a driver's resource pools."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta
    """Standard object metadata."""
    spec: ResourcePoolStatusRequestSpec
    """Which pools to report; immutable."""
    status: ResourcePoolStatusRequestStatus | None = None
    """The answer; once set, the whole object is immutable."""
