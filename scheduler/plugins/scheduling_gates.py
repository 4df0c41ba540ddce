"""SchedulingGates: a pod with ``spec.schedulingGates`` stays out of the active queue until the
last gate is removed (upstream's first PreEnqueue plugin)."""

from __future__ import annotations

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
)
from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.status import Status, unresolvable

__all__ = ["NAME", "SchedulingGates"]

NAME = "SchedulingGates"


class SchedulingGates:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
                )
            )
        ]

    def pre_enqueue(self, pod: Obj) -> Status | None:
        gates = [g.get("name", "") for g in (pod.get("spec") or {}).get("schedulingGates") or ()]
        if not gates:
            return None
        return unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")
