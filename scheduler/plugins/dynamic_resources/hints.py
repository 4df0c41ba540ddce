"""The cluster events that can make a pod DynamicResources rejected schedulable, with their hints.

As upstream: node adds and label changes (claims may be node-local); claim adds and updates that
concern the pod (created, status changed) or that free devices (deallocation); deleted allocated
claims; the pod's own update recording generated claim names; class and slice adds and updates;
DeviceTaintRules; the pod's PodGroup appearing or changing (its claims). A hint answers QUEUE only
when the change can help the pod, so a busy cluster does not wake every waiting pod.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.objects import Obj, meta, object_key
from fakeapi.rules.podgroups import may_use_group_claims, pod_group_name
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventIndex,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.plugins.dynamic_resources.extended import owner_index
from fakeapi.scheduler.plugins.dynamic_resources.podclaims import ClaimNotReadyError, PodClaim

__all__ = ["QueueingHints"]



def _pod_claim_keys(pod: Obj) -> frozenset[str] | None:
    """The ``namespace/name`` of every claim the pod names (directly or through its generated
    claim statuses); None when it reaches a claim through its PodGroup, whose claims are only
    known by looking the group up."""
    namespace = meta(pod).get("namespace")
    keys = set()
    if may_use_group_claims(pod):  # an entry may be its group's claim
        return None
    for entry in (pod.get("spec") or {}).get("resourceClaims") or ():
        if entry.get("podGroupResourceClaim"):
            return None
        if name := entry.get("resourceClaimName"):
            keys.add(f"{namespace}/{name}")
    for entry in (pod.get("status") or {}).get("resourceClaimStatuses") or ():
        if name := entry.get("resourceClaimName"):
            keys.add(f"{namespace}/{name}")
    return frozenset(keys)


def _changed_claim_keys(old: Obj | None, new: Obj | None) -> frozenset[str] | None:
    """The changed claim's ``namespace/name``; None when it may help any pod (a deallocation
    frees devices)."""
    if new is None or _deallocated(old, new):
        return None
    return frozenset((object_key(new),))


def _deallocated(old: Obj | None, new: Obj) -> bool:
    return bool(
        old is not None
        and (old.get("status") or {}).get("allocation")
        and not (new.get("status") or {}).get("allocation")
    )


#: a claim change concerns only the pods that name it (or reach claims through a PodGroup)
CLAIMS_BY_NAME = EventIndex(
    name="DynamicResources/claims", pod_keys=_pod_claim_keys, event_keys=_changed_claim_keys
)


def _may_be_pods_claim(pod: Obj, claim: Obj) -> bool:
    """False when ``claim`` cannot be one of the pod's claims, judged by names alone."""
    keys = _pod_claim_keys(pod)
    if keys is None:
        return True
    return object_key(claim) in keys


class QueueingHints:
    def __init__(self, *, resolve: Callable[[Obj], list[PodClaim]]) -> None:
        self._resolve = resolve

    def events(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.ADD | ActionType.UPDATE),
                self._after_claim_change,
                CLAIMS_BY_NAME,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.DELETE),
                self._after_claim_delete,
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM
                ),
                self._after_pod_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE)
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.RESOURCE_SLICE, ActionType.ADD | ActionType.UPDATE)
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_TAINT_RULE, ActionType.ALL)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.ADD | ActionType.UPDATE),
                self._after_pod_group_change,
            ),
        ]

    def _after_claim_change(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if new is None:
            return QueueingHint.QUEUE
        deallocated = _deallocated(old, new)
        if not deallocated and not _may_be_pods_claim(pod, new):
            return QueueingHint.QUEUE_SKIP  # what resolving the pod's claims would answer
        try:
            claims = self._resolve(pod)
        except ClaimNotReadyError:
            return QueueingHint.QUEUE_SKIP
        if deallocated:
            return QueueingHint.QUEUE  # devices became free
        uid = meta(new).get("uid")
        if not any(meta(c.claim).get("uid") == uid for c in claims):
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        if old.get("status") == new.get("status"):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def _after_claim_delete(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if old is not None and (old.get("status") or {}).get("allocation"):
            return QueueingHint.QUEUE
        if old is not None and owner_index(old) == [meta(pod).get("uid")]:
            return QueueingHint.QUEUE  # the pod's stale extended-resource claim is gone
        return QueueingHint.QUEUE_SKIP

    def _after_pod_change(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if new is None or meta(new).get("uid") != meta(pod).get("uid"):
            return QueueingHint.QUEUE_SKIP
        try:
            self._resolve(new)
        except ClaimNotReadyError:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def _after_pod_group_change(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if new is None or meta(new).get("name") != pod_group_name(pod):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
