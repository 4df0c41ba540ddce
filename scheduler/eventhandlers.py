"""Informer events into the scheduler: the cache, the queue, and cluster events for the hints.

Like kube-scheduler's ``eventhandlers.go``: a pod bound to a node goes to the cache (confirming
an assumed pod); an unbound pod this scheduler is responsible for goes to the queue; every change
the plugins may care about (nodes, other pods, claims, slices, classes, PodGroups, taint rules)
becomes a :class:`ClusterEvent` the queue replays through the rejecting plugins' queueing hints.
Node updates are classified by what changed (labels, taints, allocatable, …) so that a
heartbeat does not wake pods waiting for a label; so are updates of bound pods (a relabelled pod
may now match another's affinity or topology spread). A pod becoming bound is an AssignedPod
add, whoever bound it, as upstream's handlers see it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakeapi.client import (
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    NODES,
    POD_GROUPS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Informer,
    Resource,
)
from fakeapi.features import enabled
from fakeapi.objects import Obj, meta
from fakeapi.scheduler.cache import Cache
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    EventResource,
    cluster_event,
    node_update_actions,
    pod_update_actions,
)
from fakeapi.scheduler.framework.runtime import Framework
from fakeapi.scheduler.queue import SchedulingQueue

__all__ = ["EventHandlers", "responsible_for"]

# the events of every pod and node, made once (the queue looks each up several times)
_ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
_ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
_UNSCHEDULED_POD_ADD = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)
_NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
_NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)


def responsible_for(scheduler_name: str, pod: Obj) -> bool:
    """An unbound, live pod whose ``spec.schedulerName`` names this scheduler."""
    spec = pod.get("spec") or {}
    return (
        (spec.get("schedulerName") or "default-scheduler") == scheduler_name
        and not spec.get("nodeName")
        and not meta(pod).get("deletionTimestamp")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    )


class EventHandlers:
    def __init__(
        self, *, cache: Cache, queue: SchedulingQueue, framework: Framework, scheduler_name: str
    ) -> None:
        self.cache = cache
        self.queue = queue
        self.framework = framework
        self.scheduler_name = scheduler_name

    def register(
        self,
        *,
        pods: Informer,
        informer: Callable[[Resource], Informer],
        feature_gates: Mapping[str, bool],
    ) -> None:
        pods.add_handler(
            on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._pod_deleted
        )
        informer(NODES).add_handler(
            on_add=self._node_added, on_update=self._node_updated, on_delete=self._node_deleted
        )
        for resource, kind in (
            (RESOURCE_CLAIMS, EventResource.RESOURCE_CLAIM),
            (RESOURCE_SLICES, EventResource.RESOURCE_SLICE),
            (DEVICE_CLASSES, EventResource.DEVICE_CLASS),
            (POD_GROUPS, EventResource.POD_GROUP),
        ):
            self._forward(informer(resource), kind)
        if enabled(feature_gates, "DRADeviceTaintRules"):
            self._forward(informer(DEVICE_TAINT_RULES), EventResource.DEVICE_TAINT_RULE)

    def _responsible(self, pod: Obj) -> bool:
        return responsible_for(self.scheduler_name, pod)

    def _forward(self, informer: Informer, kind: EventResource) -> None:
        on_event = self.queue.on_event
        add = ClusterEvent(kind, ActionType.ADD)
        update = ClusterEvent(kind, ActionType.UPDATE)
        delete = ClusterEvent(kind, ActionType.DELETE)
        informer.add_handler(
            on_add=lambda obj: on_event(add, None, obj),
            on_update=lambda old, new: on_event(update, old, new),
            on_delete=lambda obj: on_event(delete, obj, None),
        )

    def _pod_added(self, pod: Obj) -> None:
        if (pod.get("spec") or {}).get("nodeName"):
            self.cache.add_pod(pod)
            self.queue.on_event(_ASSIGNED_POD_ADD, None, pod)
        elif self._responsible(pod):
            self.framework.nominator.observe(pod)
            self.queue.add(pod)
            self.queue.on_event(_UNSCHEDULED_POD_ADD, None, pod)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        if self.framework.nominator or (new.get("status") or {}).get("nominatedNodeName"):
            self.framework.nominator.observe(new)
        if (new.get("spec") or {}).get("nodeName"):
            uid = meta(new).get("uid", "")
            was_bound = bool((old.get("spec") or {}).get("nodeName"))
            if not was_bound:
                self.queue.delete(new)
            if (new.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                self.cache.remove_pod(new)
                self.queue.on_event(_ASSIGNED_POD_DELETE, old, None)
                return
            if not self.cache.is_assumed_or_bound(uid) or self.cache.is_assumed(uid):
                self.cache.add_pod(new)
            elif (old.get("spec") or {}) != (new.get("spec") or {}) or _placement_meta(
                old
            ) != _placement_meta(new):
                self.cache.update_pod(old, new)
            if not was_bound:
                self.queue.on_event(_ASSIGNED_POD_ADD, None, new)
            else:
                actions = pod_update_actions(old, new)
                self.queue.on_event(
                    cluster_event(EventResource.ASSIGNED_POD, actions, "AssignedPodUpdate"),
                    old,
                    new,
                )
            return
        if self.cache.is_assumed(meta(new).get("uid", "")):
            return
        if self._responsible(new):
            self.queue.update(old, new)
        else:
            self.queue.delete(new)

    def _pod_deleted(self, pod: Obj) -> None:
        uid = meta(pod).get("uid", "")
        self.framework.nominator.forget(uid)
        waiting = self.framework.waiting.get(uid)
        if waiting is not None:
            waiting.reject("", "pod was deleted")
        if (pod.get("spec") or {}).get("nodeName") or self.cache.is_assumed_or_bound(uid):
            if not self.cache.is_assumed(uid):
                self.cache.remove_pod(pod)
            self.queue.on_event(_ASSIGNED_POD_DELETE, pod, None)
        self.queue.delete(pod)

    def _node_added(self, node: Obj) -> None:
        self.cache.add_node(node)
        self.queue.on_event(_NODE_ADD, None, node)

    def _node_updated(self, old: Obj, new: Obj) -> None:
        self.cache.update_node(new)
        actions = node_update_actions(old, new)
        if actions:
            self.queue.on_event(cluster_event(EventResource.NODE, actions), old, new)

    def _node_deleted(self, node: Obj) -> None:
        self.cache.remove_node(node)
        self.queue.on_event(_NODE_DELETE, node, None)


def _placement_meta(pod: Obj) -> tuple[Any, Any]:
    """What of a bound pod's metadata plugins read from the cache: its labels (affinity, topology
    spread) and whether it is terminating (topology spread skips such pods)."""
    metadata = meta(pod)
    return metadata.get("labels"), metadata.get("deletionTimestamp")
