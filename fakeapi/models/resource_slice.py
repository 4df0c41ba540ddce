"""resource.k8s.io/v1 ResourceSlice: the devices a driver publishes for one pool.

Attribute, capacity and counter maps are keyed by qualified names and keep whatever keys the driver
chose, so they are plain ``dict`` fields. Quantities stay in their wire form (string or number);
validation parses them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import K8sModel, ListMeta_, Quantity, atomic_list
from fakeapi.models.meta import ObjectMeta
from fakeapi.models.nodeselector import NodeSelector
from fakeapi.models.resource_common import DeviceTaint

__all__ = [
    "ResourceSlice",
    "ResourceSliceSpec",
    "ResourcePool",
    "Device",
    "DeviceAttribute",
    "DeviceCapacity",
    "CapacityRequestPolicy",
    "CapacityRequestPolicyRange",
    "Counter",
    "CounterSet",
    "DeviceCounterConsumption",
    "NodeAllocatableResource",
    "NodeAllocatableMapping",
    "NodeAllocatableOverhead",
]


class ResourcePool(K8sModel):
    """The pool a slice belongs to; a pool may span several slices."""

    name: str
    """The pool name, unique per driver; '/'-separated DNS subdomains, at most 253 characters."""
    generation: int
    """Bumped by the driver on every pool change; only slices of the highest generation count."""
    resource_slice_count: int
    """How many slices make up this generation of the pool."""


class DeviceAttribute(K8sModel):
    """A device attribute: exactly one of the value fields is set."""

    int_value: int | None = Field(None, alias="int")
    """An integer value."""
    bool_value: bool | None = Field(None, alias="bool")
    """A boolean value."""
    string_value: str | None = Field(None, alias="string")
    """A string of at most 64 characters."""
    version_value: str | None = Field(None, alias="version")
    """A semantic version (semver.org 2.0.0)."""
    ints: Annotated[list[int] | None, atomic_list()] = None
    """A list of integers (DRAListTypeAttributes)."""
    bools: Annotated[list[bool] | None, atomic_list()] = None
    """A list of booleans (DRAListTypeAttributes)."""
    strings: Annotated[list[str] | None, atomic_list()] = None
    """A list of strings (DRAListTypeAttributes)."""
    versions: Annotated[list[str] | None, atomic_list()] = None
    """A list of semantic versions (DRAListTypeAttributes)."""


class CapacityRequestPolicyRange(K8sModel):
    """A range of valid capacity requests: min, optionally max, optionally a step."""

    min: Quantity
    """The smallest valid request; smaller requests are raised to it."""
    max: Quantity | None = None
    """The largest valid request."""
    step: Quantity | None = None
    """Valid requests are min plus a multiple of step; requests are rounded up to it."""


class CapacityRequestPolicy(K8sModel):
    """How requests for a shared device's capacity are defaulted and rounded."""

    default: Quantity | None = None
    """The amount consumed when a request names no amount."""
    valid_values: Annotated[list[Quantity] | None, atomic_list()] = None
    """The allowed amounts, ascending; a request is rounded up to the next one."""
    valid_range: CapacityRequestPolicyRange | None = None
    """The allowed range of amounts."""


class DeviceCapacity(K8sModel):
    """An amount of some resource a device provides."""

    value: Quantity
    """The total amount."""
    request_policy: CapacityRequestPolicy | None = None
    """Rules for requests against this capacity (only with allowMultipleAllocations)."""


class Counter(K8sModel):
    """An amount in a counter set."""

    value: Quantity
    """The amount."""


class CounterSet(K8sModel):
    """Named counters that partitionable devices draw from."""

    name: str
    """The counter set name (DNS label), unique within the slice."""
    counters: dict[str, Counter]
    """The counters by name (DNS labels); at most 32."""


class DeviceCounterConsumption(K8sModel):
    """What a device takes from one counter set when it is allocated."""

    counter_set: str
    """The counter set consumed from."""
    counters: dict[str, Counter]
    """The amounts consumed, by counter name."""


class NodeAllocatableMapping(K8sModel):
    """How a device contributes to a node-allocatable resource."""

    capacity_key: str | None = None
    """The device capacity whose value is mapped."""
    capacity_multiplier: Quantity | None = None
    """Factor applied to the capacity value."""
    device_multiplier: Quantity | None = None
    """Amount contributed per allocated device."""


class NodeAllocatableOverhead(K8sModel):
    """Fixed node-allocatable overhead of using the device."""

    per_pod: Quantity | None = None
    """Overhead per pod."""
    per_container: Quantity | None = None
    """Overhead per container."""


class NodeAllocatableResource(K8sModel):
    """A node-allocatable resource (cpu, memory, ...) that the device consumes."""

    mapping: NodeAllocatableMapping | None = None
    """Mapping from the device to the resource."""
    overhead: NodeAllocatableOverhead | None = None
    """Fixed overhead."""


class Device(K8sModel):
    """One device: its name, attributes, capacity and how it may be allocated."""

    name: str
    """The device name (DNS label), unique within the pool."""
    attributes: dict[str, DeviceAttribute] | None = None
    """Attributes by qualified name; unqualified names belong to the driver's domain."""
    capacity: dict[str, DeviceCapacity] | None = None
    """Capacities by qualified name."""
    consumes_counters: Annotated[list[DeviceCounterConsumption] | None, atomic_list()] = None
    """Counter sets this device draws from when allocated (at most 2)."""
    node_name: str | None = None
    """The node the device is available on (only with perDeviceNodeSelection)."""
    node_selector: NodeSelector | None = None
    """The nodes the device is available on (only with perDeviceNodeSelection)."""
    all_nodes: bool | None = None
    """The device is available on every node (only with perDeviceNodeSelection)."""
    taints: Annotated[list[DeviceTaint] | None, atomic_list()] = None
    """Taints on the device (at most 16)."""
    binds_to_node: bool | None = None
    """An allocation of this device is restricted to the node it was scheduled for."""
    binding_conditions: Annotated[list[str] | None, atomic_list()] = None
    """Conditions that must be true in the claim's device status before the pod binds."""
    binding_failure_conditions: Annotated[list[str] | None, atomic_list()] = None
    """Conditions that, when true, make the scheduler give up binding."""
    allow_multiple_allocations: bool | None = None
    """The device may be allocated to several claims at once, sharing its capacity."""
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = None
    """Node-allocatable resources consumed by using the device."""


class ResourceSliceSpec(K8sModel):
    """The driver, pool, node selection and devices (or counter sets) of one slice."""

    driver: str
    """The driver that publishes the slice (a DNS subdomain)."""
    pool: ResourcePool
    """The pool the slice belongs to."""
    node_name: str | None = None
    """The devices are local to this node."""
    node_selector: NodeSelector | None = None
    """The devices are reachable from the nodes this selector matches (one term)."""
    all_nodes: bool | None = None
    """The devices are reachable from every node."""
    devices: Annotated[list[Device] | None, atomic_list()] = None
    """The devices in this slice."""
    per_device_node_selection: bool | None = None
    """Each device states its own node selection."""
    shared_counters: Annotated[list[CounterSet] | None, atomic_list()] = None
    """Counter sets that devices of the pool consume (a slice has these or devices)."""
    partition_type_attribute: str | None = None
    """The device attribute (a string) that names each partitioned device's profile."""
    skip_node_operations: Annotated[list[str] | None, ListMeta_("set")] = None
    """Node operations the kubelet skips for these devices."""


class ResourceSlice(K8sModel):
    """Devices that a driver makes available in a pool."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ResourceSliceSpec
    """What the slice contains."""
