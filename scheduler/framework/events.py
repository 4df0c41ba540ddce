"""Cluster events and queueing hints: how a rejected pod finds its way back to the active queue.

A pod that a plugin rejected waits in the unschedulable pool. It is not retried on a timer: each
plugin declares (``events_to_register``) which cluster events could make a pod it rejected
schedulable, optionally with a *queueing hint* — a function of the pod and the changed object that
answers ``QUEUE`` (worth another attempt) or ``QUEUE_SKIP`` (this change does not help). When an
informer reports a change, the queue asks only the hints of the plugins that rejected each waiting
pod, as kube-scheduler does with SchedulerQueueingHints on. A registration without a hint always
answers ``QUEUE``.

Action types follow upstream's ``fwk.ActionType`` bits; node updates are split by what changed
(labels, taints, allocatable, …) and pod updates likewise, so that, e.g., a node's heartbeat does
not wake every pod waiting for a label.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, IntFlag, StrEnum

from fakeapi.objects import Obj

__all__ = [
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EventIndex",
    "EventResource",
    "HintFn",
    "QueueingHint",
    "UNSCHEDULABLE_TIMEOUT",
    "cluster_event",
    "node_update_actions",
    "pod_update_actions",
]



class ActionType(IntFlag):
    ADD = 1
    DELETE = 2
    UPDATE_NODE_ALLOCATABLE = 4
    UPDATE_NODE_LABEL = 8
    UPDATE_NODE_TAINT = 16
    UPDATE_NODE_CONDITION = 32
    UPDATE_NODE_ANNOTATION = 64
    UPDATE_POD_LABEL = 128
    UPDATE_POD_SCALE_DOWN = 256
    UPDATE_POD_TOLERATIONS = 512
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1024
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 2048
    UPDATE_OTHER = 4096
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE
        | UPDATE_NODE_LABEL
        | UPDATE_NODE_TAINT
        | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION
        | UPDATE_POD_LABEL
        | UPDATE_POD_SCALE_DOWN
        | UPDATE_POD_TOLERATIONS
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        | UPDATE_POD_GENERATED_RESOURCE_CLAIM
        | UPDATE_OTHER
    )
    ALL = ADD | DELETE | UPDATE


class EventResource(StrEnum):
    NODE = "Node"
    POD = "Pod"
    #: a pod bound to a node (deleting one frees resources)
    ASSIGNED_POD = "AssignedPod"
    #: a pod waiting to be scheduled (a new gang member, its own claim statuses)
    UNSCHEDULED_POD = "UnscheduledPod"
    RESOURCE_CLAIM = "ResourceClaim"
    RESOURCE_SLICE = "ResourceSlice"
    DEVICE_CLASS = "DeviceClass"
    DEVICE_TAINT_RULE = "DeviceTaintRule"
    POD_GROUP = "PodGroup"
    WILDCARD = "*"
    #: the pseudo-event of upstream's periodic flush of long-waiting pods
    UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"


class QueueingHint(Enum):
    QUEUE_SKIP = 0
    QUEUE = 1


#: hint(pod, old, new) — old is None for adds, new is None for deletes
HintFn = Callable[[Obj, Obj | None, Obj | None], QueueingHint]


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    resource: EventResource
    action: ActionType
    label: str = ""
    #: worked out once: events key the queue's lookups, several per informer event, and the
    #: enums' own hashes are Python calls
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((str(self.resource), int(self.action), self.label)))

    def __hash__(self) -> int:
        return self._hash

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether this registration covers ``incoming`` (same resource or wildcard, any shared
        action bit); a pod event is also a match for AssignedPod/UnscheduledPod registrations."""
        if self.resource is EventResource.WILDCARD:
            return bool(self.action & incoming.action)
        if self.resource is not incoming.resource and not (
            self.resource is EventResource.POD
            and incoming.resource in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD)
        ):
            return False
        return bool(self.action & incoming.action)

    def __str__(self) -> str:
        return self.label or f"{self.resource.value}/{self.action!r}"


#: the keys an object is filed under in an :class:`EventIndex`; None means "any key"
KeysFn = Callable[[Obj], frozenset[str] | None]
#: the keys a change (old, new) concerns; None means "it may concern any pod"
EventKeysFn = Callable[[Obj | None, Obj | None], frozenset[str] | None]


@dataclass(frozen=True, slots=True)
class EventIndex:
    """Which waiting pods a hint can possibly answer QUEUE for, by key, so that the queue asks it
    only about those.

    Upstream asks each hint about every waiting pod its plugin rejected; in Go that is cheap, here
    a busy queue (thousands of pods waiting for their claims, an event per claim write) would spend
    its time there. A registration with an index promises that its hint answers QUEUE_SKIP
    whenever the pod's keys and the change's keys are both known and share none. ``name``
    identifies the index: pods are filed once per name, so indexes sharing a name must share
    ``pod_keys`` (their ``event_keys`` may differ, one per kind of changed object).
    """

    name: str
    pod_keys: KeysFn
    event_keys: EventKeysFn


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    event: ClusterEvent
    hint: HintFn | None = None
    index: EventIndex | None = None


UNSCHEDULABLE_TIMEOUT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout")


@functools.cache
def cluster_event(resource: EventResource, action: ActionType, label: str = "") -> ClusterEvent:
    """The one :class:`ClusterEvent` of these values (kinds of update arrive with every pod: made
    once each, so the queue's lookups by event meet the very same key)."""
    return ClusterEvent(resource, action, label)


def _parts(obj: Obj) -> tuple[Obj, Obj, Obj]:
    """The object's metadata, spec and status (empty when missing)."""
    return obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}


# Both classifiers run for every update of a node or pod: they read the objects' sections once
# and or the bits as plain ints, making one ActionType at the end (each enum operation, like
# each ``isinstance`` check against an ABC, is a Python call).


def node_update_actions(old: Obj, new: Obj) -> ActionType:
    """Which parts of a node changed (upstream ``NodeSchedulingPropertiesChange``)."""
    (old_meta, old_spec, old_status), (new_meta, new_spec, new_status) = _parts(old), _parts(new)
    bits = 0
    if old_meta.get("labels") != new_meta.get("labels"):
        bits |= ActionType.UPDATE_NODE_LABEL.value
    if old_spec.get("taints") != new_spec.get("taints") or old_spec.get(
        "unschedulable"
    ) != new_spec.get("unschedulable"):
        bits |= ActionType.UPDATE_NODE_TAINT.value
    if old_status.get("allocatable") != new_status.get("allocatable"):
        bits |= ActionType.UPDATE_NODE_ALLOCATABLE.value
    if old_status.get("conditions") != new_status.get("conditions"):
        bits |= ActionType.UPDATE_NODE_CONDITION.value
    if old_meta.get("annotations") != new_meta.get("annotations"):
        bits |= ActionType.UPDATE_NODE_ANNOTATION.value
    return ActionType(bits)


def pod_update_actions(old: Obj, new: Obj) -> ActionType:
    """Which scheduling-relevant parts of a pod changed (``PodSchedulingPropertiesChange``)."""
    (old_meta, old_spec, old_status), (new_meta, new_spec, new_status) = _parts(old), _parts(new)
    bits = 0
    if old_meta.get("labels") != new_meta.get("labels"):
        bits |= ActionType.UPDATE_POD_LABEL.value
    if old_spec.get("tolerations") != new_spec.get("tolerations"):
        bits |= ActionType.UPDATE_POD_TOLERATIONS.value
    if old_spec.get("schedulingGates") and not new_spec.get("schedulingGates"):
        bits |= ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED.value
    if old_status.get("resourceClaimStatuses") != new_status.get("resourceClaimStatuses"):
        bits |= ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM.value
    if old_spec.get("containers") != new_spec.get("containers"):
        bits |= ActionType.UPDATE_POD_SCALE_DOWN.value
    return ActionType(bits or ActionType.UPDATE_OTHER.value)
