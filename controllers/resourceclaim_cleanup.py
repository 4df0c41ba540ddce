"""The claim half of the resourceclaim controller: reservations, deallocation, generated claims.

For one claim, from current state:

1. **Reservations.** ``status.reservedFor`` entries of pods that are gone (not in the cache and
   a live GET says 404), replaced (another uid under the name) or finished (``Succeeded`` /
   ``Failed``, or being deleted before they were scheduled) are dropped, and so are entries of
   PodGroups that are gone, replaced or being deleted with no member pod left that could still
   use the claim (KEP-5729; a foreground deletion of the group waits for its claim, which waits
   for its reservation). Another consumer (a KEP-5194
   ``spec.reservedFor`` object) is dropped when it is of a kind this cluster serves (a Workload,
   say) and is gone or replaced; a consumer of a kind we cannot see (a JobSet) is kept:
   removing it is its creator's job.
2. **Deallocation.** When that leaves no reservation and the claim carries the
   ``delete-protection`` finalizer (the scheduler's mark that it allocated the claim), the same
   status write clears ``status.allocation``. A KEP-5194 claim whose creator has removed its
   reference is deallocated the same way, and so is any unreserved claim being deleted.
3. **Finalizer.** Once the claim is not allocated, the finalizer is removed.
4. **Generated claims.** A claim controlled by a pod or PodGroup that is gone, replaced or
   (for pods) finished is deleted once nothing reserves it. The garbage collector would delete
   the claims of vanished owners too; doing it here keeps the controller correct on its own.
"""

from __future__ import annotations

from fakeapi.client import (
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIMS,
    Client,
    Informer,
    Preconditions,
    Resource,
    is_not_found,
)
from fakeapi.controllers.garbage_collector import COLLECTED_RESOURCES
from fakeapi.controllers.indexes import POD_GROUP_INDEX
from fakeapi.objects import (
    Obj,
    as_dict,
    as_list,
    controller_ref,
    deep_copy,
    is_deleting,
    meta,
    text,
)
from fakeapi.rules.claims import DELETE_PROTECTION_FINALIZER, SCHEDULING_GROUP
from fakeapi.rules.podgroups import pod_group_name

__all__ = ["ClaimCleanup", "pod_is_done"]

#: namespaced kinds this cluster serves, by (API group, plural), for KEP-5194 consumers
_SERVED_CONSUMERS: dict[tuple[str, str], Resource] = {
    (r.group, r.plural): r for r in COLLECTED_RESOURCES if r.namespaced
}

_TERMINAL = ("Succeeded", "Failed")


def pod_is_done(pod: Obj) -> bool:
    """Finished, or deleted before it was ever scheduled: it will never use its claims."""
    if as_dict(pod.get("status")).get("phase") in _TERMINAL:
        return True
    return is_deleting(pod) and not as_dict(pod.get("spec")).get("nodeName")


class ClaimCleanup:
    """Syncs one claim; the caches are the controller's shared informers."""

    def __init__(
        self, *, client: Client, claims: Informer, pods: Informer, pod_groups: Informer | None
    ) -> None:
        self.client = client
        self.claims = claims
        self.pods = pods
        self.pod_groups = pod_groups

    async def _current(
        self, resource: Resource, informer: Informer | None, ns: str, name: str
    ) -> Obj | None:
        """The object from the cache, or — when the cache has none — from a live GET, since a
        cache that lags behind must not make us drop a reservation of a new object."""
        if informer is not None:
            cached = informer.get(f"{ns}/{name}")
            if cached is not None:
                return cached
        try:
            return await self.client.get(resource, namespace=ns, name=name)
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    async def _keep(self, ns: str, ref: dict[str, object]) -> bool:
        group, resource = text(ref.get("apiGroup")), text(ref.get("resource"))
        name, uid = text(ref.get("name")), text(ref.get("uid"))
        if group == "" and resource == "pods":
            pod = await self._current(PODS, self.pods, ns, name)
            return pod is not None and meta(pod).get("uid") == uid and not pod_is_done(pod)
        if group == SCHEDULING_GROUP and resource == "podgroups":
            group_obj = await self._current(POD_GROUPS, self.pod_groups, ns, name)
            return (
                group_obj is not None
                and meta(group_obj).get("uid") == uid
                and not (is_deleting(group_obj) and not await self._live_members(ns, name))
            )
        served = _SERVED_CONSUMERS.get((group, resource))
        if served is not None:  # a consumer we can see: dropped once it is gone (KEP-5194)
            consumer = await self._current(served, None, ns, name)
            return consumer is not None and meta(consumer).get("uid") == uid
        return True  # a consumer we cannot see: its creator removes the reference

    async def _live_members(self, ns: str, group: str) -> bool:
        """Whether a pod of PodGroup ``group`` could still use the group's claims. The pod cache
        may not have seen a member created just before the group's deletion, so an empty answer
        from it is checked with a live list before the reservation goes."""
        for key in self.pods.index_keys(POD_GROUP_INDEX, f"{ns}/{group}"):
            pod = self.pods.get(key)
            if pod is not None and not pod_is_done(pod):
                return True
        listed = await self.client.list_all(PODS, namespace=ns)
        return any(pod_group_name(pod) == group and not pod_is_done(pod) for pod in listed.items)

    async def sync(self, ns: str, name: str) -> None:
        claim = self.claims.get(f"{ns}/{name}")
        if claim is None:
            return
        status = as_dict(claim.get("status"))
        reserved = [as_dict(r) for r in as_list(status.get("reservedFor"))]
        valid = [ref for ref in reserved if await self._keep(ns, ref)]
        finalizers = [text(f) for f in as_list(meta(claim).get("finalizers"))]
        protected = DELETE_PROTECTION_FINALIZER in finalizers
        allocated = status.get("allocation") is not None
        consumer_gone = bool(as_dict(claim.get("spec")).get("reservedFor")) and not reserved
        deallocate = (
            protected
            and allocated
            and not valid
            and (len(valid) < len(reserved) or is_deleting(claim) or consumer_gone)
        )
        if len(valid) < len(reserved) or deallocate:
            updated = deep_copy(claim)
            new_status = as_dict(updated.get("status"))
            if valid:
                new_status["reservedFor"] = valid
            else:
                new_status.pop("reservedFor", None)
            if deallocate:
                new_status.pop("allocation", None)
                new_status.pop("devices", None)
            updated["status"] = new_status
            claim = await self.client.update_status(RESOURCE_CLAIMS, body=updated)
            allocated = as_dict(claim.get("status")).get("allocation") is not None
        if protected and not allocated:
            updated = deep_copy(claim)
            meta(updated)["finalizers"] = [
                f for f in finalizers if f != DELETE_PROTECTION_FINALIZER
            ]
            claim = await self.client.update(RESOURCE_CLAIMS, body=updated)
        if not valid and not is_deleting(claim) and await self._owner_gone(ns, claim):
            await self.client.delete(
                RESOURCE_CLAIMS,
                namespace=ns,
                name=name,
                preconditions=Preconditions(uid=text(meta(claim).get("uid"))),
            )

    async def _owner_gone(self, ns: str, claim: Obj) -> bool:
        ref = controller_ref(claim)
        if ref is None:
            return False
        api_version, kind = text(ref.get("apiVersion")), text(ref.get("kind"))
        name, uid = text(ref.get("name")), text(ref.get("uid"))
        if api_version == "v1" and kind == "Pod":
            pod = await self._current(PODS, self.pods, ns, name)
            return pod is None or meta(pod).get("uid") != uid or pod_is_done(pod)
        if api_version.startswith(SCHEDULING_GROUP + "/") and kind == "PodGroup":
            group = await self._current(POD_GROUPS, self.pod_groups, ns, name)
            return group is None or meta(group).get("uid") != uid
        return False
