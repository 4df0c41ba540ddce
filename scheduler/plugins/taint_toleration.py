"""TaintToleration: untolerated NoSchedule/NoExecute taints reject a node; PreferNoSchedule taints
the pod does not tolerate lower the node's score."""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj
from fakeapi.rules.taints import find_untolerated_taint, toleration_tolerates_taint
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.status import Status, skip, unresolvable
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore, NodeTraits
from fakeapi.scheduler.plugins.helpers import default_normalize_score

__all__ = ["NAME", "TaintToleration"]

UNTOLERATED = "node(s) had untolerated taint(s)"

NAME = "TaintToleration"
_FILTER_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
_SCORE_STATE = NAME + "/score"


def _tolerations(pod: Obj) -> list[Obj]:
    return list((pod.get("spec") or {}).get("tolerations") or ())


class TaintToleration:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self._node_now_tolerated,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_TOLERATIONS)
            ),
        ]

    def _node_now_tolerated(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if new is None:
            return QueueingHint.QUEUE_SKIP
        taints = (new.get("spec") or {}).get("taints") or ()
        if find_untolerated_taint(taints, _tolerations(pod), effects=_FILTER_EFFECTS) is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def filter_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        if not NodeTraits.any_has(nodes, "taints"):
            return [None] * len(nodes)
        return [self.filter(state, pod, node) for node in nodes]

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        if not node.taints:
            return None
        taint = find_untolerated_taint(
            node.taints, _tolerations(pod), effects=_FILTER_EFFECTS
        )
        if taint is None:
            return None
        # upstream stopped naming the taint in 1.35 (its key and value may be private)
        return unresolvable(UNTOLERATED)

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        """Skip when no feasible node has a PreferNoSchedule taint: every node would score the
        same, which cannot change the choice of node."""
        if not NodeTraits.any_has(nodes, "prefer_no_schedule_taints"):
            return skip()
        state.write(
            _SCORE_STATE,
            [
                t
                for t in _tolerations(pod)
                if (t.get("effect") or "PreferNoSchedule") == "PreferNoSchedule"
            ],
        )
        return None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        if not node.prefer_no_schedule_taints:
            return 0, None
        tolerations = state.get(_SCORE_STATE) or ()
        count = sum(
            1
            for taint in node.prefer_no_schedule_taints
            if not any(toleration_tolerates_taint(t, taint) for t in tolerations)
        )
        return count, None

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(scores, reverse=True)
        return None
