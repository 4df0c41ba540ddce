"""NodeResourcesBalancedAllocation: prefer the node whose cpu and memory would be used most evenly.

Upstream's score: for cpu and memory, the fraction of the node's allocatable its pods would
request with this pod (at most 1), and ``(1 - spread) * 100`` where the spread of two fractions is
half their difference. It uses the pods' actual requests (not the 100m / 200Mi defaults
LeastAllocated counts), so a pod that requests neither is skipped at PreScore, as upstream's
best-effort check does, and costs nothing per node.
"""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState, pod_info_of
from fakeapi.scheduler.framework.events import ClusterEventWithHint
from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE, Handle
from fakeapi.scheduler.framework.status import Status, skip
from fakeapi.scheduler.framework.types import NodeInfo

__all__ = ["NAME", "NodeResourcesBalancedAllocation", "balanced_score"]

NAME = "NodeResourcesBalancedAllocation"
_STATE = NAME


def balanced_score(fractions: Sequence[float]) -> int:
    """``(1 - standard deviation) * 100`` of the usage fractions (each capped at 1)."""
    capped = [min(f, 1.0) for f in fractions]
    if len(capped) == 2:
        spread = abs(capped[0] - capped[1]) / 2
    elif len(capped) > 2:
        mean = sum(capped) / len(capped)
        spread = (sum((f - mean) ** 2 for f in capped) / len(capped)) ** 0.5
    else:
        spread = 0.0
    return int((1 - spread) * MAX_NODE_SCORE)


class NodeResourcesBalancedAllocation:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []  # a score plugin rejects no pod

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        requests = pod_info_of(state, pod).requests
        if not requests.milli_cpu and not requests.memory:
            return skip()  # best effort as far as cpu and memory go
        state.write(_STATE, (requests.milli_cpu, requests.memory))
        return None

    def score_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        cpu, memory = state.read(_STATE)
        scores: list[int] = []
        for node in nodes:
            allocatable, requested = node.allocatable, node.requested
            fractions = []
            if allocatable.milli_cpu:
                fractions.append((requested.milli_cpu + cpu) / allocatable.milli_cpu)
            if allocatable.memory:
                fractions.append((requested.memory + memory) / allocatable.memory)
            scores.append(balanced_score(fractions))
        return scores, None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        scores, status = self.score_nodes(state, pod, (node,))
        return scores[0], status
