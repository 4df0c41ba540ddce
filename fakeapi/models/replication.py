"""core/v1 ReplicationController: the ReplicaSet's predecessor, with a map selector.

Clients' e2e suites and ``kubectl cluster-info dump`` still use it; the replication controller
(the ReplicaSet controller's logic over this kind, as upstream) keeps its pods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from fakeapi.models.base import Int32, K8sModel, Time, atomic_map, map_list
from fakeapi.models.meta import ObjectMeta
from fakeapi.models.pod_template import PodTemplateSpec

__all__ = [
    "ReplicationController",
    "ReplicationControllerCondition",
    "ReplicationControllerSpec",
    "ReplicationControllerStatus",
]


class ReplicationControllerSpec(K8sModel):
    """The desired state of a replication controller."""

    replicas: Int32 | None = None
    """Number of desired pods. Default 1."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready without crashing to count as available. Default 0."""
    selector: Annotated[dict[str, str] | None, atomic_map()] = None
    """Labels the pods must have; the template's labels by default."""
    template: PodTemplateSpec | None = None
    """The pods to create when too few match the selector."""


class ReplicationControllerCondition(K8sModel):
    """One aspect of a replication controller's state."""

    type: str
    """Type of the condition, e.g. ReplicaFailure."""
    status: str
    """Status of the condition: True, False or Unknown."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """The reason for the condition's last transition."""
    message: str | None = None
    """A human readable message about the transition."""


class ReplicationControllerStatus(K8sModel):
    """The most recently observed state of a replication controller."""

    #: required in upstream's OpenAPI; Go decodes an absent count as 0
    ZERO_WHEN_MISSING: ClassVar[Mapping[str, Any]] = {"replicas": 0}

    replicas: Int32
    """The most recently observed number of pods."""
    fully_labeled_replicas: Int32 | None = None
    """Pods whose labels match the template's labels."""
    ready_replicas: Int32 | None = None
    """Pods with a Ready condition."""
    available_replicas: Int32 | None = None
    """Pods ready for at least minReadySeconds."""
    observed_generation: int | None = None
    """The generation of the most recently observed replication controller."""
    conditions: Annotated[list[ReplicationControllerCondition] | None, map_list("type")] = None
    """Latest observations of the replication controller's state."""


class ReplicationController(K8sModel):
    """Keeps a number of pods matching a label map running."""

    api_version: str | None = None
    """The versioned schema of this object, v1."""
    kind: str | None = None
    """ReplicationController."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ReplicationControllerSpec | None = None
    """The desired behaviour of the replication controller."""
    status: ReplicationControllerStatus | None = None
    """The most recently observed status of the replication controller."""
