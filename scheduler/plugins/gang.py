"""Gang scheduling: a PodGroup with ``policy.gang.minCount`` binds at least that many pods together
or none.

* **PreEnqueue** — a pod whose PodGroup does not exist yet waits for it (its policy is not known),
  as upstream's; a member enters the active queue only once
  ``minCount`` members exist (upstream's gang PreEnqueue), so the scheduler does not reserve
  resources for a group that cannot be complete.
* **Permit** — a member that fits is held (WAIT) until ``minCount`` members are assumed or
  bound; the member that completes the group allows all waiting ones, and they bind together.
* **Timeout** — one deadline per group, as upstream's: the first member to wait sets it
  :data:`PERMIT_TIMEOUT` (5 minutes) ahead on the injected clock, later members wait what is left
  of it, and a new attempt after it passed sets a new one. Members still waiting then are
  rejected: their reservations are released (Unreserve of every plugin) and they return to the
  unschedulable pool, to be retried when a node is added, a pod is deleted, or a new member
  arrives.
* **Unreserve** — one member failing rejects the others still waiting, so no partial gang keeps
  resources.
"""

from __future__ import annotations

from fakeapi.client import POD_GROUPS
from fakeapi.objects import Obj, meta, object_key, text
from fakeapi.rules.podgroups import pod_group_name
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventIndex,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.status import Code, Status, unschedulable
from fakeapi.selectors.errors import go_quote

__all__ = ["GangScheduling", "NAME", "PERMIT_TIMEOUT"]

NAME = "GangScheduling"
#: seconds a group has to complete at Permit (upstream's DefaultSchedulingTimeoutDuration)
PERMIT_TIMEOUT = 300.0


def _namespace(obj: Obj) -> str:
    return text(meta(obj).get("namespace"))


def _uid(obj: Obj) -> str:
    return text(meta(obj).get("uid"))


def _member_key(pod: Obj) -> frozenset[str]:
    """The ``namespace/group`` a pod belongs to (``namespace/`` for none)."""
    return frozenset((f"{_namespace(pod)}/{pod_group_name(pod)}",))


def _added_member_key(old: Obj | None, new: Obj | None) -> frozenset[str] | None:
    return None if new is None else _member_key(new)


def _changed_group_key(old: Obj | None, new: Obj | None) -> frozenset[str] | None:
    if new is None:
        return None
    return frozenset((object_key(new),))


#: a new member or a changed PodGroup concerns only the pods of that group, so a large gang
#: filling up does not ask every waiting member about every newcomer
_BY_GROUP = "GangScheduling/groups"
_NEW_MEMBERS = EventIndex(name=_BY_GROUP, pod_keys=_member_key, event_keys=_added_member_key)
_CHANGED_GROUPS = EventIndex(name=_BY_GROUP, pod_keys=_member_key, event_keys=_changed_group_key)


class GangScheduling:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.groups = handle.informer(POD_GROUPS)
        self.timeout = PERMIT_TIMEOUT
        #: ``namespace/group`` → the monotonic time its members stop waiting at Permit
        self._deadlines: dict[str, float] = {}

    def _min_count(self, pod: Obj) -> int:
        group_name = pod_group_name(pod)
        if not group_name:
            return 0
        group = self.groups.get(f"{_namespace(pod)}/{group_name}")
        if group is None:
            return 0
        gang = ((group.get("spec") or {}).get("policy") or {}).get("gang") or {}
        return int(gang.get("minCount") or 0)

    def _members(self, pod: Obj) -> list[Obj]:
        return [
            p
            for p in self.handle.pods_of_group(_namespace(pod), pod_group_name(pod))
            if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            and not (p.get("metadata") or {}).get("deletionTimestamp")
        ]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD),
                self._same_group,
                _NEW_MEMBERS,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.ADD | ActionType.UPDATE),
                self._own_group,
                _CHANGED_GROUPS,
            ),
        ]

    def _same_group(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if (
            new is not None
            and pod_group_name(new) == pod_group_name(pod)
            and _namespace(new) == _namespace(pod)
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _own_group(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if (
            new is not None
            and (new.get("metadata") or {}).get("name") == pod_group_name(pod)
            and _namespace(new) == _namespace(pod)
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def pre_enqueue(self, pod: Obj) -> Status | None:
        group_name = pod_group_name(pod)
        if group_name and self.groups.get(f"{_namespace(pod)}/{group_name}") is None:
            # as upstream's: the group's policy is not known until it exists
            return unschedulable(
                f"waiting for pod's pod group {go_quote(group_name)} to appear in scheduling queue"
            )
        min_count = self._min_count(pod)
        if min_count and len(self._members(pod)) < min_count:
            return unschedulable(
                "waiting for minCount pods from a gang to appear in scheduling queue"
            )
        return None

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        return None

    async def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        if not self._min_count(pod):
            return
        group, namespace, uid = pod_group_name(pod), _namespace(pod), _uid(pod)
        for waiting in list(self.handle.waiting_pods()):
            other = waiting.pod
            same_group = pod_group_name(other) == group and _namespace(other) == namespace
            if same_group and _uid(other) != uid:
                waiting.reject(NAME, f"pod group {namespace}/{group} was rejected")

    def _remaining(self, key: str) -> float:
        """Seconds left of the group's deadline, setting a new one when there is none or it
        has passed."""
        now = self.handle.clock.monotonic()
        deadline = self._deadlines.get(key)
        if deadline is None or deadline <= now:
            deadline = self._deadlines[key] = now + self.timeout
        return deadline - now

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status | None, float]:
        min_count = self._min_count(pod)
        if not min_count:
            return None, 0.0
        placed = sum(
            1 for member in self._members(pod) if self.handle.is_assumed_or_bound(_uid(member))
        )
        group, namespace = pod_group_name(pod), _namespace(pod)
        if placed < min_count:
            return Status(Code.WAIT), self._remaining(f"{namespace}/{group}")
        self._deadlines.pop(f"{namespace}/{group}", None)
        for waiting in list(self.handle.waiting_pods()):
            other = waiting.pod
            if pod_group_name(other) == group and _namespace(other) == namespace:
                waiting.allow(NAME)
        return None, 0.0
