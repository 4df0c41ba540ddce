"""scheduling.k8s.io Workload, PodGroup and CompositePodGroup as Kubernetes 1.37 serves them.

v1beta1 and v1alpha3 share these shapes (v1alpha3 adds the CompositePodGroup kind); the OpenAPI
builder names each class after the document it appears in. The seed's v1alpha1
(:mod:`fakeapi.models.scheduling`, KEP-5729) stays the storage version: Workloads and PodGroups
written here are converted to it (:mod:`fakeapi.registry.conversion.scheduling`).

Compared with the seed: ``policy`` is ``schedulingPolicy``; a PodGroup names its Workload and
template in one ``workloadRef: {workloadName, templateName}``; and templates and groups carry
scheduling constraints (topology), a disruption mode, priority fields and, for composite groups,
a parent.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, ListMeta_, atomic_list, map_list
from fakeapi.models.meta import Condition, ObjectMeta

__all__ = [
    "AllDisruptionMode",
    "BasicSchedulingPolicy",
    "CompositeBasicSchedulingPolicy",
    "CompositeDisruptionMode",
    "CompositeGangSchedulingPolicy",
    "CompositePodGroup",
    "CompositePodGroupSchedulingConstraints",
    "CompositePodGroupSchedulingPolicy",
    "CompositePodGroupSpec",
    "CompositePodGroupStatus",
    "CompositePodGroupTemplate",
    "DisruptionMode",
    "GangSchedulingPolicy",
    "PodGroup",
    "PodGroupResourceClaim",
    "PodGroupResourceClaimStatus",
    "PodGroupSchedulingConstraints",
    "PodGroupSchedulingPolicy",
    "PodGroupSpec",
    "PodGroupStatus",
    "PodGroupTemplate",
    "SingleDisruptionMode",
    "TopologyConstraint",
    "TypedLocalObjectReference",
    "Workload",
    "WorkloadReference",
    "WorkloadSpec",
]

#: ``listType=map`` keyed by name, strategic merge with ``merge,retainKeys``
_CLAIM_LIST = ListMeta_("map", ("name",), "merge,retainKeys", "name")


class TypedLocalObjectReference(K8sModel):
    """An object in the same namespace, by API group, kind and name."""

    api_group: str | None = None
    """The API group of the object; empty for the core group."""
    kind: str
    """The kind of the object."""
    name: str
    """The name of the object."""


class BasicSchedulingPolicy(K8sModel):
    """Pods of the group are scheduled one by one, like independent pods."""


class GangSchedulingPolicy(K8sModel):
    """Pods of the group are scheduled all together or not at all."""

    min_count: int
    """The smallest number of pods that must be schedulable together (at least 1)."""


class PodGroupSchedulingPolicy(K8sModel):
    """How the pods of a group are scheduled: exactly one of basic or gang."""

    basic: BasicSchedulingPolicy | None = None
    """Schedule pods independently."""
    gang: GangSchedulingPolicy | None = None
    """Schedule at least minCount pods together or none."""


class TopologyConstraint(K8sModel):
    """Pods of the group are placed in one domain of a node label."""

    key: str
    """The node label whose value is the topology domain (a label key)."""


class PodGroupSchedulingConstraints(K8sModel):
    """Placement constraints of a group."""

    topology: Annotated[list[TopologyConstraint] | None, atomic_list()] = None
    """At most one topology constraint."""


class PodGroupResourceClaim(K8sModel):
    """A ResourceClaim shared by the group's pods: an existing claim or one from a template."""

    name: str
    """The name pods use for the claim (a DNS label), unique in the group."""
    resource_claim_name: str | None = None
    """An existing ResourceClaim in the group's namespace, reserved for the group."""
    resource_claim_template_name: str | None = None
    """A ResourceClaimTemplate from which one claim is generated for the group."""


class SingleDisruptionMode(K8sModel):
    """Members may be disrupted one at a time."""


class AllDisruptionMode(K8sModel):
    """Members may only be disrupted together."""


class DisruptionMode(K8sModel):
    """How members of a group may be disrupted: exactly one of single or all."""

    single: SingleDisruptionMode | None = None
    """Members are disrupted independently."""
    all: AllDisruptionMode | None = None
    """Members are disrupted together."""


class PodGroupTemplate(K8sModel):
    """A template from which PodGroups of a Workload are created."""

    name: str
    """The template name (a DNS label), unique in the Workload."""
    scheduling_policy: PodGroupSchedulingPolicy
    """The scheduling policy of groups created from the template."""
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    """Placement constraints (TopologyAwareWorkloadScheduling)."""
    resource_claims: Annotated[list[PodGroupResourceClaim] | None, _CLAIM_LIST] = None
    """Claims shared by each group's pods (at most 4); immutable."""
    disruption_mode: DisruptionMode | None = None
    """How the groups may be disrupted; immutable."""
    priority_class_name: str | None = None
    """The PriorityClass of the groups; immutable."""
    priority: int | None = None
    """The priority of the groups (at most 1000000000); immutable."""
    preemption_policy: str | None = None
    """Never or PreemptLowerPriority (PodGroupPreemptionPolicy); immutable."""


class CompositeBasicSchedulingPolicy(K8sModel):
    """Child groups are scheduled independently."""


class CompositeGangSchedulingPolicy(K8sModel):
    """Child groups are scheduled together or not at all."""

    min_group_count: int
    """The smallest number of child groups that must be schedulable together (at least 1)."""


class CompositePodGroupSchedulingPolicy(K8sModel):
    """How the children of a composite group are scheduled: exactly one of basic or gang."""

    basic: CompositeBasicSchedulingPolicy | None = None
    """Schedule child groups independently."""
    gang: CompositeGangSchedulingPolicy | None = None
    """Schedule at least minGroupCount child groups together or none."""


class CompositePodGroupSchedulingConstraints(K8sModel):
    """Placement constraints of a composite group."""

    topology: Annotated[list[TopologyConstraint] | None, atomic_list()] = None
    """At most one topology constraint."""


class CompositeDisruptionMode(K8sModel):
    """How children of a composite group may be disrupted: exactly one of single or all."""

    single: SingleDisruptionMode | None = None
    """Children are disrupted independently."""
    all: AllDisruptionMode | None = None
    """Children are disrupted together."""


class CompositePodGroupTemplate(K8sModel):
    """A template of a composite group: child templates under one policy."""

    name: str
    """The template name (a DNS label), unique in the Workload."""
    scheduling_policy: CompositePodGroupSchedulingPolicy
    """The scheduling policy of the children."""
    scheduling_constraints: CompositePodGroupSchedulingConstraints | None = None
    """Placement constraints; immutable."""
    disruption_mode: CompositeDisruptionMode | None = None
    """How the children may be disrupted; immutable."""
    priority_class_name: str | None = None
    """The PriorityClass of the composite groups; immutable."""
    priority: int | None = None
    """The priority of the composite groups; immutable."""
    preemption_policy: str | None = None
    """Never or PreemptLowerPriority (PodGroupPreemptionPolicy); immutable."""
    pod_group_templates: Annotated[list[PodGroupTemplate] | None, map_list("name", patch=False)] = (
        None
    )
    """Templates of child PodGroups."""
    composite_pod_group_templates: Annotated[
        list[CompositePodGroupTemplate] | None, map_list("name", patch=False)
    ] = None
    """Templates of child composite groups."""


class WorkloadSpec(K8sModel):
    """The pod group templates of a workload: exactly one of the two lists."""

    controller_ref: TypedLocalObjectReference | None = None
    """The object (e.g. a Job) that manages this workload; immutable."""
    pod_group_templates: Annotated[list[PodGroupTemplate] | None, map_list("name", patch=False)] = (
        None
    )
    """The templates (at most 8); none may be added or removed."""
    composite_pod_group_templates: Annotated[
        list[CompositePodGroupTemplate] | None, map_list("name", patch=False)
    ] = None
    """The composite templates (at most 8; CompositePodGroup)."""


class Workload(K8sModel):
    """How the pods of an application are grouped for scheduling."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: WorkloadSpec
    """The pod group templates."""


class WorkloadReference(K8sModel):
    """The Workload and template a group was created from."""

    workload_name: str
    """The Workload's name, in the group's namespace."""
    template_name: str
    """The template's name in the Workload."""


class PodGroupSpec(K8sModel):
    """Where a PodGroup comes from, how it is scheduled and which claims its pods share."""

    parent_composite_pod_group_name: str | None = None
    """The composite group this group belongs to (CompositePodGroup); immutable."""
    workload_ref: WorkloadReference | None = None
    """The Workload template the group was created from; immutable."""
    scheduling_policy: PodGroupSchedulingPolicy
    """The scheduling policy, copied from the template."""
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    """Placement constraints (TopologyAwareWorkloadScheduling); immutable."""
    resource_claims: Annotated[list[PodGroupResourceClaim] | None, _CLAIM_LIST] = None
    """Claims shared by the group's pods (at most 4); immutable."""
    disruption_mode: DisruptionMode | None = None
    """How the group's pods may be disrupted; immutable."""
    priority_class_name: str | None = None
    """The PriorityClass of the group; immutable."""
    priority: int | None = None
    """The group's priority (at most 1000000000); immutable."""
    preemption_policy: str | None = None
    """Never or PreemptLowerPriority (PodGroupPreemptionPolicy); immutable."""


class PodGroupResourceClaimStatus(K8sModel):
    """The claim generated for one of the group's template claims."""

    name: str
    """The name of the entry in spec.resourceClaims."""
    resource_claim_name: str | None = None
    """The generated ResourceClaim; unset when none is needed."""


class PodGroupStatus(K8sModel):
    """Observed state of a PodGroup."""

    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """PodGroupInitiallyScheduled (reasons Unschedulable, SchedulerError) and
    DisruptionTarget."""
    resource_claim_statuses: Annotated[list[PodGroupResourceClaimStatus] | None, _CLAIM_LIST] = None
    """The claims generated from templates for this group."""


class PodGroup(K8sModel):
    """A runtime instance of pods scheduled together."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PodGroupSpec
    """The group's template, policy and claims."""
    status: PodGroupStatus | None = None
    """Conditions and generated claims."""


class CompositePodGroupSpec(K8sModel):
    """Where a composite group comes from and how its children are scheduled."""

    parent_composite_pod_group_name: str | None = None
    """The parent composite group; unset for a root; immutable."""
    workload_ref: WorkloadReference
    """The Workload template the group was created from; immutable."""
    scheduling_policy: CompositePodGroupSchedulingPolicy
    """The scheduling policy of the children; immutable."""
    scheduling_constraints: CompositePodGroupSchedulingConstraints | None = None
    """Placement constraints; immutable."""
    disruption_mode: CompositeDisruptionMode | None = None
    """How the children may be disrupted; immutable."""
    priority_class_name: str | None = None
    """The PriorityClass of the group; immutable."""
    priority: int | None = None
    """The group's priority; immutable."""
    preemption_policy: str | None = None
    """Never or PreemptLowerPriority; immutable."""


class CompositePodGroupStatus(K8sModel):
    """Observed state of a composite group."""

    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """CompositePodGroupInitiallyScheduled and DisruptionTarget."""


class CompositePodGroup(K8sModel):
    """A runtime instance of pod groups scheduled together."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: CompositePodGroupSpec
    """The group's template and policy."""
    status: CompositePodGroupStatus | None = None
    """Conditions."""
