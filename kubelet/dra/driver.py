"""A simulated DRA driver: publishes its pools, prepares claims, streams device health.

One :class:`SimulatedDriver` per (profile, kubelet) — or one per cluster for a ``scope: cluster``
profile run by :class:`~fakeapi.kubelet.ClusterDriver`. It plays both halves of a real driver:

- **Publishing** (the driver's resourceslice controller): a level-based loop compares the slices
  it wants (the profile rendered for its node, cut by :mod:`.slices`) with those in the API and
  creates, updates or deletes until they agree. A pool whose content changed is rewritten at the
  next ``pool.generation``. Stopping (unregistering) the driver removes its slices.
- **Node operations** (the kubelet plugin's gRPC service, as plain methods):
  :meth:`prepare` / :meth:`unprepare` are NodePrepareResources / NodeUnprepareResources for one
  claim. Both are idempotent. Prepare re-checks that every device allocated to this driver exists
  in its pools, returns CDI device IDs (``<vendor>/<class>=<device>``) and writes the claim's
  ``status.devices`` entries for its devices; unprepare forgets the claim and removes them.
- **Health** (KEP-4680's ``NodeHealth.WatchResources`` stream): every
  ``health_interval_seconds`` of the clock the driver hands the full list of its devices' health
  to a sink (the kubelet's health cache) unless it has been silenced.

Fault injection changes the driver's own state only (health of a device, silenced, stopped); the
kubelet observes the consequences the same way it would observe a real driver.

A profile may name a :class:`DriverBehavior`: user code the driver consults after its own checks,
deciding what prepare returns or that it fails, whether unprepare fails, and what each health
message says. An exception other than the operation's own error fails the operation with the
exception's text, as a driver's gRPC error would.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi.client import (
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    WorkQueue,
    end_tasks,
    is_already_exists,
    is_conflict,
    is_invalid,
    is_not_found,
    retry_on_conflict,
)
from fakeapi.clock import Clock
from fakeapi.kubelet.dra.profiles import DriverProfile, RenderedPool
from fakeapi.kubelet.dra.slices import pool_slices, slices_current
from fakeapi.objects import Obj
from fakeapi.timefmt import format_time

__all__ = [
    "ClaimID",
    "DeviceHealthReport",
    "DriverBehavior",
    "HealthSink",
    "PrepareError",
    "PreparedClaim",
    "SimulatedDriver",
    "UnprepareError",
]

log = logging.getLogger("fakeapi.kubelet.dra")

_PUBLISH = "publish"


class PrepareError(Exception):
    """NodePrepareResources failed for a claim; the message says why (shown in pod events)."""


class UnprepareError(Exception):
    """NodeUnprepareResources could not be called (the driver is not registered): the pod's
    claims stay prepared, and the pod is neither reported terminal nor deleted, until it can."""


@dataclass(frozen=True, slots=True)
class DeviceHealthReport:
    """One device in a health stream message (``DeviceHealth`` of dra-health/v1alpha1)."""

    pool: str
    device: str
    health: str
    message: str
    last_updated: float
    timeout_seconds: int | None


HealthSink = Callable[[str, Sequence[DeviceHealthReport]], None]


@dataclass(frozen=True, slots=True)
class ClaimID:
    """A ResourceClaim as the DRA gRPC API names it (``Claim``: namespace, UID, name)."""

    namespace: str
    uid: str
    name: str


@dataclass(frozen=True, slots=True)
class PreparedClaim:
    """What NodePrepareResources returned for one claim."""

    uid: str
    namespace: str
    name: str
    #: (pool, device, shareID or "") of this driver's allocated devices
    devices: tuple[tuple[str, str, str], ...]
    cdi_device_ids: tuple[str, ...]
    #: the CDI device IDs of each device of ``devices``, in order; empty: one each, the
    #: ``cdi_device_ids`` in order (what the simulated drivers return)
    device_cdi_ids: tuple[tuple[str, ...], ...] = ()

    def cdi_ids_by_device(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        """(pool, device, shareID or "") -> the CDI device IDs returned for that device."""
        if self.device_cdi_ids:
            return dict(zip(self.devices, self.device_cdi_ids, strict=False))
        return {
            device: (cdi,) for device, cdi in zip(self.devices, self.cdi_device_ids, strict=False)
        }


class DriverBehavior:
    """What a simulated driver's node operations answer, decided in Python.

    Subclass it, override what you need, and name the class in a driver profile (``behavior:
    mypackage.drivers:FlakyGpu``; in Python ``dataclasses.replace(profile, behavior=FlakyGpu)``).
    Each driver instance (one per node for a node-scoped profile) makes its own, with itself as
    ``driver`` (its ``name``, ``node_name``, ``clock``, ``profile``, ``device_names()``).
    """

    def __init__(self, driver: SimulatedDriver) -> None:
        self.driver = driver

    async def prepare(self, claim: Obj, prepared: PreparedClaim) -> PreparedClaim:
        """NodePrepareResources of ``claim``, once the driver's own checks passed: return the
        result (``prepared``, or a copy with other CDI device IDs), or raise
        :class:`PrepareError` to fail it (the kubelet retries with back-off)."""
        return prepared

    async def unprepare(self, prepared: PreparedClaim) -> None:
        """NodeUnprepareResources of a claim this driver prepared; raise
        :class:`UnprepareError` to fail it (the claim stays prepared, the kubelet retries)."""

    def health(self, reports: list[DeviceHealthReport]) -> Sequence[DeviceHealthReport]:
        """The health message about to be streamed; return it as it should be sent."""
        return reports


def _failed_with(error: type[Exception], exc: Exception) -> Exception:
    """A behaviour's own error as is; anything else as the operation's error, with its text."""
    if isinstance(exc, error):
        return exc
    return error(f"{type(exc).__name__}: {exc}")


class SimulatedDriver:
    """One driver instance; see the module docstring for what it simulates."""

    def __init__(
        self,
        *,
        profile: DriverProfile,
        client: Client,
        clock: Clock,
        node_name: str = "",
        list_slices: Callable[[], list[Obj]] | None = None,
        publish: bool = True,
        owner: Callable[[], Obj | None] | None = None,
        status_client: Client | None = None,
    ) -> None:
        self.profile = profile
        self.name = profile.driver
        self.client = client
        #: what writes the claims' ``status.devices``: the driver's own identity (its kubelet
        #: plugin's service account) where the cluster authorizes requests, else ``client``
        self.status_client = status_client or client
        self.clock = clock
        self.node_name = node_name
        self._list_slices = list_slices
        self._publish_enabled = publish and list_slices is not None
        #: the owner reference of the slices it publishes (the node's Node); when it answers
        #: None the owner is gone and nothing is published
        self._owner = owner
        self._pools = profile.render(node=node_name)
        self._devices = {(p.name, d["name"]) for p in self._pools for d in p.devices}
        self._health: dict[tuple[str, str], tuple[str, str]] = {}
        self._prepared: dict[str, PreparedClaim] = {}
        self._written: dict[str, tuple[list[Obj], dict[str, str]]] = {}
        self._queue: WorkQueue[str] = WorkQueue(clock=clock, name="dra_driver")
        self._tasks: list[asyncio.Task[None]] = []
        self._sink: HealthSink | None = None
        self.running = False
        self.silenced = False
        make_behavior = profile.behavior_factory()
        #: the profile's DriverBehavior, consulted by prepare, unprepare and health
        self.behavior: DriverBehavior | None = (
            make_behavior(self) if make_behavior is not None else None
        )

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self, *, health_sink: HealthSink | None = None) -> None:
        """Register: start publishing and streaming health (idempotent)."""
        if self.running:
            return
        self.running = True
        self._sink = health_sink
        self._queue = WorkQueue(clock=self.clock, name="dra_driver")
        loop = asyncio.get_running_loop()
        if self._publish_enabled:
            self._tasks.append(loop.create_task(self._publish_loop(), name=f"{self.name} slices"))
            self._queue.add(_PUBLISH)
        if self.profile.reports_health and health_sink is not None:
            self._tasks.append(loop.create_task(self._health_loop(), name=f"{self.name} health"))

    def resync(self) -> None:
        """Something about the published slices changed: compare and republish if needed."""
        if self.running and self._publish_enabled:
            self._queue.add(_PUBLISH)

    async def stop(self, *, remove_slices: bool = True) -> None:
        """Unregister: stop streaming and publishing; by default delete the driver's slices."""
        if not self.running:
            return
        self.running = False
        self._queue.shutdown()
        tasks, self._tasks = self._tasks, []
        await end_tasks(tasks)
        if remove_slices and self._publish_enabled:
            await self._delete_all_slices()

    # --- publishing ---------------------------------------------------------------------------
    @property
    def pools(self) -> list[RenderedPool]:
        return list(self._pools)

    def device_names(self) -> list[tuple[str, str]]:
        """(pool, device) of every device the driver has."""
        return sorted(self._devices)

    def _own_slices(self) -> list[Obj]:
        assert self._list_slices is not None
        return [
            s
            for s in self._list_slices()
            if (s.get("spec") or {}).get("driver") == self.name
            and (s.get("spec") or {}).get("nodeName", "") == self.node_name
        ]

    async def _publish_loop(self) -> None:
        while (key := await self._queue.get()) is not None:
            try:
                await self.publish()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("%s on %s: publishing failed: %s", self.name, self.node_name, exc)
                self._queue.add_rate_limited(key)
            else:
                self._queue.forget(key)
            finally:
                self._queue.done(key)

    async def publish(self) -> None:
        """Make the API's slices of this driver (and node) equal the rendered pools."""
        existing = self._own_slices()
        by_pool: dict[str, list[Obj]] = {}
        for obj in existing:
            by_pool.setdefault(obj["spec"]["pool"]["name"], []).append(obj)
        for pool in self._pools:
            await self._publish_pool(pool, by_pool.pop(pool.name, []))
        for stale in by_pool.values():
            for obj in stale:
                await self._delete_slice(obj["metadata"]["name"])

    async def _publish_pool(self, pool: RenderedPool, published: list[Obj]) -> None:
        generation = max((s["spec"]["pool"].get("generation", 0) for s in published), default=0)
        owner = self._owner() if self._owner is not None else None
        if self._owner is not None and owner is None:
            return  # the owner (the node's Node) is gone: nothing to publish for it
        desired = pool_slices(
            pool=pool, driver=self.name, generation=max(generation, 1), owner=owner
        )
        versions = {s["metadata"]["name"]: s["metadata"].get("resourceVersion", "")
                    for s in published}
        written = self._written.get(pool.name)
        if written is not None and written[1] == versions and _specs(written[0]) == _specs(
            desired
        ):
            return  # exactly what we wrote last, untouched since
        if published and slices_current(published=published, desired=desired):
            self._written[pool.name] = (desired, versions)
            return
        if published:
            desired = pool_slices(
                pool=pool, driver=self.name, generation=generation + 1, owner=owner
            )
        current = {s["metadata"]["name"]: s for s in published}
        new_versions: dict[str, str] = {}
        for body in desired:
            name = body["metadata"]["name"]
            old = current.pop(name, None)
            if old is None:
                try:
                    stored = await self.client.create(RESOURCE_SLICES, body=body)
                except Exception as exc:
                    if not is_already_exists(exc):
                        raise
                    old = await self.client.get(RESOURCE_SLICES, name=name)
            if old is not None:
                update = {**body, "metadata": {**body["metadata"],
                                               "resourceVersion": old["metadata"]
                                               ["resourceVersion"]}}
                stored = await self.client.update(RESOURCE_SLICES, body=update)
            new_versions[name] = stored["metadata"].get("resourceVersion", "")
        for name in current:
            await self._delete_slice(name)
        self._written[pool.name] = (desired, new_versions)

    async def _delete_slice(self, name: str) -> None:
        try:
            await self.client.delete(RESOURCE_SLICES, name=name)
        except Exception as exc:
            if not is_not_found(exc):
                raise

    async def _delete_all_slices(self) -> None:
        if self.node_name:
            selector = f"spec.nodeName={self.node_name},spec.driver={self.name}"
        else:
            selector = f"spec.driver={self.name}"
        try:
            if self.node_name:
                await self.client.delete_collection(RESOURCE_SLICES, field_selector=selector)
            else:  # cluster-scoped pools: only those this driver renders (not other instances')
                pools = {p.name for p in self._pools}
                for obj in (await self.client.list(RESOURCE_SLICES, field_selector=selector)).items:
                    if obj["spec"]["pool"]["name"] in pools and not obj["spec"].get("nodeName"):
                        await self._delete_slice(obj["metadata"]["name"])
        except Exception as exc:
            log.warning("%s on %s: removing slices failed: %s", self.name, self.node_name, exc)
        self._written.clear()

    # --- node operations ----------------------------------------------------------------------
    def prepared(self) -> dict[str, PreparedClaim]:
        """The claims this driver has prepared, by claim UID."""
        return dict(self._prepared)

    async def prepare(self, claim: Obj) -> PreparedClaim:
        """NodePrepareResources for one allocated claim; idempotent. Raises PrepareError."""
        meta = claim.get("metadata") or {}
        uid = str(meta.get("uid") or "")
        known = self._prepared.get(uid)
        if known is not None:
            return known
        if not self.running:
            raise PrepareError(f"DRA driver {self.name} is not registered")
        results = [
            r
            for r in ((claim.get("status") or {}).get("allocation") or {})
            .get("devices", {})
            .get("results")
            or []
            if r.get("driver") == self.name
        ]
        devices: list[tuple[str, str, str]] = []
        for result in results:
            pool, device = str(result.get("pool")), str(result.get("device"))
            if (pool, device) not in self._devices:
                raise PrepareError(
                    f"device {self.name}/{pool}/{device} allocated to claim "
                    f"{meta.get('namespace')}/{meta.get('name')} does not exist on this node"
                )
            devices.append((pool, device, str(result.get("shareID") or "")))
        prepared = PreparedClaim(
            uid=uid,
            namespace=str(meta.get("namespace") or ""),
            name=str(meta.get("name") or ""),
            devices=tuple(devices),
            cdi_device_ids=tuple(self.profile.cdi_device_id(d) for _, d, _ in devices),
        )
        if self.behavior is not None:
            try:
                prepared = await self.behavior.prepare(claim, prepared)
            except Exception as exc:
                raise _failed_with(PrepareError, exc) from exc
        await self._write_device_status(prepared, present=True)
        self._prepared[uid] = prepared
        return prepared

    async def prepare_claims(self, claims: Sequence[Obj]) -> dict[str, PreparedClaim]:
        """NodePrepareResources for the claims of one pod (one at a time: each is its own
        in-process call); by claim UID."""
        out: dict[str, PreparedClaim] = {}
        for claim in claims:
            try:
                prepared = await self.prepare(claim)
            except PrepareError as exc:  # the claim's own error, as the kubelet reports it
                name = (claim.get("metadata") or {}).get("name")
                raise PrepareError(
                    f"NodePrepareResources failed for ResourceClaim {name}: {exc}") from exc
            out[prepared.uid] = prepared
        return out

    async def unprepare_claims(self, claims: Sequence[ClaimID]) -> None:
        """NodeUnprepareResources for claims no pod on the node uses any more."""
        for claim in claims:
            await self.unprepare(uid=claim.uid, namespace=claim.namespace, name=claim.name)

    async def unprepare(self, *, uid: str, namespace: str, name: str) -> None:
        """NodeUnprepareResources for one claim; a claim never prepared is fine."""
        if self.behavior is not None and uid in self._prepared:
            try:
                await self.behavior.unprepare(self._prepared[uid])
            except Exception as exc:
                raise _failed_with(UnprepareError, exc) from exc
        prepared = self._prepared.pop(uid, None)
        if prepared is not None and prepared.devices:
            await self._write_device_status(prepared, present=False)

    async def _write_device_status(self, prepared: PreparedClaim, *, present: bool) -> None:
        if not prepared.devices:
            return
        now = format_time(self.clock.now())

        async def write() -> None:
            claim = await self.status_client.get(
                RESOURCE_CLAIMS, namespace=prepared.namespace, name=prepared.name
            )
            if str((claim.get("metadata") or {}).get("uid")) != prepared.uid:
                return  # a new claim under the old name: not ours to touch
            status = claim.setdefault("status", {})
            mine = {(pool, device, share) for pool, device, share in prepared.devices}
            kept: list[Obj] = []
            earlier: dict[tuple[Any, ...], Obj] = {}  # this driver's entries for these devices
            for entry in status.get("devices") or []:
                key = (entry.get("pool"), entry.get("device"), entry.get("shareID") or "")
                if entry.get("driver") == self.name and key in mine:
                    earlier[key] = entry
                else:
                    kept.append(entry)
            if present:
                for (pool, device, share), cdi in zip(
                    prepared.devices, prepared.cdi_device_ids, strict=True
                ):
                    # conditions others reported (the attach of binding conditions) stay
                    others = [
                        c
                        for c in (earlier.get((pool, device, share)) or {}).get("conditions") or ()
                        if c.get("type") != "Ready"
                    ]
                    written: Obj = {
                        "driver": self.name,
                        "pool": pool,
                        "device": device,
                        "conditions": [
                            *others,
                            {
                                "type": "Ready",
                                "status": "True",
                                "reason": "DevicePrepared",
                                "message": "prepared by the DRA driver",
                                "lastTransitionTime": now,
                            },
                        ],
                        "data": {"cdiDeviceIDs": [cdi]},
                    }
                    if share:
                        written["shareID"] = share
                    kept.append(written)
            if kept == (status.get("devices") or []):
                return
            status["devices"] = kept or None
            await self.status_client.update_status(RESOURCE_CLAIMS, body=claim)

        try:
            await retry_on_conflict(write, clock=self.clock)
        except Exception as exc:
            if is_not_found(exc) or (not present and (is_invalid(exc) or is_conflict(exc))):
                return  # claim gone or deallocated meanwhile: nothing left to report
            raise

    # --- health -------------------------------------------------------------------------------
    def set_health(self, *, device: str, health: str, message: str = "", pool: str = "") -> None:
        """Fault injection: what the driver will report for ``device`` from now on."""
        matches = [(p, d) for p, d in self._devices if d == device and (not pool or p == pool)]
        if not matches:
            raise KeyError(f"{self.name} has no device {device!r}")
        for key in matches:
            if health == "Healthy" and not message:
                self._health.pop(key, None)
            else:
                self._health[key] = (health, message)

    def set_unhealthy(self, devices: Mapping[str, str]) -> None:
        """Replace the injected faults: ``devices`` (name -> message) Unhealthy, others Healthy."""
        self._health = {
            (pool, device): ("Unhealthy", devices[device])
            for pool, device in self._devices
            if device in devices
        }

    def health_reports(self) -> list[DeviceHealthReport]:
        now = self.clock.now().timestamp()
        reports = [
            DeviceHealthReport(
                pool=pool,
                device=device,
                health=self._health.get((pool, device), ("Healthy", ""))[0],
                message=self._health.get((pool, device), ("Healthy", ""))[1],
                last_updated=now,
                timeout_seconds=self.profile.health_timeout_seconds,
            )
            for pool, device in sorted(self._devices)
        ]
        return reports if self.behavior is None else list(self.behavior.health(reports))

    def send_health(self) -> None:
        """Stream one message now (also what the periodic loop does), unless silenced."""
        if self._sink is not None and self.running and not self.silenced:
            self._sink(self.name, self.health_reports())

    async def _health_loop(self) -> None:
        while True:
            self.send_health()
            await self.clock.sleep(self.profile.health_interval_seconds)


def _specs(slices: list[Obj]) -> list[Obj]:
    """What of ``slices`` must match for a pool to count as published: names, owners and specs
    (generation aside)."""
    out = []
    for body in slices:
        spec = dict(body["spec"])
        spec["pool"] = {k: v for k, v in spec["pool"].items() if k != "generation"}
        meta = body["metadata"]
        out.append({"name": meta["name"], "owners": meta.get("ownerReferences"), "spec": spec})
    return out
