"""apps/v1: Deployment, ReplicaSet, StatefulSet, DaemonSet and ControllerRevision.

Fields follow upstream ``apps/v1`` one for one, list semantics from its struct tags (conditions
are map lists keyed by ``type``; a Deployment's ``strategy`` merges with ``retainKeys``). The
controllers that make these kinds move live in ``fakeapi.controllers``; the server defaults and
validates them (``fakeapi.registry.kinds.apps``, ``fakeapi.validation.apps``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from fakeapi.models.base import (
    Int32,
    IntOrString,
    K8sModel,
    RawJSON,
    Time,
    atomic_list,
    map_list,
)
from fakeapi.models.meta import LabelSelector, ObjectMeta
from fakeapi.models.pod_template import PodTemplateSpec
from fakeapi.models.pod_volume import PersistentVolumeClaimSpec

__all__ = [
    "ControllerRevision",
    "DaemonSet",
    "DaemonSetCondition",
    "DaemonSetSpec",
    "DaemonSetStatus",
    "DaemonSetUpdateStrategy",
    "Deployment",
    "DeploymentCondition",
    "DeploymentSpec",
    "DeploymentStatus",
    "DeploymentStrategy",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimStatus",
    "ReplicaSet",
    "ReplicaSetCondition",
    "ReplicaSetSpec",
    "ReplicaSetStatus",
    "RollingUpdateDaemonSet",
    "RollingUpdateDeployment",
    "RollingUpdateStatefulSetStrategy",
    "StatefulSet",
    "StatefulSetCondition",
    "StatefulSetOrdinals",
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    "StatefulSetSpec",
    "StatefulSetStatus",
    "StatefulSetUpdateStrategy",
]


class _WorkloadCondition(K8sModel):
    """The condition shape ReplicaSets, StatefulSets and DaemonSets share."""

    type: str
    """Type of the condition."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """The reason for the condition's last transition."""
    message: str | None = None
    """A human readable message about the transition."""


# --- Deployment ----------------------------------------------------------------------------------


class RollingUpdateDeployment(K8sModel):
    """How far a rolling update may go below and above the desired count."""

    max_unavailable: IntOrString | None = None
    """Pods that may be unavailable during the update: a number or a percentage. Default 25%."""
    max_surge: IntOrString | None = None
    """Pods that may be created above the desired count: a number or a percentage. Default 25%."""


class DeploymentStrategy(K8sModel):
    """How old pods are replaced by new ones."""

    type: str | None = None
    """Recreate or RollingUpdate. Default RollingUpdate."""
    rolling_update: RollingUpdateDeployment | None = None
    """Parameters of a RollingUpdate; only with type RollingUpdate."""


class DeploymentSpec(K8sModel):
    """The desired state of a Deployment."""

    replicas: Int32 | None = None
    """Number of desired pods. Default 1."""
    selector: LabelSelector
    """Label selector for the pods; must match the template's labels. Immutable."""
    template: PodTemplateSpec
    """The pods to create; its restartPolicy must be Always."""
    strategy: DeploymentStrategy | None = None
    """How existing pods are replaced by new ones."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready without crashing to count as available. Default 0."""
    revision_history_limit: Int32 | None = None
    """Old ReplicaSets kept to allow rollback. Default 10."""
    paused: bool | None = None
    """The deployment is paused: template changes do not roll out."""
    progress_deadline_seconds: Int32 | None = None
    """Seconds the deployment may make no progress before it is reported failed. Default 600."""


class DeploymentCondition(K8sModel):
    """One aspect of a Deployment's state."""

    type: str
    """Available, Progressing or ReplicaFailure."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_update_time: Time | None = None
    """The last time this condition was updated."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """The reason for the condition's last transition."""
    message: str | None = None
    """A human readable message about the transition."""


class DeploymentStatus(K8sModel):
    """The most recently observed state of a Deployment."""

    observed_generation: int | None = None
    """The generation observed by the deployment controller."""
    replicas: Int32 | None = None
    """Non-terminating pods targeted by the deployment (their labels match the selector)."""
    updated_replicas: Int32 | None = None
    """Non-terminating pods that have the desired template spec."""
    ready_replicas: Int32 | None = None
    """Non-terminating pods with a Ready condition."""
    available_replicas: Int32 | None = None
    """Pods ready for at least minReadySeconds."""
    unavailable_replicas: Int32 | None = None
    """Pods still needed for the deployment to have 100% available capacity."""
    terminating_replicas: Int32 | None = None
    """Pods that have a deletionTimestamp and are not yet terminal."""
    conditions: Annotated[list[DeploymentCondition] | None, map_list("type")] = None
    """Latest observations of the deployment's state."""
    collision_count: Int32 | None = None
    """Hash collisions seen for the deployment; part of the name of its newest ReplicaSet."""


class Deployment(K8sModel):
    """Declarative updates for pods and ReplicaSets."""

    api_version: str | None = None
    """The versioned schema of this object, apps/v1."""
    kind: str | None = None
    """Deployment."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: DeploymentSpec
    """The desired behaviour of the deployment."""
    status: DeploymentStatus | None = None
    """The most recently observed status of the deployment."""


# --- ReplicaSet ----------------------------------------------------------------------------------


class ReplicaSetSpec(K8sModel):
    """The desired state of a ReplicaSet."""

    replicas: Int32 | None = None
    """Number of desired pods. Default 1."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready without crashing to count as available. Default 0."""
    selector: LabelSelector
    """Label selector for the pods; must match the template's labels."""
    template: PodTemplateSpec | None = None
    """The pods to create when too few match the selector."""


class ReplicaSetCondition(_WorkloadCondition):
    """One aspect of a ReplicaSet's state (ReplicaFailure)."""


class ReplicaSetStatus(K8sModel):
    """The most recently observed state of a ReplicaSet."""

    #: required in upstream's OpenAPI; Go decodes an absent count as 0
    ZERO_WHEN_MISSING: ClassVar[Mapping[str, Any]] = {"replicas": 0}

    replicas: Int32
    """The most recently observed number of non-terminating pods."""
    fully_labeled_replicas: Int32 | None = None
    """Non-terminating pods whose labels match the template's labels."""
    ready_replicas: Int32 | None = None
    """Non-terminating pods with a Ready condition."""
    available_replicas: Int32 | None = None
    """Non-terminating pods ready for at least minReadySeconds."""
    terminating_replicas: Int32 | None = None
    """Pods that have a deletionTimestamp and are not yet terminal."""
    observed_generation: int | None = None
    """The generation of the most recently observed ReplicaSet."""
    conditions: Annotated[list[ReplicaSetCondition] | None, map_list("type")] = None
    """Latest observations of the replica set's state."""


class ReplicaSet(K8sModel):
    """Keeps a number of pods matching a selector running."""

    api_version: str | None = None
    """The versioned schema of this object, apps/v1."""
    kind: str | None = None
    """ReplicaSet."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ReplicaSetSpec
    """The desired behaviour of the replica set."""
    status: ReplicaSetStatus | None = None
    """The most recently observed status of the replica set."""


# --- StatefulSet ---------------------------------------------------------------------------------


class PersistentVolumeClaimStatus(K8sModel):
    """The observed state of a persistent volume claim (as a StatefulSet template carries it)."""

    phase: str | None = None
    """Pending, Bound or Lost."""
    access_modes: Annotated[list[str] | None, atomic_list()] = None
    """Access modes of the bound volume."""
    capacity: dict[str, str | int | float] | None = None
    """Resources of the bound volume."""


class PersistentVolumeClaim(K8sModel):
    """A user's request for storage (the per-pod claims of a StatefulSet)."""

    api_version: str | None = None
    """The versioned schema of this object, v1."""
    kind: str | None = None
    """PersistentVolumeClaim."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PersistentVolumeClaimSpec | None = None
    """The storage the claim asks for."""
    status: PersistentVolumeClaimStatus | None = None
    """The observed state of the claim."""


class RollingUpdateStatefulSetStrategy(K8sModel):
    """Parameters of a StatefulSet's RollingUpdate."""

    partition: Int32 | None = None
    """Pods with an ordinal at or above the partition are updated; below keep their revision."""
    max_unavailable: IntOrString | None = None
    """Pods that may be unavailable during the update (MaxUnavailableStatefulSet)."""


class StatefulSetUpdateStrategy(K8sModel):
    """How a StatefulSet's pods are updated to a new revision."""

    type: str | None = None
    """RollingUpdate or OnDelete. Default RollingUpdate."""
    rolling_update: RollingUpdateStatefulSetStrategy | None = None
    """Parameters of a RollingUpdate."""


class StatefulSetPersistentVolumeClaimRetentionPolicy(K8sModel):
    """What happens to the claims of volumeClaimTemplates when pods go."""

    when_deleted: str | None = None
    """Retain or Delete, when the StatefulSet is deleted. Default Retain."""
    when_scaled: str | None = None
    """Retain or Delete, when the StatefulSet is scaled down. Default Retain."""


class StatefulSetOrdinals(K8sModel):
    """The numbering of a StatefulSet's pods."""

    start: Int32 | None = None
    """The ordinal of the first pod. Default 0."""


class StatefulSetSpec(K8sModel):
    """The desired state of a StatefulSet."""

    replicas: Int32 | None = None
    """Number of desired pods. Default 1."""
    selector: LabelSelector
    """Label selector for the pods; must match the template's labels."""
    template: PodTemplateSpec
    """The pods to create, one per ordinal."""
    volume_claim_templates: Annotated[list[PersistentVolumeClaim] | None, atomic_list()] = None
    """Claims each pod is given a volume from."""
    service_name: str | None = None
    """The governing service, which gives the pods their network identity."""
    pod_management_policy: str | None = None
    """OrderedReady (one at a time, in order) or Parallel. Default OrderedReady."""
    update_strategy: StatefulSetUpdateStrategy | None = None
    """How pods are updated when the template changes."""
    revision_history_limit: Int32 | None = None
    """Revisions kept in the history. Default 10."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready without crashing to count as available. Default 0."""
    persistent_volume_claim_retention_policy: (
        StatefulSetPersistentVolumeClaimRetentionPolicy | None
    ) = None
    """What happens to the claims of volumeClaimTemplates when pods go."""
    ordinals: StatefulSetOrdinals | None = None
    """The numbering of the pods."""


class StatefulSetCondition(_WorkloadCondition):
    """One aspect of a StatefulSet's state."""


class StatefulSetStatus(K8sModel):
    """The most recently observed state of a StatefulSet."""

    #: required in upstream's OpenAPI; Go decodes an absent count as 0
    ZERO_WHEN_MISSING: ClassVar[Mapping[str, Any]] = {"replicas": 0}

    observed_generation: int | None = None
    """The generation observed by the StatefulSet controller."""
    replicas: Int32
    """Pods created by the controller."""
    ready_replicas: Int32 | None = None
    """Pods with a Ready condition."""
    current_replicas: Int32 | None = None
    """Pods at the revision currentRevision."""
    updated_replicas: Int32 | None = None
    """Pods at the revision updateRevision."""
    current_revision: str | None = None
    """The revision of the pods below the partition."""
    update_revision: str | None = None
    """The revision the pods are being updated to."""
    collision_count: Int32 | None = None
    """Hash collisions seen for the StatefulSet's ControllerRevisions."""
    conditions: Annotated[list[StatefulSetCondition] | None, map_list("type")] = None
    """Latest observations of the StatefulSet's state."""
    available_replicas: Int32 | None = None
    """Pods ready for at least minReadySeconds."""


class StatefulSet(K8sModel):
    """Pods with stable identities: ordinal names, started and updated in order."""

    api_version: str | None = None
    """The versioned schema of this object, apps/v1."""
    kind: str | None = None
    """StatefulSet."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: StatefulSetSpec
    """The desired identities of pods in this set."""
    status: StatefulSetStatus | None = None
    """The current status of the pods in this set."""


# --- DaemonSet -----------------------------------------------------------------------------------


class RollingUpdateDaemonSet(K8sModel):
    """Parameters of a DaemonSet's RollingUpdate."""

    max_unavailable: IntOrString | None = None
    """Nodes whose pod may be unavailable during the update. Default 1."""
    max_surge: IntOrString | None = None
    """Nodes that may run an updated pod beside the old one during the update. Default 0."""


class DaemonSetUpdateStrategy(K8sModel):
    """How a DaemonSet's pods are replaced."""

    type: str | None = None
    """RollingUpdate or OnDelete. Default RollingUpdate."""
    rolling_update: RollingUpdateDaemonSet | None = None
    """Parameters of a RollingUpdate."""


class DaemonSetSpec(K8sModel):
    """The desired state of a DaemonSet."""

    selector: LabelSelector
    """Label selector for the pods; must match the template's labels. Immutable."""
    template: PodTemplateSpec
    """The pod each eligible node runs."""
    update_strategy: DaemonSetUpdateStrategy | None = None
    """How pods are replaced when the template changes."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready without crashing to count as available. Default 0."""
    revision_history_limit: Int32 | None = None
    """Old revisions kept to allow rollback. Default 10."""


class DaemonSetCondition(_WorkloadCondition):
    """One aspect of a DaemonSet's state."""


class DaemonSetStatus(K8sModel):
    """The most recently observed state of a DaemonSet."""

    #: required in upstream's OpenAPI; Go decodes an absent count as 0
    ZERO_WHEN_MISSING: ClassVar[Mapping[str, Any]] = {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    }

    current_number_scheduled: Int32
    """Nodes running at least one daemon pod that should."""
    number_misscheduled: Int32
    """Nodes running a daemon pod that should not."""
    desired_number_scheduled: Int32
    """Nodes that should run the daemon pod."""
    number_ready: Int32
    """Nodes that should run the daemon pod and have one Ready."""
    observed_generation: int | None = None
    """The generation observed by the DaemonSet controller."""
    updated_number_scheduled: Int32 | None = None
    """Nodes running the updated daemon pod."""
    number_available: Int32 | None = None
    """Nodes that should run the daemon pod and have one available."""
    number_unavailable: Int32 | None = None
    """Nodes that should run the daemon pod and have none available."""
    collision_count: Int32 | None = None
    """Hash collisions seen for the DaemonSet's ControllerRevisions."""
    conditions: Annotated[list[DaemonSetCondition] | None, map_list("type")] = None
    """Latest observations of the DaemonSet's state."""


class DaemonSet(K8sModel):
    """A pod on every eligible node."""

    api_version: str | None = None
    """The versioned schema of this object, apps/v1."""
    kind: str | None = None
    """DaemonSet."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: DaemonSetSpec
    """The desired behaviour of the daemon set."""
    status: DaemonSetStatus | None = None
    """The most recently observed status of the daemon set."""


# --- ControllerRevision --------------------------------------------------------------------------


class ControllerRevision(K8sModel):
    """An immutable snapshot of a StatefulSet's or DaemonSet's template, for rollbacks."""

    api_version: str | None = None
    """The versioned schema of this object, apps/v1."""
    kind: str | None = None
    """ControllerRevision."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    data: RawJSON
    """The serialized state: a patch that restores the owner's template."""
    revision: int
    """The revision this snapshot is: a counter across the owner's revisions."""
