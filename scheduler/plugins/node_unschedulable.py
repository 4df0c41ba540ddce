"""NodeUnschedulable: cordoned nodes (``spec.unschedulable``) take only pods that tolerate the
``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj
from fakeapi.rules.taints import tolerations_tolerate_taint
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.status import Status, unresolvable
from fakeapi.scheduler.framework.types import NodeInfo, NodeTraits

__all__ = ["ERR_REASON", "NAME", "NodeUnschedulable"]

NAME = "NodeUnschedulable"
ERR_REASON = "node(s) were unschedulable"
TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def _schedulable_now(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if new is None:
        return QueueingHint.QUEUE_SKIP
    if not (new.get("spec") or {}).get("unschedulable"):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


class NodeUnschedulable:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                _schedulable_now,
            )
        ]

    def filter_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        if not NodeTraits.any_has(nodes, "unschedulable"):
            return [None] * len(nodes)
        return [self.filter(state, pod, node) for node in nodes]

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        if not node.unschedulable:
            return None
        tolerations = (pod.get("spec") or {}).get("tolerations") or ()
        if tolerations_tolerate_taint(tolerations, TAINT):
            return None
        return unresolvable(ERR_REASON)
