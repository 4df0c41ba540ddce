"""The Pod kind (core/v1): the pod spec, its scheduling constraints and the top-level object.

Containers, volumes and status types live in ``pod_container``, ``pod_volume`` and ``pod_status``;
this module holds what is specific to the pod as a unit. Two fields follow the KEP-5729 seed text
rather than upstream (docs/keps.md, KEP-5729): ``spec.workloadRef`` (``{name, podGroupName}``) and
``spec.resourceClaims[].podGroupResourceClaim``. Upstream's ``spec.schedulingGroup`` is served
too, so manifests written for either shape are accepted."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import (
    GoType,
    Int32,
    K8sModel,
    ListMeta_,
    Quantity,
    atomic_list,
    atomic_map,
    map_list,
)
from fakeapi.models.meta import LabelSelector, ObjectMeta
from fakeapi.models.nodeselector import NodeSelector, NodeSelectorTerm
from fakeapi.models.pod_container import (
    AppArmorProfile,
    Container,
    EphemeralContainer,
    LocalObjectReference,
    ResourceRequirements,
    SeccompProfile,
    SELinuxOptions,
    WindowsSecurityContextOptions,
)
from fakeapi.models.pod_status import PodStatus
from fakeapi.models.pod_volume import Volume

__all__ = [
    "Affinity",
    "EvictionResponder",
    "HostAlias",
    "NodeAffinity",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodDNSConfig",
    "PodDNSConfigOption",
    "PodOS",
    "PodReadinessGate",
    "PodResourceClaim",
    "PodSchedulingGate",
    "PodSchedulingGroup",
    "PodSecurityContext",
    "PodSpec",
    "PreferredSchedulingTerm",
    "Sysctl",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
    "WorkloadReference",
]


class Sysctl(K8sModel):
    """A namespaced kernel parameter set for the pod."""

    name: str
    """Name of the property."""
    value: str
    """Value of the property."""


class PodSecurityContext(K8sModel):
    """Security settings shared by all containers of a pod."""

    se_linux_options: SELinuxOptions | None = None
    """SELinux context for the container; chosen by the runtime when empty."""
    windows_options: WindowsSecurityContextOptions | None = None
    """Windows-specific settings."""
    run_as_user: int | None = None
    """UID to run the entrypoint of the container process as."""
    run_as_group: int | None = None
    """GID to run the entrypoint of the container process as."""
    run_as_non_root: bool | None = None
    """If true, the kubelet refuses to start a container that would run as root."""
    supplemental_groups: Annotated[list[int] | None, atomic_list()] = None
    """Extra groups for the first process of each container."""
    supplemental_groups_policy: str | None = None
    """How supplemental groups are computed: Merge or Strict."""
    fs_group: int | None = None
    """Group that owns volumes and is added to every container's groups."""
    sysctls: Annotated[list[Sysctl] | None, atomic_list()] = None
    """Namespaced sysctls set for the pod."""
    fs_group_change_policy: str | None = None
    """When volume ownership is changed: OnRootMismatch or Always."""
    seccomp_profile: SeccompProfile | None = None
    """The seccomp profile to use."""
    app_armor_profile: AppArmorProfile | None = None
    """The AppArmor profile to use."""
    se_linux_change_policy: str | None = None
    """How SELinux labels are applied to volumes: Recursive or MountOption."""


class PreferredSchedulingTerm(K8sModel):
    """A weighted node preference."""

    weight: int
    """Weight of this preference, 1-100."""
    preference: Annotated[NodeSelectorTerm, atomic_map()]
    """The node selector term."""


class NodeAffinity(K8sModel):
    """Rules that attract a pod to nodes by their labels or fields."""

    required_during_scheduling_ignored_during_execution: Annotated[
        NodeSelector | None, atomic_map()
    ] = None
    """Rules that must hold when the pod is scheduled; not re-checked afterwards."""
    preferred_during_scheduling_ignored_during_execution: Annotated[
        list[PreferredSchedulingTerm] | None, atomic_list()
    ] = None
    """Rules the scheduler favours with the given weights; not re-checked afterwards."""


class PodAffinityTerm(K8sModel):
    """Pods to be co-located with (or kept away from) within a topology domain."""

    label_selector: LabelSelector | None = None
    """A label query over pods."""
    namespaces: Annotated[list[str] | None, atomic_list()] = None
    """Namespaces the label selector applies to; the pod's namespace when empty."""
    topology_key: str
    """Node label whose value defines a topology domain."""
    namespace_selector: LabelSelector | None = None
    """A label query over namespaces the term applies to."""
    match_label_keys: Annotated[list[str] | None, atomic_list()] = None
    """Label keys whose values are taken from the incoming pod and added to the label selector."""
    mismatch_label_keys: Annotated[list[str] | None, atomic_list()] = None
    """Label keys whose values are taken from the incoming pod and excluded by the selector."""


class WeightedPodAffinityTerm(K8sModel):
    """A weighted pod affinity preference."""

    weight: int
    """Weight of this preference, 1-100."""
    pod_affinity_term: PodAffinityTerm
    """The pod affinity term."""


class PodAffinity(K8sModel):
    """Rules that place a pod near other pods."""

    required_during_scheduling_ignored_during_execution: Annotated[
        list[PodAffinityTerm] | None, atomic_list()
    ] = None
    """Rules that must hold when the pod is scheduled; not re-checked afterwards."""
    preferred_during_scheduling_ignored_during_execution: Annotated[
        list[WeightedPodAffinityTerm] | None, atomic_list()
    ] = None
    """Rules the scheduler favours with the given weights; not re-checked afterwards."""


class PodAntiAffinity(K8sModel):
    """Rules that keep a pod away from other pods."""

    required_during_scheduling_ignored_during_execution: Annotated[
        list[PodAffinityTerm] | None, atomic_list()
    ] = None
    """Rules that must hold when the pod is scheduled; not re-checked afterwards."""
    preferred_during_scheduling_ignored_during_execution: Annotated[
        list[WeightedPodAffinityTerm] | None, atomic_list()
    ] = None
    """Rules the scheduler favours with the given weights; not re-checked afterwards."""


class Affinity(K8sModel):
    """Scheduling affinity and anti-affinity rules of a pod."""

    node_affinity: NodeAffinity | None = None
    """Node affinity rules."""
    pod_affinity: PodAffinity | None = None
    """Pod affinity rules."""
    pod_anti_affinity: PodAntiAffinity | None = None
    """Pod anti-affinity rules."""


class Toleration(K8sModel):
    """Lets a pod schedule onto (or stay on) nodes with a matching taint."""

    key: str | None = None
    """Taint key the toleration applies to; empty with Exists matches all keys."""
    operator: Annotated[str | None, GoType("TolerationOperator")] = None
    """Exists or Equal. Default Equal."""
    value: str | None = None
    """Taint value to match."""
    effect: Annotated[str | None, GoType("TaintEffect")] = None
    """Taint effect to match; all effects when empty."""
    toleration_seconds: int | None = None
    """How long a NoExecute taint is tolerated before eviction."""


class HostAlias(K8sModel):
    """An entry added to the pod's /etc/hosts file."""

    ip: str
    """IP address of the entry."""
    hostnames: Annotated[list[str] | None, atomic_list()] = None
    """Host names of the entry."""


class PodDNSConfigOption(K8sModel):
    """A resolver option."""

    name: str | None = None
    """Option name."""
    value: str | None = None
    """Option value."""


class PodDNSConfig(K8sModel):
    """DNS settings of a pod, merged with those from dnsPolicy."""

    nameservers: Annotated[list[str] | None, atomic_list()] = None
    """DNS server IPs."""
    searches: Annotated[list[str] | None, atomic_list()] = None
    """DNS search domains."""
    options: Annotated[list[PodDNSConfigOption] | None, atomic_list()] = None
    """Resolver options."""


class PodReadinessGate(K8sModel):
    """An extra condition the pod must meet to be ready."""

    condition_type: str
    """Pod condition type that must be True."""


class TopologySpreadConstraint(K8sModel):
    """How matching pods should spread across topology domains."""

    max_skew: int
    """Largest allowed difference in matching pods between domains."""
    topology_key: str
    """Node label key that defines topology domains."""
    when_unsatisfiable: str
    """DoNotSchedule or ScheduleAnyway."""
    label_selector: LabelSelector | None = None
    """Selects the pods counted in each domain."""
    min_domains: int | None = None
    """Minimum number of eligible domains."""
    node_affinity_policy: str | None = None
    """Whether node affinity limits the domains counted: Honor or Ignore."""
    node_taints_policy: str | None = None
    """Whether node taints limit the domains counted: Honor or Ignore."""
    match_label_keys: Annotated[list[str] | None, atomic_list()] = None
    """Label keys whose values are taken from the incoming pod and added to the label selector."""


class PodOS(K8sModel):
    """The operating system the pod targets."""

    name: str
    """linux or windows."""


class PodSchedulingGate(K8sModel):
    """A gate that keeps the pod from being scheduled while present."""

    name: str
    """Name of the gate; unique in the pod."""


class PodResourceClaim(K8sModel):
    """A resource claim the pod's containers may use, by name or from a template."""

    name: str
    """Name of this claim in the pod, a DNS label; containers refer to it."""
    resource_claim_name: str | None = None
    """An existing ResourceClaim in the pod's namespace."""
    resource_claim_template_name: str | None = None
    """A ResourceClaimTemplate from which a claim is generated for the pod."""
    pod_group_resource_claim: str | None = None
    """PodGroupResourceClaim is the name of a resource claim of the PodGroup this pod belongs to.
    The pod shares the claim with the other pods of its group."""


class PodSchedulingGroup(K8sModel):
    """The scheduling group (PodGroup) a pod belongs to."""

    pod_group_name: str | None = None
    """Name of the PodGroup."""


class WorkloadReference(K8sModel):
    """WorkloadReference identifies the Workload object and the PodGroup within it that a pod
    belongs to."""

    name: str
    """Name of the Workload in the pod's namespace."""
    pod_group_name: str | None = None
    """Name of the PodGroup of that Workload the pod belongs to."""


class EvictionResponder(K8sModel):
    """A component that takes part in evicting the pod."""

    name: str
    """Name of the responder."""
    priority: int
    """Order among the responders."""


class PodSpec(K8sModel):
    """The desired state of a pod: its containers, volumes and scheduling constraints."""

    volumes: Annotated[
        list[Volume] | None, ListMeta_("map", ("name",), "merge,retainKeys", "name")
    ] = None
    """Volumes the pod's containers can mount."""
    init_containers: Annotated[list[Container] | None, map_list("name")] = None
    """Containers run to completion, in order, before the app containers start."""
    containers: Annotated[list[Container], map_list("name")]
    """The pod's containers; at least one. Cannot be updated."""
    ephemeral_containers: Annotated[list[EphemeralContainer] | None, map_list("name")] = None
    """Debugging containers added to the running pod."""
    restart_policy: Annotated[str | None, GoType("RestartPolicy")] = None
    """Restart policy for all containers: Always, OnFailure or Never. Default Always."""
    termination_grace_period_seconds: int | None = None
    """Seconds the pod gets to stop gracefully after deletion is requested. Default 30."""
    active_deadline_seconds: int | None = None
    """Seconds the pod may be active before the kubelet fails it."""
    dns_policy: str | None = None
    """How DNS is configured: ClusterFirstWithHostNet, ClusterFirst, Default or None."""
    node_selector: Annotated[dict[str, str] | None, atomic_map()] = None
    """Labels a node must have for the pod to be scheduled there."""
    service_account_name: str | None = None
    """Service account the pod runs as."""
    service_account: str | None = None
    """Deprecated alias of serviceAccountName."""
    automount_service_account_token: bool | None = None
    """Whether a service account token is mounted automatically."""
    node_name: str | None = None
    """The node the pod is bound to; set by the scheduler through the binding subresource."""
    host_network: bool | None = None
    """Use the node's network namespace."""
    host_pid: bool | None = Field(default=None, alias="hostPID")
    """Use the node's PID namespace."""
    host_ipc: bool | None = Field(default=None, alias="hostIPC")
    """Use the node's IPC namespace."""
    share_process_namespace: bool | None = None
    """Share one process namespace between all containers of the pod."""
    security_context: PodSecurityContext | None = None
    """Pod-level security settings."""
    image_pull_secrets: Annotated[list[LocalObjectReference] | None, map_list("name")] = None
    """Secrets in the pod's namespace used to pull images."""
    hostname: str | None = None
    """Host name of the pod; the pod name by default."""
    subdomain: str | None = None
    """Subdomain that, with hostname, gives the pod a fully qualified name."""
    affinity: Affinity | None = None
    """Scheduling affinity rules."""
    scheduler_name: str | None = None
    """The scheduler that places the pod; default-scheduler by default."""
    tolerations: Annotated[list[Toleration] | None, atomic_list()] = None
    """Taints the pod tolerates."""
    host_aliases: Annotated[list[HostAlias] | None, map_list("ip")] = None
    """Extra /etc/hosts entries."""
    priority_class_name: str | None = None
    """PriorityClass whose value becomes the pod's priority."""
    priority: Int32 | None = None
    """The pod's priority, resolved from priorityClassName by admission."""
    dns_config: PodDNSConfig | None = None
    """Extra DNS settings."""
    readiness_gates: Annotated[list[PodReadinessGate] | None, atomic_list()] = None
    """Extra conditions that must be True for the pod to be ready."""
    runtime_class_name: str | None = None
    """RuntimeClass used to run the pod."""
    enable_service_links: bool | None = None
    """Whether service information is injected as environment variables. Default true."""
    preemption_policy: Annotated[str | None, GoType("PreemptionPolicy")] = None
    """Whether the pod may preempt lower-priority pods: PreemptLowerPriority or Never."""
    overhead: dict[str, Quantity] | None = None
    """Resources used by the pod sandbox on top of the containers' requests."""
    topology_spread_constraints: Annotated[
        list[TopologySpreadConstraint] | None, map_list("topologyKey", "whenUnsatisfiable")
    ] = None
    """How the pod spreads across topology domains together with matching pods."""
    set_hostname_as_fqdn: bool | None = Field(default=None, alias="setHostnameAsFQDN")
    """Set the host name to the pod's fully qualified domain name."""
    os: PodOS | None = None
    """The operating system of the pod's containers."""
    host_users: bool | None = None
    """Whether the pod uses the host user namespace; false gives it its own."""
    scheduling_gates: Annotated[list[PodSchedulingGate] | None, map_list("name")] = None
    """Gates that block scheduling until they are all removed."""
    resource_claims: Annotated[
        list[PodResourceClaim] | None, ListMeta_("map", ("name",), "merge,retainKeys", "name")
    ] = None
    """ResourceClaims the pod uses; containers refer to them by name in resources.claims."""
    resources: ResourceRequirements | None = None
    """Pod-level resource requests and limits shared by all containers."""
    hostname_override: str | None = None
    """Host name to use instead of the derived one."""
    scheduling_group: PodSchedulingGroup | None = None
    """The PodGroup the pod is scheduled with (upstream form)."""
    workload_ref: WorkloadReference | None = None
    """WorkloadRef provides a reference to the Workload object that this Pod belongs to. It is
    used by the scheduler to schedule the pods of a PodGroup together."""
    eviction_responders: Annotated[list[EvictionResponder] | None, map_list("name")] = None
    """Components that take part in evicting this pod."""


class Pod(K8sModel):
    """A group of containers scheduled together onto one node."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PodSpec | None = None
    """The desired state of the pod."""
    status: PodStatus | None = None
    """The most recently observed state of the pod; read-only for users."""
