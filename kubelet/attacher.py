"""Attaching devices for their binding conditions (KEP-5007): the control-plane half of a driver.

A device that must be attached before a pod may use it (a fabric-attached accelerator, a
composable device) lists ``bindingConditions`` (and ``bindingFailureConditions``) in its slice.
The scheduler copies them into the claim's allocation and holds the pod in PreBind until they
are all ``True`` in the claim's ``status.devices`` — or a failure condition is, or the binding
timeout passes. Upstream, the driver's own controller does the attaching and reports it.

:class:`DeviceAttacher` is that controller for a simulated driver. For every allocated claim
with results of its driver that carry binding conditions, it waits ``attach.delaySeconds`` of the
profile (on the injected clock; default 1 s) and then writes the device's ``status.devices``
entry with each binding condition ``True`` (reason ``Attached``). A claim annotated
``fakeapi.dev/fault-attach-failed: "true"`` gets its device's first binding failure condition
``True`` instead (reason ``AttachFailed``), so tests can drive the failure path. Conditions
already reported are left alone: the work is level-based and idempotent, and a claim
deallocated or replaced meanwhile is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fakeapi.client import RESOURCE_CLAIMS, Client, Informer, is_not_found, retry_on_conflict
from fakeapi.clock import Clock
from fakeapi.kubelet.dispatch import Dispatcher
from fakeapi.objects import Obj
from fakeapi.timefmt import format_time

__all__ = ["ANNOTATION_ATTACH_FAILED", "DeviceAttacher"]

log = logging.getLogger("fakeapi.kubelet.attacher")

ANNOTATION_ATTACH_FAILED = "fakeapi.dev/fault-attach-failed"
#: the dispatcher of the claims informer by the drivers of results with binding conditions
_DISPATCH = "attach-drivers"


def _results(claim: Obj) -> list[Obj]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or ()
    return [r for r in results if isinstance(r, dict)]


def _attach_drivers(claim: Obj) -> list[str]:
    return sorted({str(r.get("driver")) for r in _results(claim) if r.get("bindingConditions")})


def _device_key(entry: Obj) -> tuple[str, str, str, str]:
    return (
        str(entry.get("driver") or ""),
        str(entry.get("pool") or ""),
        str(entry.get("device") or ""),
        str(entry.get("shareID") or ""),
    )


class DeviceAttacher:
    """Reports the binding conditions of one driver's devices; ``start()`` / ``stop()``."""

    def __init__(
        self, *, client: Client, claims: Informer, clock: Clock, driver: str, delay: float
    ) -> None:
        self.client = client
        self.clock = clock
        self.driver = driver
        self.delay = delay
        self._claims = claims
        self._dispatch = Dispatcher.of(claims, name=_DISPATCH, keys=_attach_drivers)
        #: claim uid -> the task attaching its devices
        self._attaching: dict[str, asyncio.Task[None]] = {}

    def start(self) -> None:
        """Watch for claims to attach, and take up those already waiting (allocated while this
        controller was stopped, or whose attach a stop cut short)."""
        self._dispatch.subscribe(self.driver, self._changed)
        for claim in self._claims.list():
            if self.driver in _attach_drivers(claim):
                self._changed(claim)

    async def stop(self) -> None:
        self._dispatch.unsubscribe(self.driver, self._changed)
        tasks = list(self._attaching.values())
        self._attaching.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _changed(self, claim: Obj) -> None:
        uid = str((claim.get("metadata") or {}).get("uid") or "")
        if not uid or uid in self._attaching or not self._wanted(claim):
            return
        meta = claim.get("metadata") or {}
        task = asyncio.create_task(
            self._attach(uid, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        )
        self._attaching[uid] = task

    def _wanted(self, claim: Obj) -> list[Obj]:
        """The ``status.devices`` entries to write: this driver's devices with binding
        conditions that are not reported yet (empty: nothing to do)."""
        failing = (
            ((claim.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_ATTACH_FAILED)
            == "true"
        )
        reported = {
            _device_key(entry): {
                c.get("type") for c in entry.get("conditions") or () if c.get("status") == "True"
            }
            for entry in (claim.get("status") or {}).get("devices") or ()
        }
        wanted: list[Obj] = []
        for result in _results(claim):
            conditions = result.get("bindingConditions") or []
            if result.get("driver") != self.driver or not conditions:
                continue
            failures = result.get("bindingFailureConditions") or []
            if failing and failures:
                types, reason = [failures[0]], "AttachFailed"
            else:
                types, reason = list(conditions), "Attached"
            key = (self.driver, str(result.get("pool")), str(result.get("device")),
                   str(result.get("shareID") or ""))
            if not set(types) <= reported.get(key, set()):
                wanted.append({"key": key, "types": types, "reason": reason})
        return wanted

    async def _attach(self, uid: str, namespace: str, name: str) -> None:
        try:
            await self.clock.sleep(self.delay)
            await retry_on_conflict(lambda: self._write(uid, namespace, name), clock=self.clock)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not is_not_found(exc):
                log.warning("attaching devices of claim %s/%s: %s", namespace, name, exc)
        finally:
            if self._attaching.get(uid) is asyncio.current_task():
                del self._attaching[uid]

    async def _write(self, uid: str, namespace: str, name: str) -> None:
        claim = await self.client.get(RESOURCE_CLAIMS, namespace=namespace, name=name)
        if str((claim.get("metadata") or {}).get("uid")) != uid:
            return  # a new claim under the old name: it gets its own attach
        wanted = self._wanted(claim)
        if not wanted:
            return  # deallocated meanwhile, or reported already
        now = format_time(self.clock.now())
        status = claim.setdefault("status", {})
        entries: list[Obj] = list(status.get("devices") or [])
        for item in wanted:
            driver, pool, device, share = item["key"]
            entry = next((e for e in entries if _device_key(e) == item["key"]), None)
            if entry is None:
                entry = {"driver": driver, "pool": pool, "device": device}
                if share:
                    entry["shareID"] = share
                entries.append(entry)
            kept = [c for c in entry.get("conditions") or () if c.get("type") not in item["types"]]
            verb = "failed to attach" if item["reason"] == "AttachFailed" else "attached"
            entry["conditions"] = kept + [
                {
                    "type": type_,
                    "status": "True",
                    "reason": item["reason"],
                    "message": f"{verb} by the {self.driver} controller",
                    "lastTransitionTime": now,
                }
                for type_ in item["types"]
            ]
        status["devices"] = entries
        await self.client.update_status(RESOURCE_CLAIMS, body=claim)
