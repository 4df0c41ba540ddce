"""scheduling.k8s.io/v1alpha2 Workload and PodGroup, as Kubernetes 1.36 served them.

Served under ``--emulated-version 1.36`` for clients written against that release (the
official Python client 36.x reaches Workload and PodGroup through ``SchedulingV1alpha2Api``).
A PodGroup names its template through ``podGroupTemplateRef.workload``; topology constraints are
``topologyConstraints[].topologyKey``. Converted to the seed's v1alpha1 storage version by
:mod:`fakeapi.registry.conversion.scheduling`.
"""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import K8sModel, atomic_list, map_list
from fakeapi.models.meta import Condition, ObjectMeta
from fakeapi.models.scheduling_upstream import PodGroupSchedulingPolicy, TypedLocalObjectReference

__all__ = [
    "PodGroup",
    "PodGroupSchedulingConstraints",
    "PodGroupSpec",
    "PodGroupStatus",
    "PodGroupTemplate",
    "PodGroupTemplateReference",
    "TopologyConstraint",
    "Workload",
    "WorkloadPodGroupTemplateReference",
    "WorkloadSpec",
]


class TopologyConstraint(K8sModel):
    """Pods of the group are placed in one domain of a node label."""

    topology_key: str
    """The node label whose value is the topology domain."""


class PodGroupSchedulingConstraints(K8sModel):
    """Placement constraints of a group."""

    topology_constraints: Annotated[list[TopologyConstraint] | None, atomic_list()] = None
    """At most one topology constraint."""


class PodGroupTemplate(K8sModel):
    """A template from which PodGroups of a Workload are created."""

    name: str
    """The template name (a DNS label), unique in the Workload."""
    scheduling_policy: PodGroupSchedulingPolicy
    """The scheduling policy of groups created from the template."""
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    """Placement constraints (TopologyAwareWorkloadScheduling)."""


class WorkloadSpec(K8sModel):
    """The pod group templates of a workload."""

    controller_ref: TypedLocalObjectReference | None = None
    """The object (e.g. a Job) that manages this workload; immutable."""
    pod_group_templates: Annotated[list[PodGroupTemplate] | None, map_list("name", patch=False)] = (
        None
    )
    """The templates (1 to 8); immutable."""


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


class WorkloadPodGroupTemplateReference(K8sModel):
    """A template of a Workload."""

    workload_name: str
    """The Workload's name."""
    pod_group_template_name: str
    """The template's name in the Workload."""


class PodGroupTemplateReference(K8sModel):
    """The template a group was created from: exactly one reference."""

    workload: WorkloadPodGroupTemplateReference | None = None
    """A template of a Workload."""


class PodGroupSpec(K8sModel):
    """Where a PodGroup comes from and how it is scheduled."""

    pod_group_template_ref: PodGroupTemplateReference | None = None
    """The template the group was created from; immutable."""
    scheduling_policy: PodGroupSchedulingPolicy
    """The scheduling policy, copied from the template; immutable."""
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    """Placement constraints; immutable."""


class PodGroupStatus(K8sModel):
    """Observed state of a PodGroup."""

    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """PodGroupScheduled and its reasons."""


class PodGroup(K8sModel):
    """A runtime instance of pods scheduled together."""

    api_version: str | None = None
    """The versioned schema of this representation."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PodGroupSpec
    """The group's template and policy."""
    status: PodGroupStatus | None = None
    """Conditions."""
