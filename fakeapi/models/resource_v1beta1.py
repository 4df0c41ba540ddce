"""resource.k8s.io/v1beta1: the shapes that differ from v1, for the kinds served at v1beta1.

v1beta1 (Kubernetes 1.32–1.33, still served by 1.37) differs from v1 in two places, and this
module declares only the types on the path to them; everything else is v1's type under the
v1beta1 prefix (the OpenAPI builder names a ``fakeapi.models.resource*`` class after the document
it appears in):

- a request carries the fields of one exact request inline (``deviceClassName``, ``selectors``,
  ``allocationMode``, ``count``, ``adminAccess``, ``tolerations``, ``capacity``) beside
  ``firstAvailable``, where v1 nests them under ``exactly``;
- a device keeps its attributes, capacity, counters, node fields, taints and binding fields under
  ``basic``, where v1 has them on the device itself.

Conversion to and from v1 is :mod:`fakeapi.registry.conversion.resource_v1beta1`.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import GoType, K8sModel, ListMeta_, atomic_list
from fakeapi.models.meta import ObjectMeta
from fakeapi.models.nodeselector import NodeSelector
from fakeapi.models.resource_claim import (
    CapacityRequirements,
    DeviceClaimConfiguration,
    DeviceConstraint,
    DeviceSubRequest,
    ResourceClaimConsumerReference,
    ResourceClaimStatus,
)
from fakeapi.models.resource_common import DeviceSelector, DeviceTaint, DeviceToleration
from fakeapi.models.resource_slice import (
    CounterSet,
    DeviceAttribute,
    DeviceCapacity,
    DeviceCounterConsumption,
    NodeAllocatableResource,
    ResourcePool,
)

__all__ = [
    "BasicDevice",
    "Device",
    "DeviceClaim",
    "DeviceRequest",
    "ResourceClaim",
    "ResourceClaimSpec",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
    "ResourceSlice",
    "ResourceSliceSpec",
]


class DeviceRequest(K8sModel):
    """A request for devices: the fields of one exact request inline, or firstAvailable."""

    name: str
    """The request's name (DNS label), referenced by constraints and config."""
    device_class_name: str | None = None
    """The DeviceClass whose selectors and config apply; required unless firstAvailable is set."""
    selectors: Annotated[list[DeviceSelector] | None, atomic_list()] = None
    """Extra criteria the devices must meet (ANDed with the class selectors)."""
    allocation_mode: Annotated[str | None, GoType("DeviceAllocationMode")] = None
    """ExactCount (the default) allocates count devices; All allocates every matching device."""
    count: int | None = None
    """The number of devices for ExactCount; defaults to 1."""
    admin_access: bool | None = None
    """Privileged access for monitoring or maintenance, also to devices in use elsewhere."""
    first_available: Annotated[list[DeviceSubRequest] | None, atomic_list()] = None
    """Subrequests tried in order; the first that can be satisfied is allocated."""
    tolerations: Annotated[list[DeviceToleration] | None, atomic_list()] = None
    """Device taints this request tolerates."""
    capacity: CapacityRequirements | None = None
    """Capacity the request consumes on a shared device."""


class DeviceClaim(K8sModel):
    """How devices are requested."""

    requests: Annotated[list[DeviceRequest] | None, atomic_list()] = None
    """The requests; all must be satisfied."""
    constraints: Annotated[list[DeviceConstraint] | None, atomic_list()] = None
    """Constraints across the devices of several requests."""
    config: Annotated[list[DeviceClaimConfiguration] | None, atomic_list()] = None
    """Configuration for the drivers of the allocated devices."""


class ResourceClaimSpec(K8sModel):
    """What is being requested."""

    devices: DeviceClaim | None = None
    """The devices requested."""
    reserved_for: ResourceClaimConsumerReference | None = None
    """The consumer the claim is reserved for once it is allocated; pods of that consumer may
    then use the claim without being listed in status.reservedFor."""


class ResourceClaim(K8sModel):
    """A request for access to resources in the cluster, such as devices."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourceClaimSpec
    """What is being requested; immutable."""
    status: ResourceClaimStatus | None = None
    """Whether the claim is allocated, and the result."""


class ResourceClaimTemplateSpec(K8sModel):
    """The claims created from a template."""

    metadata: ObjectMeta | None = None
    """Labels and annotations copied into each claim."""
    spec: ResourceClaimSpec
    """The spec of each claim."""


class ResourceClaimTemplate(K8sModel):
    """A template from which ResourceClaims are created for pods."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourceClaimTemplateSpec
    """The claim each pod gets."""


class BasicDevice(K8sModel):
    """The fields of a device."""

    attributes: dict[str, DeviceAttribute] | None = None
    """Attributes by qualified name."""
    capacity: dict[str, DeviceCapacity] | None = None
    """Capacity by qualified name."""
    consumes_counters: Annotated[list[DeviceCounterConsumption] | None, atomic_list()] = None
    """Counters of the slice's counter sets this device consumes."""
    node_name: str | None = None
    """The node this device is available on (per-device node selection)."""
    node_selector: NodeSelector | None = None
    """The nodes this device is available on (per-device node selection)."""
    all_nodes: bool | None = None
    """Available on all nodes (per-device node selection)."""
    taints: Annotated[list[DeviceTaint] | None, atomic_list()] = None
    """Taints of the device."""
    binds_to_node: bool | None = None
    """The allocation is bound to the node chosen by the scheduler."""
    binding_conditions: Annotated[list[str] | None, atomic_list()] = None
    """Conditions that must be True before the pod is bound."""
    binding_failure_conditions: Annotated[list[str] | None, atomic_list()] = None
    """Conditions whose True status fails the binding."""
    allow_multiple_allocations: bool | None = None
    """The device may be allocated to several claims at once (consumable capacity)."""
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = None
    """Node-allocatable resources the device provides."""


class Device(K8sModel):
    """One device of a slice."""

    name: str
    """The device name (DNS label), unique in the pool."""
    basic: BasicDevice | None = None
    """The device's fields."""


class ResourceSliceSpec(K8sModel):
    """The devices of one pool published by one driver."""

    driver: str
    """The driver that publishes the devices."""
    pool: ResourcePool
    """The pool the slice belongs to."""
    node_name: str | None = None
    """The node the devices are local to."""
    node_selector: NodeSelector | None = None
    """The nodes the devices are available on."""
    all_nodes: bool | None = None
    """The devices are available on all nodes."""
    devices: Annotated[list[Device] | None, atomic_list()] = None
    """The devices."""
    per_device_node_selection: bool | None = None
    """Each device says on which nodes it is available."""
    shared_counters: Annotated[list[CounterSet] | None, atomic_list()] = None
    """Counter sets the devices of the pool consume."""
    partition_type_attribute: str | None = None
    """The device attribute that names a device's partition type."""
    skip_node_operations: Annotated[list[str] | None, ListMeta_("set")] = None
    """Node operations the kubelet skips for the devices of this slice."""


class ResourceSlice(K8sModel):
    """Devices published by a driver for one pool."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourceSliceSpec
    """The devices and where they are available."""
