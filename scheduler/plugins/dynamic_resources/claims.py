"""The plugin's view of ResourceClaims: informer cache + assume cache + in-flight allocations.

Three sources, newest wins, as kube-scheduler's DRA manager:

* the **informer** cache (what the API server said last);
* the **assume cache**: claims as this scheduler last wrote them (PreBind), kept until the
  informer reports the same or a newer resourceVersion, so the next pod never sees an older
  claim than the one just written;
* **in-flight allocations**: allocations chosen at Reserve but not yet written. They count as
  allocated at once, so two pods scheduled back to back never get the same device. An in-flight
  allocation of a PodGroup claim is shared by the group's members (reference-counted by pod).

Every change is pushed into the allocator's :class:`DeviceInventory` (allocated device IDs per
claim UID), and ``on_pool_change`` is told each pool whose allocations change, which lets the
plugin reuse a node's allocation result while nothing on that node has changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fakeapi.client import Informer
from fakeapi.objects import Obj, key_for, object_key
from fakeapi.scheduler.plugins.dynamic_resources.inventory import DeviceInventory

__all__ = ["ClaimTracker", "PendingAllocation", "rv_int"]



def rv_int(obj: Obj | None) -> int:
    try:
        return int((obj or {}).get("metadata", {}).get("resourceVersion") or 0)
    except (TypeError, ValueError):
        return 0


def _allocation(claim: Obj | None) -> Obj | None:
    if claim is None:
        return None
    allocation: Obj | None = (claim.get("status") or {}).get("allocation")
    return allocation


def _pools(allocation: Obj | None) -> set[tuple[str, str]]:
    if not allocation:
        return set()
    return {
        (str(r.get("driver", "")), str(r.get("pool", "")))
        for r in (allocation.get("devices") or {}).get("results") or ()
    }


@dataclass(slots=True)
class PendingAllocation:
    """An allocation chosen at Reserve, not yet written to the API."""

    allocation: Obj
    #: pods holding it; a PodGroup claim can be held by several members
    holders: set[str] = field(default_factory=set)
    #: the PodGroup (namespace/name) whose members may share it; "" for a pod's own claim
    group: str = ""


class ClaimTracker:
    def __init__(
        self,
        *,
        informer: Informer,
        inventory: DeviceInventory,
        on_pool_change: Callable[[tuple[str, str]], None] | None = None,
    ) -> None:
        self.informer = informer
        self.inventory = inventory
        #: told the (driver, pool) whenever an allocation in that pool changes
        self.on_pool_change = on_pool_change
        self._assumed: dict[str, Obj] = {}
        self._pending: dict[str, PendingAllocation] = {}
        self._recorded: dict[str, Obj] = {}
        self._keys: dict[str, str] = {}  # uid → namespace/name

    # -- reading ---------------------------------------------------------------------------------
    def get(self, namespace: str, name: str) -> Obj | None:
        key = key_for(namespace, name)
        cached = self.informer.get(key)
        assumed = self._assumed.get(key)
        if assumed is not None and (cached is None or rv_int(assumed) > rv_int(cached)):
            return assumed
        return cached

    def pending(self, uid: str) -> PendingAllocation | None:
        return self._pending.get(uid)

    def has_pending(self, uid: str) -> bool:
        return uid in self._pending

    # -- informer events ------------------------------------------------------------------------
    def on_claim(self, claim: Obj) -> None:
        meta = claim.get("metadata") or {}
        key = object_key(claim)
        self._keys[meta.get("uid", "")] = key
        assumed = self._assumed.get(key)
        if assumed is not None and rv_int(claim) >= rv_int(assumed):
            del self._assumed[key]
        self._sync(meta.get("uid", ""), self.get(meta.get("namespace", ""), meta.get("name", "")))

    def on_claim_deleted(self, claim: Obj) -> None:
        meta = claim.get("metadata") or {}
        self._assumed.pop(object_key(claim), None)
        uid = meta.get("uid", "")
        self._keys.pop(uid, None)
        self._pending.pop(uid, None)
        self._sync(uid, None)

    # -- the scheduler's own writes and reservations ----------------------------------------------
    def assume(self, claim: Obj) -> None:
        """Remember a claim as this scheduler just wrote it."""
        meta = claim.get("metadata") or {}
        key = object_key(claim)
        self._keys[meta.get("uid", "")] = key
        if rv_int(claim) > rv_int(self.get(meta.get("namespace", ""), meta.get("name", ""))):
            self._assumed[key] = claim
        self._sync(meta.get("uid", ""), self.get(meta.get("namespace", ""), meta.get("name", "")))

    def signal_pending(self, *, uid: str, allocation: Obj, holder: str, group: str = "") -> None:
        pending = self._pending.get(uid)
        if pending is None:
            pending = self._pending[uid] = PendingAllocation(allocation, group=group)
        pending.holders.add(holder)
        self._sync(uid, None, known=False)

    def release_pending(self, *, uid: str, holder: str) -> bool:
        """Drop ``holder``'s hold; the allocation stops counting when nobody holds it."""
        pending = self._pending.get(uid)
        if pending is None or holder not in pending.holders:
            return False
        pending.holders.discard(holder)
        if not pending.holders:
            del self._pending[uid]
            self._sync(uid, None, known=False)
        return True

    # -- keeping the inventory in step ----------------------------------------------------------
    def _sync(self, uid: str, claim: Obj | None, *, known: bool = True) -> None:
        if not uid:
            return
        if not known:
            claim = self._claim_by_uid(uid)
        allocation = _allocation(claim)
        if allocation is None and uid in self._pending:
            allocation = self._pending[uid].allocation
        recorded = self._recorded.get(uid)
        if recorded is allocation:
            return
        if (
            recorded is not None
            and allocation is not None
            and recorded.get("devices") == allocation.get("devices")
        ):
            # the inventory counts only the devices: an allocation written as Reserve chose
            # it (now with its timestamp) or seen again leaves every count as it was
            self._recorded[uid] = allocation
            return
        if self.on_pool_change is not None:
            for pool in _pools(recorded) | _pools(allocation):
                self.on_pool_change(pool)
        if allocation is None:
            self._recorded.pop(uid, None)
            self.inventory.mark_freed(claim_key=uid)
        else:
            self._recorded[uid] = allocation
            self.inventory.mark_allocated(claim_key=uid, allocation=allocation)

    def _claim_by_uid(self, uid: str) -> Obj | None:
        key = self._keys.get(uid)
        if key is None:
            return None
        namespace, _, name = key.partition("/")
        return self.get(namespace, name)
