"""What plugins see: a pod with its parsed requests, a node with what is already placed on it.

kube-scheduler parses a pod's resource requests once (``PodInfo``) and keeps per-node sums
(``NodeInfo``) up to date as pods are assumed, bound and removed, so that a Filter call is
arithmetic, never a walk over pods. The same split here: :class:`PodInfo` is built once per pod
version, :class:`NodeInfo` is updated incrementally by the scheduler cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.resource_requests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    Resource,
    pod_requests,
)

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "NodeInfo",
    "NodeScore",
    "PodInfo",
    "QueuedPodInfo",
    "Resource",
    "klog_name",
    "object_meta",
    "pod_key",
]

Obj = Mapping[str, Any]


def object_meta(obj: Obj) -> Mapping[str, Any]:
    """An object's metadata (empty when it has none)."""
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    return meta


def klog_name(obj: Obj) -> str:
    """``namespace/name``: how upstream's logs and messages name an object (``klog.KObj``)."""
    meta = object_meta(obj)
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


#: a pod's key in the scheduler's caches and queue
pod_key = klog_name


class PodInfo:
    """A pod plus what the scheduler derives from it once per version."""

    __slots__ = ("key", "name", "namespace", "non_zero", "pod", "requests", "uid")

    def __init__(self, pod: Obj) -> None:
        meta = pod.get("metadata") or {}
        self.pod = pod
        self.name: str = meta.get("name", "")
        self.namespace: str = meta.get("namespace", "")
        self.uid: str = meta.get("uid", "")
        self.key = f"{self.namespace}/{self.name}"
        self.requests, self.non_zero = pod_requests(pod.get("spec") or {})

    @property
    def spec(self) -> Obj:
        spec: Obj = self.pod.get("spec") or {}
        return spec


@dataclass(slots=True)
class QueuedPodInfo:
    """A pod in the scheduling queue with its attempt history (upstream ``QueuedPodInfo``)."""

    info: PodInfo
    #: when the pod entered the queue (or last moved into activeQ), for QueueSort ties
    timestamp: float
    #: when it first entered activeQ (past PreEnqueue: time spent gated does not count); the e2e
    #: scheduling duration is measured from here (upstream's InitialAttemptTimestamp)
    initial_timestamp: float | None = None
    attempts: int = 0
    #: plugins that rejected the last attempt; only their hints can move the pod
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    #: PreEnqueue rejected it (upstream "gated"); it waits until an event lets it in
    gated: bool = False
    gating_plugin: str = ""
    #: when the last failed attempt ended; the backoff is measured from here
    last_failure: float = 0.0
    #: a scheduling error (not a rejection): always retried after backoff
    failed_with_error: bool = False

    @property
    def pod(self) -> Obj:
        return self.info.pod

    @property
    def uid(self) -> str:
        return self.info.uid


class NodeInfo:
    """A node and the sums of what the pods on it (bound or assumed) request."""

    __slots__ = (
        "allocatable",
        "generation",
        "labels",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "prefer_no_schedule_taints",
        "requested",
        "taints",
        "unschedulable",
    )

    def __init__(self, node: Obj) -> None:
        self.pods: dict[str, PodInfo] = {}
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.generation = 0
        self.set_node(node)

    def set_node(self, node: Obj) -> None:
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        self.node = node
        self.name: str = meta.get("name", "")
        self.labels: Mapping[str, str] = meta.get("labels") or {}
        self.taints: list[Obj] = list(spec.get("taints") or ())
        self.prefer_no_schedule_taints = [
            t for t in self.taints if t.get("effect") == "PreferNoSchedule"
        ]
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = Resource.from_list((node.get("status") or {}).get("allocatable"))
        self.generation += 1

    def add_pod(self, info: PodInfo) -> None:
        old = self.pods.get(info.uid)
        if old is not None:
            self.remove_pod(old.uid)
        self.pods[info.uid] = info
        self.requested.add(info.requests)
        self.non_zero_requested.add(info.non_zero)
        self.generation += 1

    def clone(self) -> NodeInfo:
        """A copy with the same pods, to add and remove pods on for a what-if (preemption, the
        pods nominated to the node) without touching the cache's."""
        copy = NodeInfo(self.node)
        for info in self.pods.values():
            copy.add_pod(info)
        return copy

    def remove_pod(self, uid: str) -> bool:
        info = self.pods.pop(uid, None)
        if info is None:
            return False
        self.requested.sub(info.requests)
        self.non_zero_requested.sub(info.non_zero)
        self.generation += 1
        return True


@dataclass(slots=True)
class NodeScore:
    name: str
    score: int
