"""DefaultPreemption, reduced to its verdict: which nodes preemption could help, never an eviction.

kube-scheduler's PostFilter would look for lower-priority victims on nodes that rejected the pod
as plain ``Unschedulable``. fakeapi does not preempt (docs/scheduler.md), but the FailedScheduling
message users read ends with the preemption verdict, so this plugin produces it as upstream words
it: ``preemption: 0/N nodes are available: N Preemption is not helpful for scheduling.`` for
nodes rejected as unresolvable, ``No preemption victims found for incoming pod.`` for the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.interface import Handle, NodeToStatus, PostFilterResult
from ..framework.status import Code, Status, unschedulable

__all__ = ["DefaultPreemption", "NAME", "fit_error_message"]

NAME = "DefaultPreemption"
Obj = Mapping[str, Any]
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def fit_error_message(num_all_nodes: int, counts: Mapping[str, int]) -> str:
    """``0/N nodes are available: <count reason>, ....`` with reasons sorted as strings."""
    message = f"0/{num_all_nodes} nodes are available:"
    parts = sorted(f"{count} {reason}" for reason, count in counts.items())
    if parts:
        message += f" {', '.join(parts)}."
    return message


class DefaultPreemption:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    async def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return None, unschedulable("not eligible due to preemptionPolicy=Never.")
        counts: dict[str, int] = {}
        for status in statuses.statuses.values():
            reason = NOT_HELPFUL if status.code is not Code.UNSCHEDULABLE else NO_VICTIMS
            counts[reason] = counts.get(reason, 0) + 1
        absent = statuses.num_all_nodes - len(statuses.statuses)
        if absent > 0:
            code = statuses.absent.code if statuses.absent else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            reason = NOT_HELPFUL if code is not Code.UNSCHEDULABLE else NO_VICTIMS
            counts[reason] = counts.get(reason, 0) + absent
        return None, unschedulable(
            "preemption: " + fit_error_message(statuses.num_all_nodes, counts)
        )
