"""DefaultPreemption: evict lower-priority pods so that a pod that fits nowhere fits somewhere.

As kube-scheduler's PostFilter (``pkg/scheduler/framework/plugins/defaultpreemption``), on the
nodes that rejected the pod as plain ``Unschedulable`` (an unresolvable rejection, a taint or a
node selector, is not helped by evicting anyone):

* a pod with ``preemptionPolicy: Never`` preempts nobody (``preemption: not eligible due to
  preemptionPolicy=Never.``), nor does one whose nominated node still has a lower-priority pod
  terminating (``preemption: not eligible due to a terminating pod on the nominated node.``);
* per node, every pod of lower priority is taken off a copy of the node; if the Filter plugins
  then pass, pods are given back one by one, the most important first (higher priority, then
  earlier start), as long as the pod still fits: those that cannot be given back are the victims;
* of the candidate nodes the one with the lowest highest-priority victim wins, then the lowest
  sum of victim priorities, then the fewest victims, then the latest start of its
  highest-priority victims, then the first;
* each victim gets the condition ``DisruptionTarget`` (reason ``PreemptionByScheduler``) and is
  deleted gracefully (a victim waiting at Permit is rejected instead), with an event
  ``Preempted`` (``Preempted by pod <uid> on node <node>``); the pod is nominated to the node
  (``status.nominatedNodeName``) and scheduled again once the victims are gone.

Without a candidate the FailedScheduling message ends with upstream's verdict:
``preemption: 0/N nodes are available: N Preemption is not helpful for scheduling.`` for nodes
rejected as unresolvable, ``No preemption victims found for incoming pod.`` for the rest.
Until then Filter keeps the room for it from pods of lower or equal priority (the framework's
:class:`~fakeapi.scheduler.framework.nominator.Nominator`). Departures: every potential node is
examined (upstream samples at least 10 % or 100 of them) and there are no PodDisruptionBudgets
to respect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fakeapi.client import PODS, is_not_found
from fakeapi.objects import Obj, object_key
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.interface import Handle, NodeToStatus, PostFilterResult
from fakeapi.scheduler.framework.nominator import pod_priority
from fakeapi.scheduler.framework.status import Code, Status, unschedulable
from fakeapi.scheduler.framework.types import PodInfo
from fakeapi.timefmt import format_time

__all__ = ["Candidate", "DefaultPreemption", "NAME", "fit_error_message", "pick_one_node"]

NAME = "DefaultPreemption"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def fit_error_message(num_all_nodes: int, counts: Mapping[str, int]) -> str:
    """``0/N nodes are available: <count reason>, ....`` with reasons sorted as strings."""
    message = f"0/{num_all_nodes} nodes are available:"
    parts = sorted(f"{count} {reason}" for reason, count in counts.items())
    if parts:
        message += f" {', '.join(parts)}."
    return message


def _start_time(pod: Obj) -> str:
    status = pod.get("status") or {}
    meta = pod.get("metadata") or {}
    return str(status.get("startTime") or meta.get("creationTimestamp") or "")


def _more_important_first(infos: list[PodInfo]) -> list[PodInfo]:
    """Higher priority first, then the earlier started (upstream's ``MoreImportantPod``)."""
    return sorted(infos, key=lambda i: (-pod_priority(i.pod), _start_time(i.pod)))


@dataclass(slots=True)
class Candidate:
    """A node where evicting ``victims`` (most important first) lets the pod fit."""

    node: str
    victims: list[PodInfo]

    def highest_priority(self) -> int:
        return pod_priority(self.victims[0].pod)

    def priority_sum(self) -> int:
        return sum(pod_priority(v.pod) + 2**31 for v in self.victims)  # every term non-negative

    def earliest_top_start(self) -> str:
        """The earliest start among the victims of the highest priority."""
        top = self.highest_priority()
        return min(_start_time(v.pod) for v in self.victims if pod_priority(v.pod) == top)


def pick_one_node(candidates: list[Candidate]) -> Candidate:
    """Upstream's ``pickOneNodeForPreemption`` without PodDisruptionBudgets: the lowest
    highest-priority victim, then the lowest priority sum, then the fewest victims, then the
    latest start of the highest-priority victims, then the first."""
    best = candidates
    for key in (Candidate.highest_priority, Candidate.priority_sum, lambda c: len(c.victims)):
        least = min(key(c) for c in best)
        best = [c for c in best if key(c) == least]
    latest = max(c.earliest_top_start() for c in best)
    return next(c for c in best if c.earliest_top_start() == latest)


class DefaultPreemption:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle

    async def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        result, status, victims = await self._preempt(state, pod, statuses)
        if self.handle is not None:  # every attempt counts, as upstream's deferred Inc
            self.handle.count_preemption(victims=victims)
        return result, status

    async def _preempt(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None, int | None]:
        """(result, verdict, victims of the chosen candidate or None)."""
        # as upstream, every verdict of the evaluator is worded "preemption: <message>"
        if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return None, unschedulable(
                "preemption: not eligible due to preemptionPolicy=Never."
            ), None
        if self.handle is not None:
            if self._terminating_on_nominated_node(pod):
                return None, unschedulable(
                    "preemption: not eligible due to a terminating pod on the nominated node."
                ), None
            candidates = self._candidates(state, pod, statuses)
            if candidates:
                best = pick_one_node(candidates)
                await self._prepare(pod, best)
                return PostFilterResult(nominated_node_name=best.node), None, len(best.victims)
        counts: dict[str, int] = {}
        for status in statuses.statuses.values():
            reason = NOT_HELPFUL if status.code is not Code.UNSCHEDULABLE else NO_VICTIMS
            counts[reason] = counts.get(reason, 0) + 1
        absent = statuses.num_all_nodes - len(statuses.statuses)
        if absent > 0:
            code = statuses.absent.code if statuses.absent else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            reason = NOT_HELPFUL if code is not Code.UNSCHEDULABLE else NO_VICTIMS
            counts[reason] = counts.get(reason, 0) + absent
        # no candidate anywhere: a nomination left from an earlier attempt is cleared, as
        # upstream's evaluator answers then
        return PostFilterResult(nominated_node_name=""), unschedulable(
            "preemption: " + fit_error_message(statuses.num_all_nodes, counts)
        ), None

    def _terminating_on_nominated_node(self, pod: Obj) -> bool:
        assert self.handle is not None
        pods = self.handle.informer(PODS)
        # the queued copy may predate the nomination this plugin wrote, and the cache keeps the
        # pod objects it was given when they were placed: read the latest of both
        latest = pods.get(object_key(pod)) or pod
        nominated = (latest.get("status") or {}).get("nominatedNodeName")
        if not nominated:
            return False
        priority = pod_priority(pod)
        for node in self.handle.node_infos():
            if node.name == nominated:
                return any(
                    ((pods.get(info.key) or info.pod).get("metadata") or {}).get(
                        "deletionTimestamp"
                    )
                    for info in node.pods.values()
                    if pod_priority(info.pod) < priority
                )
        return False

    def _candidates(self, state: CycleState, pod: Obj, statuses: NodeToStatus) -> list[Candidate]:
        assert self.handle is not None
        absent = statuses.absent.code if statuses.absent else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        priority = pod_priority(pod)
        candidates: list[Candidate] = []
        for node in self.handle.node_infos():
            status = statuses.statuses.get(node.name)
            if (status.code if status is not None else absent) is not Code.UNSCHEDULABLE:
                continue
            lower = [info for info in node.pods.values() if pod_priority(info.pod) < priority]
            if not lower:
                continue
            trial = node.clone()
            for info in lower:
                trial.remove_pod(info.uid)
            if self.handle.run_filters(state, pod, trial) is not None:
                continue
            victims: list[PodInfo] = []
            for info in _more_important_first(lower):  # give back what still leaves room
                trial.add_pod(info)
                if self.handle.run_filters(state, pod, trial) is not None:
                    trial.remove_pod(info.uid)
                    victims.append(info)
            if victims:
                candidates.append(Candidate(node.name, victims))
        return candidates

    async def _prepare(self, pod: Obj, candidate: Candidate) -> None:
        """Evict the victims (upstream's ``prepareCandidate``)."""
        assert self.handle is not None
        meta = pod.get("metadata") or {}
        scheduler = (pod.get("spec") or {}).get("schedulerName") or self.handle.scheduler_name
        for victim in candidate.victims:
            waiting = self.handle.get_waiting_pod(victim.uid)
            if waiting is not None:
                waiting.reject(NAME, "preempted")
            else:
                await self._evict(victim, f"{scheduler}: preempting to accommodate a higher "
                                          "priority pod")
            self.handle.event(
                regarding={"apiVersion": "v1", "kind": "Pod", "metadata": victim.pod.get(
                    "metadata") or {}},
                type="Normal",
                reason="Preempted",
                action="Preempting",
                note=f"Preempted by pod {meta.get('uid', '')} on node {candidate.node}",
                related={"apiVersion": "v1", "kind": "Pod", "metadata": meta},
            )

    async def _evict(self, victim: PodInfo, message: str) -> None:
        assert self.handle is not None
        client = self.handle.client
        condition = {
            "type": "DisruptionTarget",
            "status": "True",
            "reason": "PreemptionByScheduler",
            "message": message,
            "lastTransitionTime": format_time(self.handle.clock.now()),
        }
        try:
            await client.patch(
                PODS, name=victim.name, namespace=victim.namespace,
                patch={"status": {"conditions": [condition]}}, patch_type="strategic",
                subresource="status",
            )
            await client.delete(PODS, name=victim.name, namespace=victim.namespace)
        except Exception as exc:
            if not is_not_found(exc):  # gone already: nothing left to evict
                raise
