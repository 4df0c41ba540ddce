"""NodeName: a pod that names its node (``spec.nodeName``) fits only that node."""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
)
from fakeapi.scheduler.framework.interface import Handle, PreFilterResult
from fakeapi.scheduler.framework.status import Status, skip, unresolvable
from fakeapi.scheduler.framework.types import NodeInfo

__all__ = ["ERR_REASON", "NAME", "NodeName"]

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Nothing to check for a pod that names no node."""
        if (pod.get("spec") or {}).get("nodeName"):
            return None, None
        return None, skip()

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        wanted = (pod.get("spec") or {}).get("nodeName")
        if wanted and wanted != node.name:
            return unresolvable(ERR_REASON)
        return None
