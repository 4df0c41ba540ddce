"""The DynamicResources plugin's API writes: allocation, reservation, their undoing, and device
binding conditions.

PreBind finishes what Reserve started only in memory: it adds the finalizer
``resource.kubernetes.io/delete-protection`` (a normal update, as the status subresource cannot
change metadata), then writes ``status.allocation`` and ``status.reservedFor`` (a status update),
starting from the cached claim and re-reading it after a conflict. Whatever it writes goes into
the assume cache at once. Unreserve takes a pod's reservation out with a strategic-merge patch
(no need for the latest list) and, when the pod's own PreBind wrote the allocation and nobody
else uses the claim, clears it.

Device binding conditions (KEP-5007): some devices (network-attached, fabric) must be attached
before the pod can start. Such a device lists ``bindingConditions`` (and
``bindingFailureConditions``); the allocation copies them into its results, and PreBind holds the
binding until the driver reports every binding condition ``True`` in the claim's
``status.devices`` — or a failure condition ``True``, or the binding timeout passes — as
upstream's DynamicResources plugin does. The wait is woken by claim events, not by polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

import orjson

from fakeapi import klog
from fakeapi.client import RESOURCE_CLAIMS, Client, is_not_found, retry_on_conflict
from fakeapi.clock import Clock
from fakeapi.klog import kobj
from fakeapi.objects import Obj, meta
from fakeapi.rules.claims import (
    DELETE_PROTECTION_FINALIZER,
    MAX_RESERVED_FOR,
    is_reserved_for_pod,
)
from fakeapi.rules.conditions import find_status_condition
from fakeapi.scheduler.framework.status import Code, Status
from fakeapi.scheduler.framework.types import klog_name
from fakeapi.scheduler.plugins.dynamic_resources.claims import ClaimTracker
from fakeapi.scheduler.plugins.dynamic_resources.features import AllocatorFeatures
from fakeapi.scheduler.plugins.dynamic_resources.podclaims import PodClaim, consumer_for
from fakeapi.selectors.errors import go_quote
from fakeapi.timefmt import format_time, parse_time

__all__ = [
    "BINDING_TIMEOUT",
    "BindError",
    "ClaimWriter",
    "binding_verdict",
    "has_binding_conditions",
]

log = logging.getLogger("fakeapi.scheduler.dra")
#: how long PreBind waits for binding conditions (upstream's default bindingTimeout)
BINDING_TIMEOUT = 600.0
EventFn = Callable[..., None]


class ClaimWriter:
    def __init__(
        self,
        *,
        client: Client,
        tracker: ClaimTracker,
        clock: Clock,
        features: AllocatorFeatures,
        event: EventFn,
        reserved_for_workloads: bool,
    ) -> None:
        self.client = client
        self.tracker = tracker
        self.clock = clock
        self.features = features
        self.event = event
        self.reserved_for_workloads = reserved_for_workloads
        self.binding_timeout = BINDING_TIMEOUT
        self._waiters: dict[str, asyncio.Event] = {}

    def claim_changed(self, uid: str) -> None:
        """A claim event: wake a PreBind waiting for this claim's binding conditions."""
        waiter = self._waiters.get(uid)
        if waiter is not None:
            waiter.set()

    async def remove_pod_reservation(self, claim: Obj, *, pod_uid: str) -> None:
        metadata = meta(claim)
        patch = {
            "metadata": {"uid": metadata.get("uid")},
            "status": {"reservedFor": [{"$patch": "delete", "uid": pod_uid}]},
        }
        try:
            updated = await self.client.patch(
                RESOURCE_CLAIMS,
                name=metadata.get("name", ""),
                namespace=metadata.get("namespace", ""),
                patch=patch,
                patch_type="strategic",
                subresource="status",
            )
            self.tracker.assume(updated)
        except Exception as exc:
            log.warning("unreserve %s: %s", klog_name(claim), exc)

    async def write_deallocation(self, claim: Obj) -> None:
        """Clear the claim's allocation, reservations and device status; raises what the write
        raised."""
        body = orjson.loads(orjson.dumps(claim))
        status = body.setdefault("status", {})
        for key in ("allocation", "reservedFor", "devices"):
            status.pop(key, None)
        self.tracker.assume(await self.client.update_status(RESOURCE_CLAIMS, body=body))

    async def deallocate(self, claim: Obj) -> None:
        """:meth:`write_deallocation`, best effort."""
        try:
            await self.write_deallocation(claim)
        except Exception as exc:
            log.warning("deallocate %s: %s", klog_name(claim), exc)

    async def delete_claim(self, claim: Obj) -> None:
        """Take the scheduler's finalizer off a claim it made, then delete it (upstream's
        ``deleteClaim``, for extended-resource claims); raises what the writes raised."""
        metadata = meta(claim)
        namespace, name = metadata.get("namespace", ""), metadata.get("name", "")
        first = True

        async def attempt() -> None:
            nonlocal first
            current = self.current(claim) if first else await self.client.get(
                RESOURCE_CLAIMS, name=name, namespace=namespace
            )
            first = False
            current_meta = current.get("metadata") or {}
            finalizers = list(current_meta.get("finalizers") or ())
            if DELETE_PROTECTION_FINALIZER in finalizers:
                finalizers.remove(DELETE_PROTECTION_FINALIZER)
                body = {**current, "metadata": {**current_meta, "finalizers": finalizers}}
                self.tracker.assume(await self.client.update(RESOURCE_CLAIMS, body=body))

        try:
            await retry_on_conflict(attempt, clock=self.clock, delay=0.0)
            await self.client.delete(RESOURCE_CLAIMS, name=name, namespace=namespace)
        except Exception as exc:
            if not is_not_found(exc):
                raise

    def current(self, claim: Obj) -> Obj:
        metadata = meta(claim)
        return self.tracker.get(metadata.get("namespace", ""), metadata.get("name", "")) or claim

    async def bind_claim(
        self,
        *,
        pod: Obj,
        pod_claim: PodClaim,
        allocation: Obj | None,
        shared: bool,
        pod_group: Obj | None,
    ) -> tuple[Obj, bool]:
        """Write ``allocation`` (if any) and the reservation for ``pod`` into the claim.

        Returns the claim as written and whether this call wrote the allocation. ``shared``: the
        allocation is a PodGroup member's, so finding the claim already allocated for the group
        is expected, not a lost race.
        """
        wrote = False
        metadata = meta(pod_claim.claim)
        namespace, name = metadata.get("namespace", ""), metadata.get("name", "")
        first = True

        async def attempt() -> Obj:
            nonlocal first, wrote
            # the cached claim is shared with the informer: bodies are built around it, never
            # by changing it (the client does not keep or change a body it sends)
            claim: Obj
            if first:
                claim = self.current(pod_claim.claim)
                first = False
            else:
                claim = await self.client.get(RESOURCE_CLAIMS, name=name, namespace=namespace)
            if (claim.get("metadata") or {}).get("deletionTimestamp"):
                raise BindError(f"claim {namespace}/{name} got deleted in the meantime")
            status: Obj = claim.get("status") or {}
            write_allocation = allocation is not None
            if status.get("allocation"):
                if allocation is not None and not (shared or is_reserved_for_pod(pod, claim)):
                    raise BindError(
                        f"claim {namespace}/{name} got allocated elsewhere in the meantime"
                    )
                write_allocation = False
            consumer, any_pod = consumer_for(
                pod=pod,
                claim=claim,
                via_group=pod_claim.via_group,
                pod_group=pod_group,
                reserved_for_workloads=self.reserved_for_workloads,
            )
            new_status = dict(status)
            if write_allocation:
                assert allocation is not None
                metadata = claim.get("metadata") or {}
                finalizers = metadata.get("finalizers") or []
                if DELETE_PROTECTION_FINALIZER not in finalizers:
                    finalizers = [*finalizers, DELETE_PROTECTION_FINALIZER]
                    protected = {**metadata, "finalizers": finalizers}
                    claim = await self.client.update(
                        RESOURCE_CLAIMS, body={**claim, "metadata": protected}
                    )
                    self.tracker.assume(claim)
                    new_status = dict(claim.get("status") or {})
                new_allocation = dict(allocation)
                if any_pod:
                    new_allocation["reservedForAnyPod"] = True
                if self.features.device_binding_and_status:  # every allocation, as upstream
                    new_allocation["allocationTimestamp"] = format_time(self.clock.now())
                new_status["allocation"] = new_allocation
            elif is_reserved_for_pod(pod, claim):
                return claim
            reserved = list(new_status.get("reservedFor") or ())
            if not any(r.get("uid") == consumer["uid"] for r in reserved):
                if len(reserved) >= MAX_RESERVED_FOR:
                    raise BindError(
                        f"claim {namespace}/{name}: reservedFor already has "
                        f"{MAX_RESERVED_FOR} entries"
                    )
                reserved.append(consumer)
            new_status["reservedFor"] = reserved
            updated = await self.client.update_status(
                RESOURCE_CLAIMS, body={**claim, "status": new_status}
            )
            wrote = write_allocation
            return updated

        # Conflicts come from other members of a PodGroup writing the same claim; the retry
        # re-reads at once (no pause: the writes are in-process and already done).
        claim: Obj = await retry_on_conflict(attempt, clock=self.clock, delay=0.0)
        self.tracker.assume(claim)
        if log.isEnabledFor(logging.INFO):  # the fields cost more than the check
            klog.info(log, "reserved", pod=kobj(pod), resourceclaim=f"{namespace}/{name}",
                      **({"allocated": _devices(allocation)} if wrote and allocation else {}))
        return claim, wrote

    async def wait_for_binding_conditions(
        self, pod: Obj, node_name: str, claims: Sequence[Obj]
    ) -> Status | None:
        """Hold the binding until the drivers report every binding condition of the pod's claims
        true, those it allocated and those it shares alike (upstream's PreBind wait)."""
        if not self.features.device_binding_and_status:
            return None
        waiting = [
            c
            for c in claims
            if has_binding_conditions((c.get("status") or {}).get("allocation") or {})
        ]
        if not waiting:
            return None
        self.event(
            regarding={"apiVersion": "v1", "kind": "Pod", "metadata": meta(pod)},
            type="Normal",
            reason="BindingConditionsPending",
            action="Scheduling",
            note=f"waiting for binding conditions for device on node {node_name}",
        )
        for claim in waiting:
            status = await self._wait_for_binding(claim)
            if status is not None:
                return status
        return None

    def binding_deadline(self, claim: Obj) -> float:
        """When, on the monotonic clock, the claim's binding conditions run out of time: the
        timeout counts from ``allocationTimestamp`` (whoever allocated it), as upstream's."""
        stamp = ((claim.get("status") or {}).get("allocation") or {}).get("allocationTimestamp")
        elapsed = 0.0
        if isinstance(stamp, str):
            with contextlib.suppress(ValueError):
                elapsed = max(0.0, (self.clock.now() - parse_time(stamp)).total_seconds())
        return self.clock.monotonic() + self.binding_timeout - elapsed

    def binding_blocked(self, claim: Obj) -> bool:
        """The allocated claim's binding failed or timed out: it must be allocated again (upstream
        Filter's ``isClaimReadyForBinding``/``isClaimTimeout``)."""
        if not self.features.device_binding_and_status:
            return False
        allocation = (claim.get("status") or {}).get("allocation") or {}
        if not has_binding_conditions(allocation):
            return False
        verdict = binding_verdict(claim)
        if isinstance(verdict, str):
            return True
        return verdict is False and self.binding_deadline(claim) <= self.clock.monotonic()

    async def _wait_for_binding(self, claim: Obj) -> Status | None:
        uid = meta(claim).get("uid", "")
        deadline = self.binding_deadline(claim)
        waiter = self._waiters.setdefault(uid, asyncio.Event())
        try:
            while True:
                current = self.current(claim)
                verdict = binding_verdict(current)
                if verdict is True:
                    return None
                if isinstance(verdict, str):  # an error, as upstream's PreBind returns it
                    return Status(Code.ERROR, (verdict,))
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0:  # upstream's isPodReadyForBinding error
                    name = meta(claim).get("name", "")
                    return Status(Code.ERROR, (f"claim {name} binding timeout",))
                waiter.clear()
                timer = asyncio.ensure_future(self.clock.sleep(remaining))
                changed = asyncio.ensure_future(waiter.wait())
                try:
                    await asyncio.wait({timer, changed}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for task in (timer, changed):
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await task
        finally:
            self._waiters.pop(uid, None)


class BindError(Exception):
    """Writing a claim's allocation or reservation failed for a reason a retry cannot fix."""


def _devices(allocation: Obj) -> list[str]:
    """``driver/pool/device`` of every result of an allocation (for the log)."""
    results = (allocation.get("devices") or {}).get("results") or ()
    return [f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}" for r in results]


def has_binding_conditions(allocation: Obj) -> bool:
    return any(
        r.get("bindingConditions") for r in (allocation.get("devices") or {}).get("results") or ()
    )


def binding_verdict(claim: Obj) -> bool | str:
    """True when every binding condition holds, a message when a failure condition holds,
    False while still waiting."""
    status = claim.get("status") or {}
    devices = {
        (d.get("driver"), d.get("pool"), d.get("device"), d.get("shareID") or ""): d
        for d in status.get("devices") or ()
    }
    ready = True
    for result in ((status.get("allocation") or {}).get("devices") or {}).get("results") or ():
        wanted = result.get("bindingConditions") or ()
        failures = result.get("bindingFailureConditions") or ()
        if not wanted and not failures:
            continue
        entry = (
            devices.get(
                (
                    result.get("driver"),
                    result.get("pool"),
                    result.get("device"),
                    result.get("shareID") or "",
                )
            )
            or {}
        )
        conditions = {c.get("type"): c.get("status") for c in entry.get("conditions") or ()}
        for failure in failures:
            failed = find_status_condition(entry.get("conditions") or (), failure)
            if failed is not None and failed.get("status") == "True":
                # upstream's isClaimReadyForBinding: the driver's reason and message
                name = meta(claim).get("name", "")
                return (
                    f"claim {name} binding failed: reason={failed.get('reason') or ''}, "
                    f"message={go_quote(str(failed.get('message') or ''))}"
                )
        if not all(conditions.get(c) == "True" for c in wanted):
            ready = False
    return ready
