"""The DynamicResources plugin's PostFilter: free a claim that keeps the pod off every node.

As upstream's: when no node passed Filter, one allocated claim that blocked the pod (its node
selector matched no node, or its device binding failed) is deallocated, so the next attempt may
allocate it elsewhere — but only a claim reserved for nobody but the pod, or (the seed's
PodGroupPostFilter) for the pod's PodGroup alone while no member of that group is assumed or
bound: nothing runs on its devices then. Never a claim reserved for a workload or a busy group,
nor one whose allocation is still in flight. The candidates are tried in random order (the
scheduler's injected source of randomness), and one deallocation per attempt is enough.

A claim for the pod's extended resources that an earlier attempt left behind makes every node
unschedulable; PostFilter deletes it, and the next attempt starts afresh.
"""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj, meta
from fakeapi.rules.claims import is_pod_group_reference, is_reserved_for
from fakeapi.rules.podgroups import pod_group_name
from fakeapi.scheduler.framework.interface import Handle, PostFilterResult
from fakeapi.scheduler.framework.status import Status, as_error, unschedulable
from fakeapi.scheduler.plugins.dynamic_resources.claims import ClaimTracker
from fakeapi.scheduler.plugins.dynamic_resources.podclaims import PodClaim
from fakeapi.scheduler.plugins.dynamic_resources.writer import ClaimWriter

__all__ = ["ClaimReleaser"]


class ClaimReleaser:
    """Deallocates the claim that blocked a pod, or deletes its stale extended-resource claim."""

    def __init__(self, *, handle: Handle, writer: ClaimWriter, tracker: ClaimTracker) -> None:
        self.handle = handle
        self.writer = writer
        self.tracker = tracker

    async def post_filter(
        self,
        pod: Obj,
        *,
        claims: Sequence[PodClaim] | None,
        blocking: set[int],
        stale_extended_claim: Obj | None,
    ) -> tuple[PostFilterResult | None, Status | None]:
        """``claims``: the pod's claims as PreFilter found them (None when PreFilter kept no
        state); ``blocking``: the indexes of those that kept it off some node."""
        if stale_extended_claim is not None:
            # left by an earlier attempt whose binding failed: delete it, then try afresh
            try:
                await self.writer.delete_claim(stale_extended_claim)
            except Exception as exc:
                return None, as_error(exc)
            return None, unschedulable("deletion of ResourceClaim completed")
        if claims is None:
            return None, unschedulable()
        if not claims:
            return None, unschedulable("no new claims to deallocate")
        candidates = sorted(blocking)
        self.handle.rng.shuffle(candidates)
        pod_uid = meta(pod).get("uid") or ""
        for index in candidates:
            claim = claims[index].claim
            if self.tracker.has_pending(meta(claim).get("uid", "")):
                continue  # allocated in flight (another pod's, or its group's): nothing written
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            only_this_pod = len(reserved) == 1 and is_reserved_for(claim, uid=pod_uid)
            if reserved and not only_this_pod and not self._idle_group_claim(pod, reserved):
                continue
            try:
                await self.writer.write_deallocation(claim)
            except Exception as exc:
                return None, as_error(exc)
            return None, unschedulable("deallocation of ResourceClaim completed")
        return None, unschedulable("still not schedulable")

    def _idle_group_claim(self, pod: Obj, reserved: list[Obj]) -> bool:
        """The claim is reserved for the pod's PodGroup alone and no member of the group is
        assumed or bound: nothing runs on its devices, so it may be released for the group to
        be placed elsewhere."""
        group = pod_group_name(pod)
        if not group or len(reserved) != 1:
            return False
        if not is_pod_group_reference(reserved[0], name=group):
            return False
        members = self.handle.pods_of_group(meta(pod).get("namespace", ""), group)
        return not any(
            (member.get("spec") or {}).get("nodeName")
            or self.handle.is_assumed_or_bound(meta(member).get("uid", ""))
            for member in members
        )
