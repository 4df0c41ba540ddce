"""scheduling.k8s.io/v1alpha1 Workload and PodGroup, in the shape of the seed KEP-5729.

A Workload declares pod group templates (scheduling policy and the ResourceClaims the group
shares); a PodGroup is one instance of a template, and its ``resourceClaims`` are reserved for the
whole group instead of for each pod (KEP-5729, docs/keps.md). Upstream later renamed and
reshaped these types (v1alpha2/v1beta1); fakeapi serves the seed form.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, ListMeta_, map_list
from fakeapi.models.meta import Condition, ObjectMeta

__all__ = [
    "Workload",
    "WorkloadSpec",
    "TypedLocalObjectReference",
    "PodGroupTemplate",
    "PodGroupPolicy",
    "BasicSchedulingPolicy",
    "GangSchedulingPolicy",
    "PodGroupResourceClaim",
    "PodGroup",
    "PodGroupSpec",
    "PodGroupStatus",
    "WorkloadReference",
    "PodGroupTemplateReference",
    "PodGroupResourceClaimStatus",
    "POD_GROUP_PROTECTION_FINALIZER",
]

#: set on every PodGroup when it is created; the podgroup-protection controller removes it once
#: no pod that belongs to the group can still run, so a group outlives its pods
POD_GROUP_PROTECTION_FINALIZER = "scheduling.k8s.io/podgroup-protection"

#: ``listType=map`` keyed by name, strategic merge with ``merge,retainKeys`` (as pod claims).
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
    """The smallest number of pods that must be schedulable together."""


class PodGroupPolicy(K8sModel):
    """How the pods of a group are scheduled: exactly one of basic or gang."""

    basic: BasicSchedulingPolicy | None = None
    """Schedule pods independently."""
    gang: GangSchedulingPolicy | None = None
    """Schedule at least minCount pods together or none."""


class PodGroupResourceClaim(K8sModel):
    """A ResourceClaim shared by all pods of a PodGroup: an existing claim or a template."""

    name: str
    """The name pods use to refer to the claim (DNS label), unique in the group."""
    resource_claim_name: str | None = None
    """An existing ResourceClaim in the group's namespace, reserved for the group."""
    resource_claim_template_name: str | None = None
    """A ResourceClaimTemplate from which one claim is generated for the group."""


class PodGroupTemplate(K8sModel):
    """A template from which PodGroups of a Workload are created."""

    name: str
    """The template name (DNS label), unique in the Workload."""
    policy: PodGroupPolicy
    """The scheduling policy of groups created from the template."""
    resource_claims: Annotated[list[PodGroupResourceClaim] | None, _CLAIM_LIST] = None
    """Claims shared by each group's pods; copied into each PodGroup; immutable."""


class WorkloadSpec(K8sModel):
    """The pod group templates of a workload."""

    controller_ref: TypedLocalObjectReference | None = None
    """The object (e.g. a Job) that manages this workload; immutable once set."""
    pod_group_templates: Annotated[list[PodGroupTemplate] | None, map_list("name", patch=False)] = (
        None
    )
    """The templates (1 to 8, unique names); immutable."""


class Workload(K8sModel):
    """Describes how the pods of an application are grouped for scheduling."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: WorkloadSpec
    """The pod group templates."""


class WorkloadReference(K8sModel):
    """The Workload a PodGroup belongs to."""

    name: str
    """The Workload's name, in the PodGroup's namespace."""


class PodGroupTemplateReference(K8sModel):
    """The template of the Workload a PodGroup was created from."""

    name: str
    """The name of the template in the Workload's podGroupTemplates."""


class PodGroupSpec(K8sModel):
    """Where a PodGroup comes from and which claims its pods share."""

    workload_ref: WorkloadReference | None = None
    """The Workload this group belongs to; immutable."""
    pod_group_template_ref: PodGroupTemplateReference | None = None
    """The template this group was created from; immutable."""
    policy: PodGroupPolicy | None = None
    """The scheduling policy, copied from the template; immutable."""
    resource_claims: Annotated[list[PodGroupResourceClaim] | None, _CLAIM_LIST] = None
    """Claims shared by the group's pods, copied from the template; immutable."""


class PodGroupResourceClaimStatus(K8sModel):
    """The claim generated for one of the group's template claims."""

    name: str
    """The name of the entry in spec.resourceClaims."""
    resource_claim_name: str | None = None
    """The generated ResourceClaim; unset when none is needed."""


class PodGroupStatus(K8sModel):
    """Observed state of a PodGroup."""

    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """Conditions such as PodGroupScheduled."""
    resource_claim_statuses: Annotated[list[PodGroupResourceClaimStatus] | None, _CLAIM_LIST] = None
    """The claims generated from templates for this group."""


class PodGroup(K8sModel):
    """One group of pods scheduled and given devices together."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PodGroupSpec
    """The group's workload, template and claims."""
    status: PodGroupStatus | None = None
    """Conditions and generated claims."""
