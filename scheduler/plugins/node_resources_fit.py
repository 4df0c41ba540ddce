"""NodeResourcesFit: requests against the node's allocatable; LeastAllocated score.

Requests are parsed once per pod (``PodInfo``) and summed per node by the cache, so Filter is a
handful of comparisons. Reasons are upstream's: ``Too many pods``, ``Insufficient cpu``,
``Insufficient memory``, ``Insufficient ephemeral-storage``, ``Insufficient example.com/gpu``
(all of them that apply, so the FailedScheduling counts add up the same). An extended resource
the node does not advertise but a DeviceClass maps (DRAExtendedResource) is left to the
DynamicResources plugin, which allocates it from the node's ResourceSlices.
Scoring is ``LeastAllocated`` with cpu and memory weighted 1: the share left free after placing
the pod, using the non-zero requests (100m / 200Mi for containers that request nothing). A node's
score is remembered on its NodeInfo for one pod size (the pod's non-zero cpu and memory) until
the node's next change (a pod placed or removed, new allocatable): a scheduling cycle changes
one node, the next pod of the same size scores the others from memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.client import DEVICE_CLASSES
from fakeapi.features import enabled
from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState, pod_info_of
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
)
from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE, Handle, PreFilterResult
from fakeapi.scheduler.framework.status import Status, unschedulable
from fakeapi.scheduler.framework.types import NodeInfo, NodeTraits, PodInfo
from fakeapi.scheduler.plugins.dynamic_resources.extended import DeviceClassResolver

__all__ = ["NAME", "NodeResourcesFit"]

NAME = "NodeResourcesFit"
_STATE = NAME
#: pod sizes (non-zero cpu and memory) kept as one object each at once (beyond, they start
#: afresh: a node's score for a size made before is then worked out again)
_SIZES_KEPT = 64
#: a score not worked out yet (scores are never negative)
_UNKNOWN = -1


class NodeResourcesFit:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        #: the pod sizes (non-zero cpu and memory) whose scores the nodes remember, one object
        #: each
        self._sizes: dict[tuple[int, int], tuple[int, int]] = {}
        #: the DeviceClasses that map extended resources (None: DRAExtendedResource off)
        self.resolver = (
            DeviceClassResolver(handle.informer(DEVICE_CLASSES))
            if handle is not None
            and enabled(handle.feature_gates, "DynamicResourceAllocation")
            and enabled(handle.feature_gates, "DRAExtendedResource")
            else None
        )

    def events_to_register(self) -> list[ClusterEventWithHint]:
        classes = (
            [ClusterEventWithHint(
                ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE)
            )]
            if self.resolver is not None
            else []
        )
        return [
            *classes,
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
                )
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SCALE_DOWN)
            ),
        ]

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        state.write(_STATE, pod_info_of(state, pod))
        return None, None

    def filter_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        info: PodInfo = state.read(_STATE)
        wanted = info.requests
        cpu, memory = wanted.milli_cpu, wanted.memory
        if wanted.scalar or wanted.ephemeral_storage:
            return [self.filter(state, pod, node) for node in nodes]
        if not cpu and not memory:  # only the pod count to check (most pods of DRA workloads)
            if not NodeTraits.any_has(nodes, "full"):
                return [None] * len(nodes)
            return [self.filter(state, pod, node) if node.full else None for node in nodes]
        return [
            None
            if node.requested.pods + 1 <= node.allocatable.pods
            and (not cpu or node.requested.milli_cpu + cpu <= node.allocatable.milli_cpu)
            and (not memory or node.requested.memory + memory <= node.allocatable.memory)
            else self.filter(state, pod, node)
            for node in nodes
        ]

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        info: PodInfo = state.read(_STATE)
        reasons: list[str] = []
        allocatable, requested, wanted = node.allocatable, node.requested, info.requests
        if requested.pods + 1 > allocatable.pods:
            reasons.append("Too many pods")
        if wanted.milli_cpu and requested.milli_cpu + wanted.milli_cpu > allocatable.milli_cpu:
            reasons.append("Insufficient cpu")
        if wanted.memory and requested.memory + wanted.memory > allocatable.memory:
            reasons.append("Insufficient memory")
        storage = wanted.ephemeral_storage
        if storage and requested.ephemeral_storage + storage > allocatable.ephemeral_storage:
            reasons.append("Insufficient ephemeral-storage")
        for name, quantity in wanted.scalar.items():
            if not quantity:
                continue
            available = allocatable.scalar.get(name, 0)
            if not available and self.resolver is not None and self.resolver.class_for(name):
                continue  # DRA-backed here: the DynamicResources plugin allocates it
            if requested.scalar.get(name, 0) + quantity > available:
                reasons.append(f"Insufficient {name}")
        return unschedulable(*reasons) if reasons else None

    def score_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        info: PodInfo = state.read(_STATE)
        cpu, memory = info.non_zero.milli_cpu, info.non_zero.memory
        # one object per pod size, so that the nodes' sizes are compared by identity
        if len(self._sizes) >= _SIZES_KEPT and (cpu, memory) not in self._sizes:
            self._sizes.clear()
        size = self._sizes.setdefault((cpu, memory), (cpu, memory))
        scores = [node.fit_score if node.fit_score_size is size else _UNKNOWN for node in nodes]
        # the few nodes without a score for this size (those changed since the last pod), found
        # by C-level scans
        position = -1
        for _ in range(scores.count(_UNKNOWN)):
            position = scores.index(_UNKNOWN, position + 1)
            node = nodes[position]
            node.fit_score = scores[position] = (
                _least_allocated(
                    node.allocatable.milli_cpu, node.non_zero_requested.milli_cpu + cpu
                )
                + _least_allocated(node.allocatable.memory, node.non_zero_requested.memory + memory)
            ) // 2
            node.fit_score_size = size
        return scores, None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        scores, status = self.score_nodes(state, pod, (node,))
        return scores[0], status


def _least_allocated(capacity: int, requested: int) -> int:
    """The share of ``capacity`` left free, in [0, MAX_NODE_SCORE]; 0 when over or unknown."""
    if capacity and requested <= capacity:
        return (capacity - requested) * MAX_NODE_SCORE // capacity
    return 0
