"""The kubelet's DRA manager: admit a pod's claims, prepare them, and unprepare when unused.

Shaped like the kubelet's ``cm/dra`` manager: for a pod it resolves every claim, runs the
admission checks (:mod:`fakeapi.kubelet.admission`), checks that every driver named in the
claims' allocations is registered (``DRA driver <name> is not registered`` otherwise, before any
driver is called), asks each driver once to prepare the pod's claims it serves (one
NodePrepareResources with all of them, as upstream batches per plugin), and remembers which pods
on the node use which claim and which device, with the CDI device IDs each driver returned.
Drivers are :class:`~.interface.DRADriver` objects: simulated in-process or external over gRPC.
The kubelet's own call faults (:mod:`.callfaults`) delay or fail a call before it reaches the
driver.
A claim counts as the pod's once a driver is asked to prepare it, whether or not that call
succeeds (upstream's claim info cache takes it before the call): a pod deleted after a failed or
partial prepare still has its claims unprepared, so a driver that prepared some of them before
failing is asked to undo them.
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
from fakeapi.clock import Clock
from fakeapi.kubelet.admission import check_claim, pod_claim_refs
from fakeapi.kubelet.dra.callfaults import Call, CallFaults
from fakeapi.kubelet.dra.driver import ClaimID, PreparedClaim, PrepareError, UnprepareError
from fakeapi.kubelet.dra.health import AllocatedDevice, containers_using
from fakeapi.kubelet.dra.interface import DRADriver
from fakeapi.objects import Obj
from fakeapi.rules.podgroups import group_claim_entries, may_use_group_claims, pod_group_name

__all__ = ["DEFAULT_CALL_TIMEOUT", "DRAManager", "PodResources"]

log = logging.getLogger("fakeapi.kubelet.dra")

#: upstream's ``defaultClientCallTimeout``: half the kubelet's retry period
DEFAULT_CALL_TIMEOUT = 45.0


def _results_of(claim: Obj) -> list[Obj]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or [])


def _drivers_of(claim: Obj) -> tuple[str, ...]:
    return tuple(sorted({str(r.get("driver")) for r in _results_of(claim)}))


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
        drivers: Mapping[str, DRADriver],
        claims: Informer,
        node: Callable[[], Obj],
        clock: Clock,
        call_faults: CallFaults | None = None,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
    ) -> None:
        self.client = client
        self.drivers = drivers
        self.clock = clock
        #: kubelet-side faults of its calls to drivers (:mod:`.callfaults`)
        self.call_faults = call_faults if call_faults is not None else CallFaults()
        #: how long a NodePrepareResources / NodeUnprepareResources call may take
        self.call_timeout = call_timeout
        self._claims = claims
        self._node = node
        self._claim_users: dict[str, set[str]] = {}
        self._device_users: dict[str, set[str]] = {}

    def _node_name(self) -> str:
        return str((self._node().get("metadata") or {}).get("name") or "")

    def pods_using_device(self, resource_id: str) -> set[str]:
        """Keys of the pods whose prepared claims include the device ``resource_id``."""
        return set(self._device_users.get(resource_id, ()))

    async def prepare(self, pod: Obj, resources: PodResources) -> None:
        """Check every claim of ``pod``, then prepare them all, recording them in ``resources``
        (the pod's, kept across attempts).

        Raises NotAdmittedError (a check failed; nothing recorded) or PrepareError (a driver
        refused). Claims a driver was asked to prepare are recorded as the pod's before the
        call, so :meth:`release` unprepares them even when no attempt succeeds; prepare is
        idempotent, the next attempt finds those already prepared.
        """
        meta = pod.get("metadata") or {}
        namespace = str(meta.get("namespace") or "")
        entries = (pod.get("spec") or {}).get("resourceClaims") or []
        group: Obj | None = None
        if may_use_group_claims(pod) or any(e.get("podGroupResourceClaim") for e in entries):
            group = await self._pod_group(pod)
            entries = group_claim_entries(pod, group)
        group_claims = {
            name: _group_claim(group, name)
            for name in (str(e["podGroupResourceClaim"]) for e in entries
                         if e.get("podGroupResourceClaim"))
        }
        # the pod as its claims resolve: entries identical to its group's are the group's
        resolved = {**pod, "spec": {**(pod.get("spec") or {}), "resourceClaims": entries}}
        node = self._node()
        checked: list[tuple[str, Obj]] = []
        for ref in pod_claim_refs(resolved, pod_group_claim=group_claims.get):
            if not ref.claim_name:
                continue
            claim = self._claims.get(f"{namespace}/{ref.claim_name}")
            check_claim(pod=pod, claim=claim, ref=ref, node=node)
            assert claim is not None
            checked.append((ref.pod_claim, claim))
        # as upstream's validation pass: every driver must be registered before any is called
        for _, claim in checked:
            for name in _drivers_of(claim):
                self._registered(name, PrepareError)
        key = object_key(pod)
        for _, claim in checked:
            # the pod counts in before awaiting: a concurrent release of another pod must not
            # unprepare the claim under our feet
            claim_meta = claim.get("metadata") or {}
            uid = str(claim_meta.get("uid") or "")
            self._claim_users.setdefault(uid, set()).add(key)
            resources.claims[uid] = (
                str(claim_meta.get("namespace") or ""), str(claim_meta.get("name")),
                _drivers_of(claim))
        resources.released = False
        prepared = await self._prepare_claims(key, [claim for _, claim in checked])
        self.forget(key, resources)
        resources.devices = []
        for pod_claim, claim in checked:
            self._record(pod, pod_claim, claim, prepared, resources)
        for device in resources.devices:
            self._device_users.setdefault(device.resource_id, set()).add(key)

    def _registered(self, name: str, error: type[Exception]) -> DRADriver:
        driver = self.drivers.get(name)
        if driver is None or not driver.running:
            raise error(f"DRA driver {name} is not registered")
        return driver

    async def _prepare_claims(
        self, key: str, claims: list[Obj]
    ) -> dict[tuple[str, str], PreparedClaim]:
        """One NodePrepareResources per driver for the pod's claims; by (driver, claim UID)."""
        batches: dict[str, dict[str, Obj]] = {}
        for claim in claims:
            uid = str((claim.get("metadata") or {}).get("uid") or "")
            for name in _drivers_of(claim):
                batches.setdefault(name, {})[uid] = claim
        out: dict[tuple[str, str], PreparedClaim] = {}
        for name in sorted(batches):
            batch = list(batches[name].values())
            await self._inject("prepare", batch, PrepareError)
            driver = self._registered(name, PrepareError)
            for uid, prepared in (await driver.prepare_claims(batch)).items():
                out[(name, uid)] = prepared
                klog.info(log, "Done calling NodePrepareResources rpc", node=self._node_name(),
                          pod=key, claim=f"{prepared.namespace}/{prepared.name}", driver=name,
                          devices=[device for _, device, _ in prepared.devices])
        return out

    async def _inject(self, call: Call, claims: list[Obj], error: type[Exception]) -> None:
        """The kubelet-side faults of one call (:mod:`.callfaults`): wait, or fail it as the
        driver or upstream's gRPC client would report it."""
        names = {
            f"{(c.get('metadata') or {}).get('namespace')}/{(c.get('metadata') or {}).get('name')}":
            str((c.get("metadata") or {}).get("name"))
            for c in claims
        }
        delay, errors = self.call_faults.take(call, names)
        method = "NodePrepareResources" if call == "prepare" else "NodeUnprepareResources"
        if delay >= self.call_timeout:
            await self.clock.sleep(self.call_timeout)
            raise error(f"{method}: rpc error: code = DeadlineExceeded desc = context deadline "
                        "exceeded")
        if delay > 0:
            await self.clock.sleep(delay)
        for claim_key, message in errors.items():
            raise error(f"{method} failed for ResourceClaim {names[claim_key]}: {message}")

    def _record(
        self,
        pod: Obj,
        pod_claim: str,
        claim: Obj,
        prepared: dict[tuple[str, str], PreparedClaim],
        resources: PodResources,
    ) -> None:
        """Remember what was prepared for one claim of the pod: each device with the CDI
        device IDs its driver returned for it."""
        uid = str((claim.get("metadata") or {}).get("uid") or "")
        drivers = _drivers_of(claim)
        cdi: dict[tuple[str, str, str, str], tuple[str, ...]] = {}
        for name in drivers:
            result = prepared.get((name, uid))
            if result is None:
                continue
            for (pool, device, share), ids in result.cdi_ids_by_device().items():
                cdi[(name, pool, device, share)] = ids
        for allocated in _results_of(claim):
            request = str(allocated.get("request"))
            device_key = (str(allocated.get("driver")), str(allocated.get("pool")),
                          str(allocated.get("device")), str(allocated.get("shareID") or ""))
            found = cdi.get(device_key)
            if found is None:  # a driver that returned the device without its share
                found = cdi.get((*device_key[:3], ""), ())
            resources.devices.append(
                AllocatedDevice(
                    claim=pod_claim,
                    request=request,
                    driver=device_key[0],
                    pool=device_key[1],
                    device=device_key[2],
                    containers=containers_using(pod, pod_claim, request),
                    cdi_device_ids=found,
                )
            )

    async def release(self, key: str, resources: PodResources) -> None:
        """The pod ``key`` no longer needs its claims: unprepare those no other pod uses.

        Raises UnprepareError when a driver of such a claim is not registered (upstream's
        ``GetPlugin`` error) or its NodeUnprepareResources failed; the claims not unprepared
        yet stay counted as the pod's, so the next call tries them again (unprepare is
        idempotent)."""
        if resources.released:
            return
        batches: dict[str, list[ClaimID]] = {}
        last: list[str] = []
        for uid, (namespace, name, drivers) in resources.claims.items():
            users = self._claim_users.get(uid, set())
            if users - {key}:  # another pod on the node still uses it
                users.discard(key)
                continue
            last.append(uid)
            for driver_name in drivers:
                batches.setdefault(driver_name, []).append(ClaimID(namespace, uid, name))
        for driver_name in sorted(batches):
            self._registered(driver_name, UnprepareError)
        for driver_name in sorted(batches):
            batch = batches[driver_name]
            await self._inject(
                "unprepare",
                [{"metadata": {"namespace": c.namespace, "name": c.name}} for c in batch],
                UnprepareError,
            )
            await self._registered(driver_name, UnprepareError).unprepare_claims(batch)
            for claim in batch:
                klog.info(log, "Done calling NodeUnprepareResources rpc", node=self._node_name(),
                          pod=key, claim=f"{claim.namespace}/{claim.name}", driver=driver_name)
        for uid in last:
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

    async def _pod_group(self, pod: Obj) -> Obj | None:
        """The pod's PodGroup (KEP-5729), looked up by GET; None when it has none."""
        group = pod_group_name(pod)
        if not group:
            return None
        try:
            found: Obj = await self.client.get(
                POD_GROUPS, namespace=(pod.get("metadata") or {}).get("namespace"), name=group
            )
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        return found


def _group_claim(group: Obj | None, name: str) -> str | None:
    """The claim behind the group's claim entry ``name``: named in its spec, or generated and
    recorded in its status."""
    if group is None:
        return None
    for section, key in (("spec", "resourceClaims"), ("status", "resourceClaimStatuses")):
        for entry in (group.get(section) or {}).get(key) or []:
            if entry.get("name") == name and entry.get("resourceClaimName"):
                return str(entry["resourceClaimName"])
    return None
