"""resource.k8s.io/v1 ResourceClaim and ResourceClaimTemplate.

The claim spec (requests, constraints, config) is shared with templates. The status carries the
allocation written by the scheduler, the consumers it is reserved for, and per-device status written
by drivers. KEP-5194's ``spec.reservedFor`` and ``status.allocation.reservedForAnyPod`` are served
as that seed KEP places them (docs/keps.md).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import (
    GoType,
    K8sModel,
    ListMeta_,
    Quantity,
    RawJSON,
    Time,
    atomic_list,
    map_list,
)
from fakeapi.models.meta import Condition, ObjectMeta
from fakeapi.models.nodeselector import NodeSelector
from fakeapi.models.resource_common import (
    DeviceSelector,
    DeviceToleration,
    OpaqueDeviceConfiguration,
)

__all__ = [
    "ResourceClaim",
    "ResourceClaimSpec",
    "ResourceClaimStatus",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
    "DeviceClaim",
    "DeviceRequest",
    "ExactDeviceRequest",
    "DeviceSubRequest",
    "CapacityRequirements",
    "DeviceConstraint",
    "DeviceClaimConfiguration",
    "ResourceClaimConsumerReference",
    "AllocationResult",
    "DeviceAllocationResult",
    "DeviceRequestAllocationResult",
    "DeviceAllocationConfiguration",
    "AllocatedDeviceStatus",
    "NetworkDeviceData",
]


class CapacityRequirements(K8sModel):
    """Amounts of device capacity a request needs (consumable capacity)."""

    requests: dict[str, Quantity] | None = None
    """Minimum amount per capacity name the device must provide to this request."""


class ExactDeviceRequest(K8sModel):
    """A request for devices of one class, by count or all of them."""

    device_class_name: str
    """The DeviceClass whose selectors and config apply."""
    selectors: Annotated[list[DeviceSelector] | None, atomic_list()] = None
    """Extra criteria the devices must meet (ANDed with the class selectors)."""
    allocation_mode: Annotated[str | None, GoType("DeviceAllocationMode")] = None
    """ExactCount (the default) allocates count devices; All allocates every matching device."""
    count: int | None = None
    """The number of devices for ExactCount; defaults to 1."""
    admin_access: bool | None = None
    """Privileged access for monitoring or maintenance, also to devices in use elsewhere."""
    tolerations: Annotated[list[DeviceToleration] | None, atomic_list()] = None
    """Device taints this request tolerates."""
    capacity: CapacityRequirements | None = None
    """Capacity the request consumes on a shared device."""


class DeviceSubRequest(K8sModel):
    """One alternative of a firstAvailable request."""

    name: str
    """The subrequest name (DNS label); results name it as <request>/<subrequest>."""
    device_class_name: str
    """The DeviceClass whose selectors and config apply."""
    selectors: Annotated[list[DeviceSelector] | None, atomic_list()] = None
    """Extra criteria the devices must meet."""
    allocation_mode: Annotated[str | None, GoType("DeviceAllocationMode")] = None
    """ExactCount (the default) or All."""
    count: int | None = None
    """The number of devices for ExactCount; defaults to 1."""
    tolerations: Annotated[list[DeviceToleration] | None, atomic_list()] = None
    """Device taints this subrequest tolerates."""
    capacity: CapacityRequirements | None = None
    """Capacity the subrequest consumes on a shared device."""


class DeviceRequest(K8sModel):
    """A named request: exactly one of exactly or firstAvailable."""

    name: str
    """The request name (DNS label), unique in the claim; containers refer to it."""
    exactly: ExactDeviceRequest | None = None
    """A single way to satisfy the request."""
    first_available: Annotated[list[DeviceSubRequest] | None, atomic_list()] = None
    """Alternatives tried in order; the first that can be allocated wins."""


class DeviceConstraint(K8sModel):
    """A constraint across the devices allocated for some requests."""

    requests: Annotated[list[str] | None, atomic_list()] = None
    """Requests (or <request>/<subrequest>) it applies to; empty means all."""
    match_attribute: str | None = None
    """All devices must have this attribute with the same value."""
    distinct_attribute: str | None = None
    """All devices must have this attribute with pairwise different values."""


class DeviceClaimConfiguration(K8sModel):
    """Configuration for the devices allocated to some requests."""

    requests: Annotated[list[str] | None, atomic_list()] = None
    """Requests (or <request>/<subrequest>) it applies to; empty means all."""
    opaque: OpaqueDeviceConfiguration | None = None
    """Driver-specific configuration."""


class DeviceClaim(K8sModel):
    """What devices a claim asks for."""

    requests: Annotated[list[DeviceRequest] | None, atomic_list()] = None
    """The device requests (at most 32)."""
    constraints: Annotated[list[DeviceConstraint] | None, atomic_list()] = None
    """Constraints across requests (at most 32)."""
    config: Annotated[list[DeviceClaimConfiguration] | None, atomic_list()] = None
    """Configuration for the allocated devices (at most 32)."""


class ResourceClaimConsumerReference(K8sModel):
    """A consumer of a claim, in the claim's namespace."""

    api_group: str | None = None
    """The API group of the consumer; empty for the core group."""
    resource: str
    """The resource type of the consumer, e.g. pods."""
    name: str
    """The name of the consumer."""
    uid: str
    """The UID of the consumer instance."""


class ResourceClaimSpec(K8sModel):
    """What a claim asks for."""

    devices: DeviceClaim | None = None
    """The devices requested."""
    reserved_for: ResourceClaimConsumerReference | None = None
    """ReservedFor names a consumer other than a pod (for example a workload) for which the
    claim is reserved once it is allocated. Pods of that consumer may then use the claim without
    being listed in status.reservedFor."""


class DeviceRequestAllocationResult(K8sModel):
    """One allocated device and the request it satisfies."""

    request: str
    """The request (or <request>/<subrequest>) this device was allocated for."""
    driver: str
    """The driver of the device."""
    pool: str
    """The pool of the device."""
    device: str
    """The device name within the pool."""
    admin_access: bool | None = None
    """The device was allocated with admin access."""
    tolerations: Annotated[list[DeviceToleration] | None, atomic_list()] = None
    """The tolerations of the request at allocation time."""
    binding_conditions: Annotated[list[str] | None, atomic_list()] = None
    """Conditions copied from the device that must hold before binding."""
    binding_failure_conditions: Annotated[list[str] | None, atomic_list()] = None
    """Conditions copied from the device that abort binding."""
    share_id: str | None = Field(None, alias="shareID")
    """Identifies this share of a device that allows multiple allocations."""
    consumed_capacity: dict[str, Quantity] | None = None
    """Capacity consumed by this share of the device."""
    skip_node_operations: Annotated[list[str] | None, ListMeta_("set")] = None
    """Node operations the kubelet skips for this device."""


class DeviceAllocationConfiguration(K8sModel):
    """Configuration copied into an allocation from the class or the claim."""

    source: str
    """Where it came from: FromClass or FromClaim."""
    requests: Annotated[list[str] | None, atomic_list()] = None
    """Requests it applies to; empty means all."""
    opaque: OpaqueDeviceConfiguration | None = None
    """Driver-specific configuration."""


class DeviceAllocationResult(K8sModel):
    """The allocated devices and their configuration."""

    results: Annotated[list[DeviceRequestAllocationResult] | None, atomic_list()] = None
    """One entry per allocated device, in allocation order."""
    config: Annotated[list[DeviceAllocationConfiguration] | None, atomic_list()] = None
    """Class and claim configuration for the allocated devices."""


class AllocationResult(K8sModel):
    """Where and what was allocated for a claim."""

    devices: DeviceAllocationResult | None = None
    """The allocated devices."""
    node_selector: NodeSelector | None = None
    """Nodes the allocation is usable on; unset means every node."""
    allocation_timestamp: Time | None = None
    """When allocation happened (set for devices with binding conditions)."""
    reserved_for_any_pod: bool | None = None
    """ReservedForAnyPod is set when any pod may use the allocated devices without being
    listed in status.reservedFor."""


class NetworkDeviceData(K8sModel):
    """Network details of an allocated device."""

    interface_name: str | None = None
    """The network interface name."""
    ips: Annotated[list[str] | None, atomic_list()] = None
    """Addresses in CIDR form (IPv4 or IPv6)."""
    hardware_address: str | None = None
    """The MAC address."""


class AllocatedDeviceStatus(K8sModel):
    """Driver-reported status of one allocated device."""

    driver: str
    """The driver of the device."""
    pool: str
    """The pool of the device."""
    device: str
    """The device name within the pool."""
    share_id: str | None = Field(None, alias="shareID")
    """The share of a multi-allocatable device this status is for."""
    conditions: Annotated[list[Condition] | None, map_list("type", patch=False)] = None
    """Conditions of the device (at most 8)."""
    data: RawJSON = None
    """Driver-specific data, a JSON object of at most 10Ki."""
    network_data: NetworkDeviceData | None = None
    """Network details of the device."""


class ResourceClaimStatus(K8sModel):
    """Allocation, reservations and device status of a claim."""

    allocation: AllocationResult | None = None
    """Set once the claim is allocated; cleared on deallocation."""
    reserved_for: Annotated[list[ResourceClaimConsumerReference] | None, map_list("uid")] = None
    """The consumers currently allowed to use the claim (at most 256)."""
    devices: Annotated[
        list[AllocatedDeviceStatus] | None,
        map_list("driver", "device", "pool", "shareID", patch=False),
    ] = None
    """Status of the allocated devices, reported by drivers."""


class ResourceClaim(K8sModel):
    """A request for devices, allocated by the scheduler and used by pods."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourceClaimSpec
    """What is requested; immutable."""
    status: ResourceClaimStatus | None = None
    """What was allocated and who uses it."""


class ResourceClaimTemplateSpec(K8sModel):
    """The claim created from a template: its labels/annotations and spec."""

    metadata: ObjectMeta | None = None
    """Labels and annotations copied into each generated claim (nothing else may be set)."""
    spec: ResourceClaimSpec
    """The spec of each generated claim."""


class ResourceClaimTemplate(K8sModel):
    """A template from which per-pod (or per-PodGroup) claims are generated."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourceClaimTemplateSpec
    """The claim to generate; immutable."""
