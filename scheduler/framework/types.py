"""What plugins see: a pod with its parsed requests, a node with what is already placed on it.

kube-scheduler parses a pod's resource requests once (``PodInfo``) and keeps per-node sums
(``NodeInfo``) up to date as pods are assumed, bound and removed, so that a Filter call is
arithmetic, never a walk over pods. The same split here: :class:`PodInfo` is built once per pod
version, :class:`NodeInfo` is updated incrementally by the scheduler cache.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.quantity import QuantityError, parse_quantity

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

#: what a container without requests counts as for scoring (upstream schedutil defaults)
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


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


def _milli(text: Any) -> int:
    return _milli_of(str(text))


def _value(text: Any) -> int:
    return _value_of(str(text))


# Pods and nodes repeat a handful of quantities ("100m", "64Mi", "110"), and every pod is parsed
# several times on its way (queue, scheduling cycle, cache): each text is parsed once.
@functools.lru_cache(maxsize=4096)
def _milli_of(text: str) -> int:
    try:
        return math.ceil(parse_quantity(text).value * 1000)
    except QuantityError:
        return 0


@functools.lru_cache(maxsize=4096)
def _value_of(text: str) -> int:
    try:
        return parse_quantity(text).ceil_int()
    except QuantityError:
        return 0


#: resources :class:`Resource` keeps in fields of their own; any other name is a scalar resource
_NAMED = frozenset(("cpu", "memory", "pods", "ephemeral-storage", "storage"))


@dataclass(slots=True)
class Resource:
    milli_cpu: int = 0
    memory: int = 0
    pods: int = 0
    #: extended resources (``example.com/gpu``), hugepages...: upstream's ``ScalarResources``
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resources: Obj | None) -> Resource:
        resources = resources or {}
        out = cls(
            milli_cpu=_milli(resources["cpu"]) if "cpu" in resources else 0,
            memory=_value(resources["memory"]) if "memory" in resources else 0,
            pods=_value(resources["pods"]) if "pods" in resources else 0,
        )
        if len(resources) > ("cpu" in resources) + ("memory" in resources) + (
            "pods" in resources
        ):
            out.scalar = {
                name: _value(value) for name, value in resources.items() if name not in _NAMED
            }
        return out

    def add(self, other: Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.pods += other.pods
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + value

    def sub(self, other: Resource) -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.pods -= other.pods
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) - value


def _pod_requests(spec: Obj) -> tuple[Resource, Resource]:
    """(requests, non-zero requests): containers summed, init containers as a max, overhead.
    Scalar resources (extended resources) are in the requests only, as upstream's."""
    total = Resource(pods=1)
    non_zero = Resource(pods=1)
    for container in spec.get("containers") or ():
        requests = (container.get("resources") or {}).get("requests") or {}
        r = Resource.from_list(requests)
        total.milli_cpu += r.milli_cpu
        total.memory += r.memory
        non_zero.milli_cpu += r.milli_cpu if "cpu" in requests else DEFAULT_MILLI_CPU_REQUEST
        non_zero.memory += r.memory if "memory" in requests else DEFAULT_MEMORY_REQUEST
        for name, value in r.scalar.items():
            total.scalar[name] = total.scalar.get(name, 0) + value
    for container in spec.get("initContainers") or ():
        r = Resource.from_list((container.get("resources") or {}).get("requests"))
        total.milli_cpu = max(total.milli_cpu, r.milli_cpu)
        total.memory = max(total.memory, r.memory)
        non_zero.milli_cpu = max(non_zero.milli_cpu, r.milli_cpu)
        non_zero.memory = max(non_zero.memory, r.memory)
        for name, value in r.scalar.items():
            total.scalar[name] = max(total.scalar.get(name, 0), value)
    overhead = spec.get("overhead")
    if overhead:
        o = Resource.from_list(overhead)
        total.milli_cpu += o.milli_cpu
        total.memory += o.memory
        non_zero.milli_cpu += o.milli_cpu
        non_zero.memory += o.memory
        for name, value in o.scalar.items():
            total.scalar[name] = total.scalar.get(name, 0) + value
    return total, non_zero


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
        self.requests, self.non_zero = _pod_requests(pod.get("spec") or {})

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
    #: when it was first added; the e2e scheduling duration is measured from here
    initial_timestamp: float
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
