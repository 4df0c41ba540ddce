"""The kubelet's DRA manager: admit a pod's claims, prepare them, and unprepare when unused.

Shaped like the kubelet's ``cm/dra`` manager: for a pod it resolves every claim, runs the
admission checks (:mod:`fakeapi.kubelet.admission`), asks each driver named in a claim's
allocation to prepare it, and remembers which pods on the node use which claim and which device.
A claim is unprepared when the last pod using it is released — before the kubelet's final
delete of that pod — so a claim shared by several pods stays prepared while any of them runs.
As upstream's ``unprepareResources``, releasing fails (:class:`~.driver.UnprepareError`, ``DRA
driver <name> is not registered``) while a driver of the claim is not registered: the claim stays
prepared and the release is tried again later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fakeapi import klog
from fakeapi.client import POD_GROUPS, Client, Informer, is_not_found, object_key
from fakeapi.kubelet.admission import check_claim, pod_claim_refs
from fakeapi.kubelet.dra.driver import PrepareError, SimulatedDriver, UnprepareError
from fakeapi.kubelet.dra.health import AllocatedDevice, containers_using
from fakeapi.objects import Obj
from fakeapi.rules.podgroups import pod_group_name

__all__ = ["DRAManager", "PodResources"]

log = logging.getLogger("fakeapi.kubelet.dra")



@dataclass(slots=True)
class PodResources:
    """What was prepared for one pod."""

    #: claim uid -> (namespace, name, drivers that prepared it)
    claims: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    devices: list[AllocatedDevice] = field(default_factory=list)
    released: bool = False


class DRAManager:
    """Prepares and unprepares the claims of one node's pods; see the module docstring."""

    def __init__(
        self,
        *,
        client: Client,
        drivers: Mapping[str, SimulatedDriver],
        claims: Informer,
        node: Callable[[], Obj],
    ) -> None:
        self.client = client
        self.drivers = drivers
        self._claims = claims
        self._node = node
        self._claim_users: dict[str, set[str]] = {}
        self._device_users: dict[str, set[str]] = {}

    def _node_name(self) -> str:
        return str((self._node().get("metadata") or {}).get("name") or "")

    def pods_using_device(self, resource_id: str) -> set[str]:
        """Keys of the pods whose prepared claims include the device ``resource_id``."""
        return set(self._device_users.get(resource_id, ()))

    async def prepare(self, pod: Obj) -> PodResources:
        """Check every claim of ``pod``, then prepare them all.

        Raises NotAdmittedError (a check failed) or PrepareError (a driver refused); nothing is
        recorded for the pod then, and claims prepared on the way stay prepared (prepare is
        idempotent, the next attempt finds them).
        """
        meta = pod.get("metadata") or {}
        namespace = str(meta.get("namespace") or "")
        group_claims: dict[str, str | None] = {}
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            if entry.get("podGroupResourceClaim"):
                name = str(entry["podGroupResourceClaim"])
                group_claims[name] = await self._pod_group_claim(pod, name)
        node = self._node()
        checked: list[tuple[str, Obj]] = []
        for ref in pod_claim_refs(pod, pod_group_claim=group_claims.get):
            if not ref.claim_name:
                continue
            claim = self._claims.get(f"{namespace}/{ref.claim_name}")
            check_claim(pod=pod, claim=claim, ref=ref, node=node)
            assert claim is not None
            checked.append((ref.pod_claim, claim))
        key = object_key(pod)
        resources = PodResources()
        added: list[str] = []
        try:
            for pod_claim, claim in checked:
                await self._prepare_claim(key, pod, pod_claim, claim, resources, added)
        except BaseException:
            for uid in added:  # not a user after all
                users = self._claim_users.get(uid, set())
                users.discard(key)
                if not users:
                    self._claim_users.pop(uid, None)
            raise
        for device in resources.devices:
            self._device_users.setdefault(device.resource_id, set()).add(key)
        return resources

    async def _prepare_claim(
        self,
        key: str,
        pod: Obj,
        pod_claim: str,
        claim: Obj,
        resources: PodResources,
        added: list[str],
    ) -> None:
        claim_meta = claim.get("metadata") or {}
        uid = str(claim_meta.get("uid") or "")
        results = (
            ((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}
        ).get("results") or []
        drivers = sorted({str(r.get("driver")) for r in results})
        users = self._claim_users.setdefault(uid, set())
        if key not in users:  # count the pod in before awaiting: a concurrent release of
            users.add(key)  # another pod must not unprepare the claim under our feet
            added.append(uid)
        cdi: dict[tuple[str, str, str, str], tuple[str, ...]] = {}
        for name in drivers:
            driver = self.drivers.get(name)
            if driver is None or not driver.running:
                raise PrepareError(f"DRA driver {name} is not registered")
            prepared = await driver.prepare(claim)
            klog.info(log, "Done calling NodePrepareResources rpc", node=self._node_name(),
                      pod=key, claim=f"{claim_meta.get('namespace')}/{claim_meta.get('name')}",
                      driver=name, devices=[device for _, device, _ in prepared.devices])
            for (pool, device, share), cdi_id in zip(
                prepared.devices, prepared.cdi_device_ids, strict=False
            ):
                cdi[(name, pool, device, share)] = (cdi_id,)
        namespace = str(claim_meta.get("namespace") or "")
        resources.claims[uid] = (namespace, str(claim_meta.get("name")), tuple(drivers))
        for result in results:
            request = str(result.get("request"))
            device_key = (str(result.get("driver")), str(result.get("pool")),
                          str(result.get("device")), str(result.get("shareID") or ""))
            resources.devices.append(
                AllocatedDevice(
                    claim=pod_claim,
                    request=request,
                    driver=device_key[0],
                    pool=device_key[1],
                    device=device_key[2],
                    containers=containers_using(pod, pod_claim, request),
                    cdi_device_ids=cdi.get(device_key, ()),
                )
            )

    async def release(self, key: str, resources: PodResources) -> None:
        """The pod ``key`` no longer needs its claims: unprepare those no other pod uses.

        Raises UnprepareError when a driver of such a claim is not registered (upstream's
        ``GetPlugin`` error); the claims not unprepared yet stay counted as the pod's, so the
        next call tries them again (unprepare is idempotent)."""
        if resources.released:
            return
        for uid, (namespace, name, drivers) in resources.claims.items():
            users = self._claim_users.get(uid, set())
            if users - {key}:  # another pod on the node still uses it
                users.discard(key)
                continue
            for driver_name in drivers:
                driver = self.drivers.get(driver_name)
                if driver is None or not driver.running:
                    raise UnprepareError(f"DRA driver {driver_name} is not registered")
            for driver_name in drivers:
                await self.drivers[driver_name].unprepare(uid=uid, namespace=namespace, name=name)
                klog.info(log, "Done calling NodeUnprepareResources rpc", node=self._node_name(),
                          pod=key, claim=f"{namespace}/{name}", driver=driver_name)
            self._claim_users.pop(uid, None)
        resources.released = True

    def forget(self, key: str, resources: PodResources) -> None:
        """The pod is gone: stop counting it as a user of its devices."""
        for device in resources.devices:
            users = self._device_users.get(device.resource_id)
            if users is not None:
                users.discard(key)
                if not users:
                    del self._device_users[device.resource_id]

    async def _pod_group_claim(self, pod: Obj, name: str) -> str | None:
        """The claim behind the pod's PodGroup claim ``name`` (KEP-5729), looked up by GET."""
        group = pod_group_name(pod)
        if not group:
            return None
        try:
            pg = await self.client.get(
                POD_GROUPS, namespace=(pod.get("metadata") or {}).get("namespace"), name=group
            )
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        for section, key in (("spec", "resourceClaims"), ("status", "resourceClaimStatuses")):
            for entry in (pg.get(section) or {}).get(key) or []:
                if entry.get("name") == name and entry.get("resourceClaimName"):
                    return str(entry["resourceClaimName"])
        return None
