"""core/v1 kinds other than Pod: Namespace, Node, ConfigMap, Event and Binding.

Fields follow upstream ``core/v1`` one for one (a Strict create rejects any field a model does not
declare), with list semantics copied from upstream's struct tags. Binding is not stored: it is the
body of ``POST pods/{name}/binding`` and is modelled so that the body can be checked like any other
write.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import (
    Int32,
    K8sModel,
    ListMeta_,
    MicroTime,
    Quantity,
    Time,
    atomic_list,
    atomic_map,
    map_list,
    set_list,
)
from fakeapi.models.meta import ObjectMeta, ObjectReference

__all__ = [
    "AttachedVolume",
    "Binding",
    "ConfigMap",
    "ConfigMapNodeConfigSource",
    "ContainerImage",
    "DaemonEndpoint",
    "Event",
    "EventSeries",
    "EventSource",
    "Namespace",
    "NamespaceCondition",
    "NamespaceSpec",
    "NamespaceStatus",
    "Node",
    "NodeAddress",
    "NodeCondition",
    "NodeConfigSource",
    "NodeConfigStatus",
    "NodeDaemonEndpoints",
    "NodeFeatures",
    "NodePodPreemptionPolicy",
    "NodeRuntimeHandler",
    "NodeRuntimeHandlerFeatures",
    "NodeSpec",
    "NodeStatus",
    "NodeSwapStatus",
    "NodeSystemInfo",
    "Taint",
]


# --- Namespace -----------------------------------------------------------------------------------


class NamespaceSpec(K8sModel):
    """What a namespace needs before it can be removed."""

    finalizers: Annotated[list[str] | None, atomic_list()] = None
    """Values that must be empty before the namespace is removed from storage."""


class NamespaceCondition(K8sModel):
    """One aspect of a namespace's state, such as a blocked deletion."""

    type: str
    """Type of the condition, e.g. NamespaceDeletionContentFailure."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """A short machine-readable reason in CamelCase."""
    message: str | None = None
    """A human-readable explanation."""


class NamespaceStatus(K8sModel):
    """Observed state of a namespace."""

    phase: str | None = None
    """Active, or Terminating while the namespace is being deleted."""
    conditions: Annotated[list[NamespaceCondition] | None, map_list("type")] = None
    """Latest observations of the namespace's state."""


class Namespace(K8sModel):
    """A scope for names; most namespaced objects live in one."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: NamespaceSpec | None = None
    """What the namespace needs before it can be removed."""
    status: NamespaceStatus | None = None
    """Observed state of the namespace."""


# --- Node ----------------------------------------------------------------------------------------


class Taint(K8sModel):
    """A mark on a node that repels pods which do not tolerate it."""

    key: str
    """Key of the taint."""
    value: str | None = None
    """Value of the taint."""
    effect: str
    """Effect on pods that do not tolerate the taint: NoSchedule, PreferNoSchedule or NoExecute."""
    time_added: Time | None = None
    """When the taint was added; only for NoExecute taints."""


class ConfigMapNodeConfigSource(K8sModel):
    """A config map that holds kubelet configuration (deprecated feature)."""

    namespace: str
    """Namespace of the config map."""
    name: str
    """Name of the config map."""
    uid: str | None = None
    """UID of the config map."""
    resource_version: str | None = None
    """Resource version of the config map."""
    kubelet_config_key: str
    """Key of the config map holding the KubeletConfiguration."""


class NodeConfigSource(K8sModel):
    """Where a node's dynamic kubelet configuration comes from (deprecated feature)."""

    config_map: ConfigMapNodeConfigSource | None = None
    """A config map holding the configuration."""


class NodePodPreemptionPolicy(K8sModel):
    """Per-node controls on how pods may be preempted."""

    disable_resize_preemption: Annotated[list[str] | None, ListMeta_("set")] = None
    """Resources whose resize may not trigger preemption."""


class NodeSpec(K8sModel):
    """How a node is configured for scheduling."""

    pod_cidr: str | None = Field(default=None, alias="podCIDR")
    """The pod IP range assigned to the node."""
    pod_cidrs: Annotated[list[str] | None, set_list()] = Field(default=None, alias="podCIDRs")
    """Pod IP ranges assigned to the node, at most one per IP family."""
    provider_id: str | None = Field(default=None, alias="providerID")
    """ID of the node assigned by the cloud provider."""
    unschedulable: bool | None = None
    """When true, no new pods are scheduled onto the node."""
    taints: Annotated[list[Taint] | None, atomic_list()] = None
    """Taints of the node."""
    config_source: NodeConfigSource | None = None
    """Deprecated; ignored by kubelets."""
    external_id: str | None = Field(default=None, alias="externalID")
    """Deprecated; not used by kubelets."""
    pod_preemption_policy: NodePodPreemptionPolicy | None = None
    """Preemption controls that apply on this node."""


class NodeCondition(K8sModel):
    """One aspect of a node's health, such as Ready or MemoryPressure."""

    type: str
    """Type of the condition, e.g. Ready or DiskPressure."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_heartbeat_time: Time | None = None
    """When the condition was last probed."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """A short machine-readable reason in CamelCase."""
    message: str | None = None
    """A human-readable explanation."""


class NodeAddress(K8sModel):
    """One address at which a node can be reached."""

    type: str
    """Address type: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS."""
    address: str
    """The address."""


class DaemonEndpoint(K8sModel):
    """A port on which a node daemon listens."""

    port: int = Field(alias="Port")
    """Port number."""


class NodeDaemonEndpoints(K8sModel):
    """Ports of the daemons running on a node."""

    kubelet_endpoint: DaemonEndpoint | None = None
    """Port on which the kubelet listens."""


class NodeSwapStatus(K8sModel):
    """Swap memory available on a node."""

    capacity: int | None = None
    """Total swap memory in bytes."""


class NodeSystemInfo(K8sModel):
    """Identity and software versions of a node."""

    machine_id: str = Field(alias="machineID")
    """Machine ID reported by the node."""
    system_uuid: str = Field(alias="systemUUID")
    """System UUID reported by the node."""
    boot_id: str = Field(alias="bootID")
    """Boot ID reported by the node."""
    kernel_version: str
    """Kernel version (uname -r)."""
    os_image: str
    """OS image, e.g. Debian GNU/Linux 12 (bookworm)."""
    container_runtime_version: str
    """Container runtime and version, e.g. containerd://2.1.0."""
    kubelet_version: str
    """Kubelet version."""
    kube_proxy_version: str
    """Deprecated kube-proxy version; not reliable."""
    operating_system: str
    """Operating system of the node, e.g. linux."""
    architecture: str
    """CPU architecture of the node, e.g. amd64."""
    swap: NodeSwapStatus | None = None
    """Swap memory of the node."""
    running_in_user_namespace: bool | None = None
    """Whether the kubelet itself runs in a user namespace."""


class ContainerImage(K8sModel):
    """A container image present on a node."""

    names: Annotated[list[str] | None, atomic_list()] = None
    """Names and digests by which the image is known."""
    size_bytes: int | None = None
    """Size of the image in bytes."""


class AttachedVolume(K8sModel):
    """A volume attached to a node."""

    name: str
    """Name of the attached volume."""
    device_path: str
    """Where the volume should be available on the node."""


class NodeConfigStatus(K8sModel):
    """Progress of dynamic kubelet configuration (deprecated feature)."""

    assigned: NodeConfigSource | None = None
    """The configuration the node should use."""
    active: NodeConfigSource | None = None
    """The configuration the node is using."""
    last_known_good: NodeConfigSource | None = None
    """The configuration the node falls back to."""
    error: str | None = None
    """Problems reconciling the configuration."""


class NodeRuntimeHandlerFeatures(K8sModel):
    """Optional capabilities of a runtime handler."""

    recursive_read_only_mounts: bool | None = None
    """Whether recursive read-only mounts are supported."""
    user_namespaces: bool | None = None
    """Whether user namespaces are supported."""


class NodeRuntimeHandler(K8sModel):
    """A runtime handler offered by the node's container runtime."""

    name: str | None = None
    """Name of the handler; empty for the default one."""
    features: NodeRuntimeHandlerFeatures | None = None
    """Features the handler supports."""


class NodeFeatures(K8sModel):
    """Optional capabilities the node implements."""

    supplemental_groups_policy: bool | None = None
    """Whether the node honours supplementalGroupsPolicy."""


class NodeStatus(K8sModel):
    """What the kubelet last reported about a node."""

    capacity: dict[str, Quantity] | None = None
    """Total resources of the node."""
    allocatable: dict[str, Quantity] | None = None
    """Resources of the node available to pods; capacity when unset."""
    phase: str | None = None
    """Deprecated lifecycle phase; no longer set."""
    conditions: Annotated[list[NodeCondition] | None, map_list("type")] = None
    """Current observations of the node's health."""
    addresses: Annotated[list[NodeAddress] | None, map_list("type")] = None
    """Addresses at which the node is reachable."""
    daemon_endpoints: NodeDaemonEndpoints | None = None
    """Endpoints of daemons running on the node."""
    node_info: NodeSystemInfo | None = None
    """Identity and software versions of the node."""
    images: Annotated[list[ContainerImage] | None, atomic_list()] = None
    """Container images on the node."""
    volumes_in_use: Annotated[list[str] | None, atomic_list()] = None
    """Attachable volumes in use (mounted) by the node."""
    volumes_attached: Annotated[list[AttachedVolume] | None, atomic_list()] = None
    """Volumes attached to the node."""
    config: NodeConfigStatus | None = None
    """Status of the deprecated dynamic kubelet configuration."""
    runtime_handlers: Annotated[list[NodeRuntimeHandler] | None, atomic_list()] = None
    """Runtime handlers available on the node."""
    features: NodeFeatures | None = None
    """Optional features the node implements."""
    declared_features: Annotated[list[str] | None, atomic_list()] = None
    """Features the node declares, for scheduling decisions."""


class Node(K8sModel):
    """A worker machine; the kubelet registers it and reports its status."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: NodeSpec | None = None
    """How the node is configured for scheduling."""
    status: NodeStatus | None = None
    """What the node last reported; read-only for users."""


# --- ConfigMap -----------------------------------------------------------------------------------


class ConfigMap(K8sModel):
    """Configuration data as string or binary values, for pods to consume."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    immutable: bool | None = None
    """When true, data and binaryData cannot change; only the object's metadata can."""
    data: dict[str, str] | None = None
    """UTF-8 configuration values by key."""
    binary_data: dict[str, str] | None = None
    """Binary configuration values by key, base64-encoded; keys may not repeat those of data."""


# --- Event (core/v1) -----------------------------------------------------------------------------


class EventSource(K8sModel):
    """The component (and host) that reported an event."""

    component: str | None = None
    """Component that generated the event."""
    host: str | None = None
    """Node name on which the event was generated."""


class EventSeries(K8sModel):
    """Bookkeeping for an event that keeps recurring."""

    count: Int32 | None = None
    """Number of occurrences in the series so far."""
    last_observed_time: MicroTime | None = None
    """When the last occurrence was observed."""


class Event(K8sModel):
    """A report of something that happened to an object (core/v1, kept for compatibility)."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta
    """Standard object metadata."""
    involved_object: Annotated[ObjectReference, atomic_map()]
    """The object this event is about."""
    reason: str | None = None
    """Short machine-readable reason for the transition into the object's current state."""
    message: str | None = None
    """Human-readable description of the event."""
    source: EventSource | None = None
    """The component that reported the event; use reportingComponent in new code."""
    first_timestamp: Time | None = None
    """When the event was first recorded."""
    last_timestamp: Time | None = None
    """When the most recent occurrence of the event was recorded."""
    count: Int32 | None = None
    """How many times the event has occurred."""
    type: str | None = None
    """Type of the event: Normal or Warning."""
    event_time: MicroTime | None = None
    """When the event was first observed, in microseconds."""
    series: EventSeries | None = None
    """Data about the series this event belongs to; nil for a singleton event."""
    action: str | None = None
    """What action was taken or failed regarding the object."""
    related: Annotated[ObjectReference | None, atomic_map()] = None
    """A second object involved in the event, if any."""
    reporting_component: str | None = None
    """Controller that emitted the event, e.g. kubernetes.io/kubelet."""
    reporting_instance: str | None = None
    """Instance of the controller that emitted the event, e.g. kubelet-xyzf."""


# --- Binding -------------------------------------------------------------------------------------


class Binding(K8sModel):
    """Ties a pod to a node; posted to a pod's binding subresource by the scheduler."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    target: Annotated[ObjectReference, atomic_map()]
    """The node to bind the pod to."""
