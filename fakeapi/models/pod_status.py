"""Pod status (core/v1): conditions, IPs, container statuses and DRA claim statuses.

Besides upstream's fields, ``PodStatus.allocatedResourcesStatus`` carries pod-level device health
as the KEP-4680 seed text describes (docs/keps.md); container-level health is upstream's
``ContainerStatus.allocatedResourcesStatus``."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import (
    GoType,
    K8sModel,
    ListMeta_,
    Quantity,
    Time,
    atomic_list,
    map_list,
    merge_list,
)
from fakeapi.models.pod_container import ResourceRequirements

__all__ = [
    "ContainerExtendedResourceRequest",
    "ContainerState",
    "ContainerStateRunning",
    "ContainerStateTerminated",
    "ContainerStateWaiting",
    "ContainerStatus",
    "ContainerUser",
    "HostIP",
    "ImageVolumeStatus",
    "LinuxContainerUser",
    "NodeAllocatableMappedResources",
    "NodeAllocatableOverheadResources",
    "NodeAllocatableResourceClaimStatus",
    "PodCondition",
    "PodExtendedResourceClaimStatus",
    "PodIP",
    "PodResourceClaimStatus",
    "PodStatus",
    "PodVolumeHealth",
    "ResourceHealth",
    "ResourceStatus",
    "VolumeHealthCondition",
    "VolumeMountStatus",
    "VolumeStatus",
]


class PodCondition(K8sModel):
    """One aspect of a pod's state, such as Ready or PodScheduled."""

    type: str
    """Type of the condition, e.g. Ready or PodScheduled."""
    observed_generation: int | None = None
    """The metadata.generation the condition was set from."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_probe_time: Time | None = None
    """When the condition was last probed."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """A short machine-readable reason in CamelCase."""
    message: str | None = None
    """A human-readable explanation."""


class HostIP(K8sModel):
    """An IP address of the node the pod runs on."""

    ip: str
    """The IP address."""


class PodIP(K8sModel):
    """An IP address allocated to the pod."""

    ip: str
    """The IP address."""


class ContainerStateWaiting(K8sModel):
    """A container that is not running yet."""

    reason: str | None = None
    """Why the container is not running yet, e.g. ContainerCreating."""
    message: str | None = None
    """Details of why the container is waiting."""


class ContainerStateRunning(K8sModel):
    """A running container."""

    started_at: Time | None = None
    """When the container last (re)started."""


class ContainerStateTerminated(K8sModel):
    """A container that has exited."""

    exit_code: int
    """Exit status of the last termination."""
    signal: int | None = None
    """Signal of the last termination."""
    reason: str | None = None
    """Why the container terminated, e.g. Completed or Error."""
    message: str | None = None
    """Details of the termination."""
    started_at: Time | None = None
    """When the execution started."""
    finished_at: Time | None = None
    """When the execution ended."""
    container_id: str | None = Field(default=None, alias="containerID")
    """ID of the terminated container, as <type>://<id>."""


class ContainerState(K8sModel):
    """The state of a container; at most one member is set (waiting by default)."""

    waiting: ContainerStateWaiting | None = None
    """Details of a waiting container."""
    running: ContainerStateRunning | None = None
    """Details of a running container."""
    terminated: ContainerStateTerminated | None = None
    """Details of a terminated container."""


class ImageVolumeStatus(K8sModel):
    """Details of a mounted image volume."""

    image_ref: str
    """Digest of the image that was mounted."""


class VolumeStatus(K8sModel):
    """Details of a mounted volume, by volume type."""

    image: ImageVolumeStatus | None = None
    """Details of an image volume."""


class VolumeMountStatus(K8sModel):
    """The state of one volume mount of a container."""

    name: str
    """Name of the volume mount."""
    mount_path: str
    """Path inside the container at which the volume is mounted."""
    read_only: bool | None = None
    """Whether the mount is read-only."""
    recursive_read_only: str | None = None
    """Disabled or Enabled, as applied to the mount."""
    volume_status: VolumeStatus | None = None
    """Details of the mounted volume."""


class LinuxContainerUser(K8sModel):
    """User and group IDs of the first process of a Linux container."""

    uid: int
    """Primary UID."""
    gid: int
    """Primary GID."""
    supplemental_groups: Annotated[list[int] | None, atomic_list()] = None
    """Supplemental group IDs."""


class ContainerUser(K8sModel):
    """The identity the container process runs as."""

    linux: LinuxContainerUser | None = None
    """Linux user and groups."""


class ResourceHealth(K8sModel):
    """Health of one device."""

    resource_id: str = Field(alias="resourceID")
    """Device ID; for DRA `<driver>/<pool>/<device>`."""
    health: str | None = None
    """Healthy, Unhealthy or Unknown."""
    message: str | None = None
    """Details of the health status."""


class ResourceStatus(K8sModel):
    """Health of the devices behind one resource of a container or pod."""

    name: str
    """Resource name; for DRA `claim:<claim>/<request>`."""
    resources: Annotated[list[ResourceHealth] | None, map_list("resourceID", patch=False)] = None
    """Health of each device behind the resource."""


class ContainerStatus(K8sModel):
    """What the kubelet last reported about one container."""

    name: str
    """Name of the container."""
    state: ContainerState | None = None
    """Current state of the container."""
    last_state: ContainerState | None = None
    """State of the container's last termination."""
    ready: bool
    """Whether the container passes its readiness probe."""
    restart_count: int
    """How many times the container has restarted."""
    image: str
    """Image the container runs."""
    image_id: str = Field(alias="imageID")
    """ID of the image the container runs."""
    container_id: str | None = Field(default=None, alias="containerID")
    """ID of the container, as <type>://<id>."""
    started: bool | None = None
    """Whether the container has passed its startup probe."""
    allocated_resources: dict[str, Quantity] | None = None
    """Resources allocated to the container on the node."""
    resources: ResourceRequirements | None = None
    """Resources actually configured for the running container."""
    volume_mounts: Annotated[list[VolumeMountStatus] | None, map_list("mountPath")] = None
    """State of the container's volume mounts."""
    user: ContainerUser | None = None
    """Identity of the container's first process."""
    allocated_resources_status: Annotated[list[ResourceStatus] | None, map_list("name")] = None
    """AllocatedResourcesStatus represents the status of the resources allocated to this
    container, for example the health of DRA devices."""
    stop_signal: str | None = None
    """Signal that will stop the container."""


class PodResourceClaimStatus(K8sModel):
    """The ResourceClaim generated for one of the pod's resource claims."""

    name: str
    """Name of the entry in the pod's spec.resourceClaims."""
    resource_claim_name: str | None = None
    """Name of the generated ResourceClaim; empty when none was needed."""


class ContainerExtendedResourceRequest(K8sModel):
    """Maps a container's extended-resource request to a claim request."""

    container_name: str
    """Name of the container."""
    resource_name: str
    """Extended resource name."""
    request_name: str
    """Request name in the claim."""


class PodExtendedResourceClaimStatus(K8sModel):
    """The claim the scheduler generated for extended resources backed by DRA."""

    request_mappings: Annotated[list[ContainerExtendedResourceRequest], atomic_list()]
    """Which claim request serves each container's extended resource."""
    resource_claim_name: str
    """Name of the generated claim."""


class NodeAllocatableMappedResources(K8sModel):
    """A node-allocatable resource and its amount."""

    name: str
    """Node-allocatable resource name."""
    quantity: Quantity
    """Amount provided."""


class NodeAllocatableOverheadResources(K8sModel):
    """Extra node-allocatable resources per pod or container."""

    name: str
    """Node-allocatable resource name."""
    per_pod: Quantity | None = None
    """Amount per pod."""
    per_container: Quantity | None = None
    """Amount per container."""


class NodeAllocatableResourceClaimStatus(K8sModel):
    """Node-allocatable resources provided by a resource claim."""

    resource_claim_name: str
    """Name of the claim."""
    containers: Annotated[list[str] | None, ListMeta_("set")] = None
    """Containers using the resources."""
    mapping: Annotated[list[NodeAllocatableMappedResources] | None, map_list("name")] = None
    """Node-allocatable resources and amounts provided."""
    overhead: Annotated[list[NodeAllocatableOverheadResources] | None, map_list("name")] = None
    """Extra node-allocatable resources."""


class VolumeHealthCondition(K8sModel):
    """A health observation of a volume."""

    status: str
    """Health status of the volume."""
    reason: str
    """A short machine-readable reason in CamelCase."""
    message: str | None = None
    """A human-readable explanation."""


class PodVolumeHealth(K8sModel):
    """Health of one of the pod's volumes."""

    name: str
    """Name of the volume."""
    health_conditions: Annotated[
        list[VolumeHealthCondition] | None, map_list("status", "reason")
    ] = None
    """Health observations of the volume."""
    last_transition_time: Time | None = None
    """When the health last changed."""


class PodStatus(K8sModel):
    """What is currently known about a pod; may lag behind reality."""

    observed_generation: int | None = None
    """The metadata.generation this status was computed from."""
    phase: Annotated[str | None, GoType("PodPhase")] = None
    """Pending, Running, Succeeded, Failed or Unknown."""
    conditions: Annotated[list[PodCondition] | None, map_list("type")] = None
    """Current service state of the pod."""
    message: str | None = None
    """Why the pod is in its current state."""
    reason: str | None = None
    """A brief CamelCase reason for the pod's state, e.g. Evicted."""
    nominated_node_name: str | None = None
    """The node chosen by preemption, while the victims terminate."""
    host_ip: str | None = Field(default=None, alias="hostIP")
    """Primary IP of the node the pod is assigned to."""
    host_ips: Annotated[list[HostIP] | None, merge_list("ip")] = Field(
        default=None, alias="hostIPs"
    )
    """IPs of the node, at most one per IP family; the first equals hostIP."""
    pod_ip: str | None = Field(default=None, alias="podIP")
    """Primary IP of the pod."""
    pod_ips: Annotated[list[PodIP] | None, map_list("ip")] = Field(default=None, alias="podIPs")
    """IPs of the pod, at most one per IP family; the first equals podIP."""
    start_time: Time | None = None
    """When the kubelet acknowledged the pod, before pulling images."""
    init_container_statuses: Annotated[list[ContainerStatus] | None, atomic_list()] = None
    """Statuses of the init containers."""
    container_statuses: Annotated[list[ContainerStatus] | None, atomic_list()] = None
    """Statuses of the app containers."""
    qos_class: str | None = None
    """QoS class derived from the resource requirements: Guaranteed, Burstable or BestEffort."""
    ephemeral_container_statuses: Annotated[list[ContainerStatus] | None, atomic_list()] = None
    """Statuses of the ephemeral containers."""
    resize: str | None = None
    """Deprecated status of a resize request."""
    resource_claim_statuses: Annotated[
        list[PodResourceClaimStatus] | None, ListMeta_("map", ("name",), "merge,retainKeys", "name")
    ] = None
    """The ResourceClaims generated for the pod's claims; one entry per claim from a template."""
    allocated_resources_status: Annotated[list[ResourceStatus] | None, map_list("name")] = None
    """AllocatedResourcesStatus represents the status of resources allocated to the pod that
    are not tied to one container, for example the health of DRA devices."""
    extended_resource_claim_status: PodExtendedResourceClaimStatus | None = None
    """The claim generated for extended resources backed by DRA."""
    allocated_resources: dict[str, Quantity] | None = None
    """Pod-level resources allocated on the node."""
    resources: ResourceRequirements | None = None
    """Pod-level resources actually configured on the node."""
    node_allocatable_resource_claim_statuses: Annotated[
        list[NodeAllocatableResourceClaimStatus] | None, map_list("resourceClaimName")
    ] = None
    """Node-allocatable resources provided through resource claims."""
    volume_health: Annotated[list[PodVolumeHealth] | None, map_list("name", patch=False)] = None
    """Health of the pod's volumes."""
