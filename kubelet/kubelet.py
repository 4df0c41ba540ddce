"""A simulated kubelet: one node, its pods, its DRA drivers, its device health.

A real actor against the API (only :mod:`fakeapi.client`): it follows the pods bound to its node
(``spec.nodeName``), its own Node (for fault annotations), its node's ResourceSlices and the
ResourceClaims its pods use — through the cluster's shared informers, with :mod:`.dispatch`
routing each change to the one kubelet it concerns, which is what a per-node field-selector watch
would give a real kubelet — and reconciles one pod key at a time from current state:

1. **Admission** (pods not yet running): every claim must exist, be allocated for this node and
   reserved for the pod, its PodGroup, or any pod (:mod:`.admission`). Otherwise the pod stays
   Pending with a ``FailedPrepareDynamicResources`` Warning event and is retried with back-off
   (and at once when one of its claims changes).
2. **Prepare**: each driver named in a claim's allocation prepares it (NodePrepareResources),
   which returns CDI device IDs and writes the claim's ``status.devices``.
3. **Stages**: the lifecycle stages (:mod:`.stages`, timed by :mod:`.engine`) move the pod
   through its phases; the kubelet writes each stage's status with a strategic-merge patch of
   ``pods/status``, records its events and, for graceful deletion, deletes the pod with grace
   period 0 once its containers are stopped — after unpreparing claims no other pod here uses.
   Claims are also unprepared when a pod reaches Succeeded or Failed.
4. **Health**: drivers stream device health into a :class:`~.dra.health.HealthCache`; whenever a
   device used by a pod changes health (or times out to Unknown) the pod's
   ``allocatedResourcesStatus`` is rewritten — for terminated pods too, as long as they exist.

On start the kubelet registers its Node, deletes its node's ResourceSlices (deletecollection by
``spec.nodeName``) and registers its drivers, which publish afresh. Faults can be injected from
Python (methods below) or through Node annotations (:mod:`.faults`, docs/kubelet.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    NODES,
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    EventRecorder,
    InformerFactory,
    Preconditions,
    WorkQueue,
    is_conflict,
    is_not_found,
    object_key,
)
from fakeapi.clock import Clock
from fakeapi.features import enabled
from fakeapi.kubelet.admission import NotAdmittedError, check_claim, pod_claim_refs, pod_group_name
from fakeapi.kubelet.default_stages import DEFAULT_STAGES_YAML
from fakeapi.kubelet.dispatch import Dispatcher, field_key
from fakeapi.kubelet.dra.driver import DeviceHealthReport, PrepareError, SimulatedDriver
from fakeapi.kubelet.dra.health import (
    DEFAULT_HEALTH_TIMEOUT_SECONDS,
    AllocatedDevice,
    HealthCache,
    containers_using,
    pod_health_status,
)
from fakeapi.kubelet.dra.profiles import DriverProfile
from fakeapi.kubelet.engine import StageEngine
from fakeapi.kubelet.faults import NodeFaults, faults_from_node
from fakeapi.kubelet.node import LEASE_RENEW_INTERVAL, NodeAgent
from fakeapi.kubelet.stages import Stage, StageContext, apply_steps, parse_stages
from fakeapi.timefmt import format_time

__all__ = ["Kubelet"]

log = logging.getLogger("fakeapi.kubelet")

Obj = dict[str, Any]
#: index names on the shared informers are shared too: name them by what they index
NODE_NAME_INDEX = "spec.nodeName"
_CLAIM_INDEX = "resourceClaimNames"
_ADMISSION_BACKOFF = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
_HEALTH_CHECK_PERIOD = 1.0
_STATUS_KEYS = (
    "phase",
    "conditions",
    "containerStatuses",
    "initContainerStatuses",
    "hostIP",
    "hostIPs",
    "podIP",
    "podIPs",
    "startTime",
    "allocatedResourcesStatus",
)


def _node_name(obj: Obj) -> list[str]:
    """Index values: the object's ``spec.nodeName`` (pods, ResourceSlices)."""
    name = (obj.get("spec") or {}).get("nodeName")
    return [name] if isinstance(name, str) and name else []


def _own_key(obj: Obj) -> list[str]:
    return [object_key(obj)]


def _claim_index(pod: Obj) -> list[str]:
    """Index values ``<namespace>/<claim name>`` for every claim the pod names directly."""
    namespace = (pod.get("metadata") or {}).get("namespace")
    entries = (pod.get("spec") or {}).get("resourceClaims") or []
    names = [e.get("resourceClaimName") for e in entries]
    names += [
        s.get("resourceClaimName")
        for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    ]
    return [f"{namespace}/{n}" for n in names if n]


@dataclass(slots=True)
class _PodState:
    uid: str
    admitted: bool = False
    #: claim uid -> (namespace, name, drivers that prepared it)
    claims: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    devices: list[AllocatedDevice] = field(default_factory=list)
    released: bool = False
    attempts: int = 0
    pod_ip: str = ""
    #: the claims (namespace/name) this kubelet listens to on the pod's behalf
    claim_keys: frozenset[str] = frozenset()


@dataclass(slots=True)
class _LocalFaults:
    unhealthy: dict[tuple[str, str], str] = field(default_factory=dict)
    silenced: set[str] = field(default_factory=set)
    stopped: set[str] = field(default_factory=set)
    node_stopped: bool = False


class Kubelet:
    """One simulated node; see the module docstring. ``start()`` / ``stop()`` (idempotent)."""

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        node_name: str,
        drivers: Sequence[DriverProfile] = (),
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        stages: Sequence[Stage] | None = None,
        capacity: Mapping[str, str] | None = None,
        labels: Mapping[str, str] | None = None,
        node_index: int | None = None,
        health_timeout_seconds: float = DEFAULT_HEALTH_TIMEOUT_SECONDS,
        workers: int = 2,
    ) -> None:
        self.client = client
        self.informers = informers
        self.clock = clock
        self.rng = rng
        self.node_name = node_name
        self.feature_gates = dict(feature_gates or {})
        #: KEP-4680: without the gate the kubelet reports no device health in pod status
        self.reports_health = enabled(self.feature_gates, "ResourceHealthStatus")
        self.metrics = metrics
        self.workers = workers
        self.engine = StageEngine(
            stages=stages if stages is not None else parse_stages(DEFAULT_STAGES_YAML), rng=rng
        )
        self.node = NodeAgent(
            client=client, clock=clock, node_name=node_name, capacity=capacity, labels=labels,
            node_index=node_index,
        )
        self.health = HealthCache(default_timeout=health_timeout_seconds)
        self.events = EventRecorder(client, component="kubelet", clock=clock, instance=node_name)
        self.profiles = {p.driver: p for p in drivers}
        self.drivers: dict[str, SimulatedDriver] = {}
        self._queue: WorkQueue[str] = WorkQueue(clock=clock, name="kubelet", metrics=metrics)
        self._pods_state: dict[str, _PodState] = {}
        self._claim_users: dict[str, set[str]] = {}
        self._device_users: dict[str, set[str]] = {}
        self._local = _LocalFaults()
        self._api = NodeFaults()
        self._tasks: list[asyncio.Task[None]] = []
        self._fault_tasks: set[asyncio.Task[None]] = set()
        self._faults_lock = asyncio.Lock()
        self._events_closed = False
        self._next_ip = 2
        self.running = False
        # the cluster-wide shared informers, routed to this node by dispatchers (see .dispatch)
        self._pods = informers.informer(PODS)
        self._nodes = informers.informer(NODES)
        self._slices = informers.informer(RESOURCE_SLICES)
        self._claims = informers.informer(RESOURCE_CLAIMS)
        for informer, index, keys in (
            (self._pods, NODE_NAME_INDEX, _node_name),
            (self._pods, _CLAIM_INDEX, _claim_index),
            (self._slices, NODE_NAME_INDEX, _node_name),
        ):
            with contextlib.suppress(ValueError):  # another kubelet added it already
                informer.add_index(index, keys)
        self._pod_dispatch = Dispatcher.of(self._pods, name=NODE_NAME_INDEX, keys=_node_name)
        self._node_dispatch = Dispatcher.of(
            self._nodes, name="metadata.name", keys=field_key("metadata", "name")
        )
        self._slice_dispatch = Dispatcher.of(self._slices, name=NODE_NAME_INDEX, keys=_node_name)
        self._claim_dispatch = Dispatcher.of(self._claims, name=_CLAIM_INDEX, keys=_own_key)

    # --- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        if self.running:
            return
        self.running = True
        self._queue = WorkQueue(clock=self.clock, name="kubelet", metrics=self.metrics)
        if self._events_closed:  # started again after stop(): a fresh recorder
            self._events_closed = False
            self.events = EventRecorder(
                self.client, component="kubelet", clock=self.clock, instance=self.node_name
            )
        self._pod_dispatch.subscribe(self.node_name, self._pod_changed)
        self._slice_dispatch.subscribe(self.node_name, self._slices_changed)
        self._node_dispatch.subscribe(self.node_name, self._node_changed)
        await self.node.register()
        await self.node.renew_lease()
        await self.client.delete_collection(
            RESOURCE_SLICES, field_selector=f"spec.nodeName={self.node_name}"
        )
        self.informers.start()
        await self.informers.wait_for_sync(self._pods, self._nodes, self._slices, self._claims)
        for profile in self.profiles.values():
            self.drivers[profile.driver] = SimulatedDriver(
                profile=profile,
                client=self.client,
                clock=self.clock,
                node_name=self.node_name if profile.scope == "node" else "",
                list_slices=self._own_slices if profile.scope == "node" else None,
                publish=profile.scope == "node",
            )
        await self._apply_faults()
        loop = asyncio.get_running_loop()
        for i in range(self.workers):
            self._tasks.append(loop.create_task(self._worker(), name=f"kubelet {i}"))
        self._tasks.append(loop.create_task(self._heartbeat(), name="kubelet heartbeat"))
        self._tasks.append(loop.create_task(self._health_expiry(), name="kubelet health"))
        node = self._nodes.get(self.node_name)
        if node is not None:
            self._node_changed(node)
        for key in self._pods.index_keys(NODE_NAME_INDEX, self.node_name):
            self._queue.add(key)

    async def stop(self) -> None:
        """Stop everything (the node's slices stay, as when a real node goes down)."""
        if not self.running:
            return
        self.running = False
        self._queue.shutdown()
        tasks, self._tasks = [*self._tasks, *self._fault_tasks], []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for driver in self.drivers.values():
            await driver.stop(remove_slices=False)
        for state in self._pods_state.values():
            self._listen_to_claims(state, frozenset())
        self._pod_dispatch.unsubscribe(self.node_name, self._pod_changed)
        self._slice_dispatch.unsubscribe(self.node_name, self._slices_changed)
        self._node_dispatch.unsubscribe(self.node_name, self._node_changed)
        await self.events.close()
        self._events_closed = True

    # --- fault injection (Python) ----------------------------------------------------------------
    async def mark_device_unhealthy(self, *, driver: str, device: str, message: str = "") -> None:
        """The driver reports ``device`` Unhealthy from its next health message on."""
        self._driver(driver).set_health(device=device, health="Unhealthy", message=message)
        self._local.unhealthy[(driver, device)] = message
        await self._apply_faults()

    async def mark_device_healthy(self, *, driver: str, device: str) -> None:
        self._driver(driver)
        self._local.unhealthy.pop((driver, device), None)
        await self._apply_faults()

    async def silence_driver(self, *, driver: str, silenced: bool = True) -> None:
        """The driver stays registered but stops streaming health (devices time out)."""
        self._driver(driver)
        (self._local.silenced.add if silenced else self._local.silenced.discard)(driver)
        await self._apply_faults()

    async def stop_driver(self, *, driver: str) -> None:
        """Unregister the driver: its slices are removed and its devices turn Unknown."""
        self._driver(driver)
        self._local.stopped.add(driver)
        await self._apply_faults()

    async def start_driver(self, *, driver: str) -> None:
        self._driver(driver)
        self._local.stopped.discard(driver)
        await self._apply_faults()

    async def stop_node(self, *, stopped: bool = True) -> None:
        """Stop (or resume) renewing the Lease and reporting node status."""
        self._local.node_stopped = stopped
        await self._apply_faults()

    def _driver(self, name: str) -> SimulatedDriver:
        driver = self.drivers.get(name)
        if driver is None:
            raise KeyError(f"node {self.node_name} has no DRA driver {name!r}")
        return driver

    @property
    def node_stopped(self) -> bool:
        return self._local.node_stopped or self._api.node_stopped

    async def _apply_faults_logged(self) -> None:
        try:
            await self._apply_faults()
        except Exception as exc:
            log.warning("node %s: applying faults failed: %s", self.node_name, exc)

    async def _apply_faults(self) -> None:
        async with self._faults_lock:  # one at a time: drivers stop and start in order
            await self._apply_faults_locked()

    async def _apply_faults_locked(self) -> None:
        for name, driver in self.drivers.items():
            unhealthy = {
                device: message
                for source in (self._api.unhealthy, self._local.unhealthy)
                for (drv, device), message in source.items()
                if drv == name
            }
            driver.set_unhealthy(unhealthy)
            driver.silenced = name in self._local.silenced or name in self._api.silenced
            should_stop = name in self._local.stopped or name in self._api.stopped
            if should_stop and driver.running:
                await driver.stop(remove_slices=True)
                self._health_changed(self.health.unregister(driver=name))
            elif not should_stop and not driver.running and self.running:
                driver.start(health_sink=self._on_health)

    # --- informer handlers --------------------------------------------------------------------
    def _pod_changed(self, pod: Obj) -> None:
        self._queue.add(object_key(pod))

    def _claim_changed(self, claim: Obj) -> None:
        for key in self._pods.index_keys(_CLAIM_INDEX, object_key(claim)):
            pod = self._pods.get(key)
            if pod is not None and (pod.get("spec") or {}).get("nodeName") == self.node_name:
                self._queue.add(key)

    def _own_slices(self) -> list[Obj]:
        return self._slices.by_index(NODE_NAME_INDEX, self.node_name)

    def _slices_changed(self, _slice: Obj) -> None:
        for driver in self.drivers.values():
            driver.resync()

    def _node_changed(self, node: Obj) -> None:
        faults = faults_from_node(node)
        if faults != self._api:
            self._api = faults
            task = asyncio.get_running_loop().create_task(self._apply_faults_logged())
            self._fault_tasks.add(task)
            task.add_done_callback(self._fault_tasks.discard)

    # --- health -------------------------------------------------------------------------------
    def _on_health(self, driver: str, reports: Sequence[DeviceHealthReport]) -> None:
        self._health_changed(
            self.health.report(driver=driver, reports=reports, now=self.clock.monotonic())
        )

    def _health_changed(self, resource_ids: set[str]) -> None:
        for rid in resource_ids:
            for key in self._device_users.get(rid, ()):
                self._queue.add(key)

    async def _health_expiry(self) -> None:
        while True:
            await self.clock.sleep(_HEALTH_CHECK_PERIOD)
            self._health_changed(self.health.expire(now=self.clock.monotonic()))

    # --- heartbeat ----------------------------------------------------------------------------
    async def _heartbeat(self) -> None:
        while True:
            await self.clock.sleep(LEASE_RENEW_INTERVAL)
            if self.node_stopped:
                continue
            try:
                await self.node.renew_lease()
                node = self._nodes.get(self.node_name)
                if node is not None and not NodeAgent.is_ready(node):
                    await self.node.mark_ready()
            except Exception as exc:
                log.warning("node %s: heartbeat failed: %s", self.node_name, exc)

    # --- pods ---------------------------------------------------------------------------------
    async def _worker(self) -> None:
        while (key := await self._queue.get()) is not None:
            try:
                await self._sync_pod(key)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("node %s: pod %s: %s", self.node_name, key, exc)
                self._queue.add_rate_limited(key)
            else:
                self._queue.forget(key)
            finally:
                self._queue.done(key)

    async def _sync_pod(self, key: str) -> None:
        pod = self._pods.get(key)
        if pod is not None and (pod.get("spec") or {}).get("nodeName") != self.node_name:
            pod = None  # not (or no longer) ours
        state = self._pods_state.get(key)
        uid = str(((pod or {}).get("metadata") or {}).get("uid") or "")
        if state is not None and (pod is None or state.uid != uid):
            await self._release(key, state)  # gone, or replaced by a pod of the same name
            self._forget(key, state)
            state = None
        if pod is None:
            self.engine.forget(key)
            return
        if state is None:
            state = self._pods_state[key] = _PodState(uid=uid)
        self._listen_to_claims(state, frozenset(_claim_index(pod)))
        meta = pod.get("metadata") or {}
        phase = (pod.get("status") or {}).get("phase")
        deleting = bool(meta.get("deletionTimestamp"))
        admissible = phase in ("Pending", "Running", None)
        if not state.admitted and not deleting and admissible and not await self._admit(
            key, pod, state, quiet=phase == "Running"
        ):
            return
        if not state.admitted and not deleting:
            return
        decision = self.engine.decide(key, pod, now=self.clock.monotonic())
        if decision.stage is not None:
            await self._apply_stage(key, pod, state, decision.stage)
        else:
            await self._sync_health(pod, state)
        if decision.retry_after is not None:
            self._queue.add_after(key, decision.retry_after)

    async def _admit(self, key: str, pod: Obj, state: _PodState, *, quiet: bool) -> bool:
        try:
            await self._prepare(pod, state)
        except (NotAdmittedError, PrepareError) as exc:
            if quiet:  # a running pod found by a restarted kubelet: keep it running
                state.admitted = True
                return True
            self.events.event(
                regarding=pod,
                type="Warning",
                reason="FailedPrepareDynamicResources",
                action="PrepareDynamicResources",
                note=f"Failed to prepare dynamic resources: {exc}",
            )
            delay = _ADMISSION_BACKOFF[min(state.attempts, len(_ADMISSION_BACKOFF) - 1)]
            state.attempts += 1
            self._queue.add_after(key, delay)
            return False
        state.admitted = True
        return True

    async def _pod_group_claim(self, pod: Obj, name: str) -> str | None:
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
        for entry in (pg.get("spec") or {}).get("resourceClaims") or []:
            if entry.get("name") == name and entry.get("resourceClaimName"):
                return str(entry["resourceClaimName"])
        for entry in (pg.get("status") or {}).get("resourceClaimStatuses") or []:
            if entry.get("name") == name and entry.get("resourceClaimName"):
                return str(entry["resourceClaimName"])
        return None

    async def _prepare(self, pod: Obj, state: _PodState) -> None:
        """Check every claim, then prepare them all (NotAdmittedError / PrepareError on failure)."""
        meta = pod.get("metadata") or {}
        namespace = str(meta.get("namespace") or "")
        group_claims: dict[str, str | None] = {}
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            if entry.get("podGroupResourceClaim"):
                name = str(entry["podGroupResourceClaim"])
                group_claims[name] = await self._pod_group_claim(pod, name)
        refs = pod_claim_refs(pod, pod_group_claim=group_claims.get)
        node = self._nodes.get(self.node_name) or {"metadata": {"name": self.node_name,
                                                               "labels": self.node.labels}}
        checked: list[tuple[str, Obj]] = []
        for ref in refs:
            if not ref.claim_name:
                continue
            claim = self._claims.get(f"{namespace}/{ref.claim_name}")
            check_claim(pod=pod, claim=claim, ref=ref, node=node)
            assert claim is not None
            checked.append((ref.pod_claim, claim))
        key = object_key(pod)
        devices: list[AllocatedDevice] = []
        for pod_claim, claim in checked:
            claim_meta = claim.get("metadata") or {}
            results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}
                       ).get("results") or []
            drivers = sorted({str(r.get("driver")) for r in results})
            for name in drivers:
                driver = self.drivers.get(name)
                if driver is None or not driver.running:
                    raise PrepareError(f"DRA driver {name} is not registered")
                await driver.prepare(claim)
            uid = str(claim_meta.get("uid") or "")
            state.claims[uid] = (namespace, str(claim_meta.get("name")), tuple(drivers))
            self._claim_users.setdefault(uid, set()).add(key)
            for result in results:
                request = str(result.get("request"))
                devices.append(
                    AllocatedDevice(
                        claim=pod_claim,
                        request=request,
                        driver=str(result.get("driver")),
                        pool=str(result.get("pool")),
                        device=str(result.get("device")),
                        containers=containers_using(pod, pod_claim, request),
                    )
                )
        state.devices = devices
        for device in devices:
            self._device_users.setdefault(device.resource_id, set()).add(key)

    async def _release(self, key: str, state: _PodState) -> None:
        """Unprepare the pod's claims that no other pod on this node still uses."""
        if state.released:
            return
        for uid, (namespace, name, drivers) in state.claims.items():
            users = self._claim_users.get(uid, set())
            users.discard(key)
            if users:
                continue
            self._claim_users.pop(uid, None)
            for driver_name in drivers:
                driver = self.drivers.get(driver_name)
                if driver is not None:
                    await driver.unprepare(uid=uid, namespace=namespace, name=name)
        state.released = True

    def _listen_to_claims(self, state: _PodState, keys: frozenset[str]) -> None:
        for claim_key in keys - state.claim_keys:
            self._claim_dispatch.subscribe(claim_key, self._claim_changed)
        for claim_key in state.claim_keys - keys:
            self._claim_dispatch.unsubscribe(claim_key, self._claim_changed)
        state.claim_keys = keys

    def _forget(self, key: str, state: _PodState) -> None:
        self._listen_to_claims(state, frozenset())
        for device in state.devices:
            users = self._device_users.get(device.resource_id)
            if users is not None:
                users.discard(key)
                if not users:
                    del self._device_users[device.resource_id]
        self._pods_state.pop(key, None)
        self.engine.forget(key)

    def _pod_ip(self, state: _PodState) -> str:
        if not state.pod_ip:
            network = self.node.pod_cidr.rsplit(".", 1)[0]
            state.pod_ip = f"{network}.{self._next_ip}"
            self._next_ip = self._next_ip % 253 + 2
        return state.pod_ip

    def _overlay_health(self, pod: Obj, status: Obj, state: _PodState) -> None:
        if not state.devices or not self.reports_health:
            return
        names = [c.get("name") for c in status.get("containerStatuses") or []]
        per_container, pod_level = pod_health_status(
            devices=state.devices, cache=self.health, containers=[str(n) for n in names]
        )
        statuses = []
        for entry in status.get("containerStatuses") or []:
            entry = dict(entry)
            health = per_container.get(str(entry.get("name")))
            if health:
                entry["allocatedResourcesStatus"] = health
            statuses.append(entry)
        if statuses:
            status["containerStatuses"] = statuses
        if pod_level:
            status["allocatedResourcesStatus"] = pod_level

    async def _write_status(self, pod: Obj, status: Obj) -> Obj:
        meta = pod.get("metadata") or {}
        patch = {"status": {k: status[k] for k in _STATUS_KEYS if k in status}}
        generation = meta.get("generation")
        if isinstance(generation, int):  # as kubelets since PodObservedGenerationTracking
            patch["status"]["observedGeneration"] = generation
        return await self.client.patch(
            PODS,
            name=str(meta.get("name")),
            namespace=str(meta.get("namespace")),
            patch=patch,
            patch_type="strategic",
            subresource="status",
        )

    async def _sync_health(self, pod: Obj, state: _PodState) -> None:
        if not state.devices or not self.reports_health:
            return
        status = dict(pod.get("status") or {})
        self._overlay_health(pod, status, state)
        current = pod.get("status") or {}
        if status.get("containerStatuses") == current.get("containerStatuses") and status.get(
            "allocatedResourcesStatus"
        ) == current.get("allocatedResourcesStatus"):
            return
        await self._write_status(pod, status)

    async def _apply_stage(self, key: str, pod: Obj, state: _PodState, stage: Stage) -> None:
        ctx = StageContext(
            now=format_time(self.clock.now()),
            node_name=self.node_name,
            host_ip=self.node.host_ip,
            pod_ip=self._pod_ip(state),
        )
        outcome = apply_steps(pod, stage, ctx)
        self._overlay_health(pod, outcome.status, state)
        meta = pod.get("metadata") or {}
        if outcome.status != (pod.get("status") or {}):
            try:
                await self._write_status(pod, outcome.status)
            except Exception as exc:
                if is_not_found(exc):
                    return
                raise
        for event in outcome.events:
            self.events.event(
                regarding=pod,
                type="Warning" if event["type"] == "Warning" else "Normal",
                reason=event["reason"],
                action=stage.name,
                note=event["note"],
            )
        if outcome.status.get("phase") in ("Succeeded", "Failed") or outcome.delete:
            await self._release(key, state)
        if outcome.delete:
            try:
                await self.client.delete(
                    PODS,
                    name=str(meta.get("name")),
                    namespace=str(meta.get("namespace")),
                    grace_period_seconds=0,
                    preconditions=Preconditions(uid=state.uid),
                )
            except Exception as exc:
                if not (is_not_found(exc) or is_conflict(exc)):
                    raise

    # --- introspection (tests, sandbox) ---------------------------------------------------------
    def prepared_claims(self) -> dict[str, tuple[str, ...]]:
        """Claim UID -> CDI device IDs, over every driver of this node."""
        out: dict[str, tuple[str, ...]] = {}
        for driver in self.drivers.values():
            for uid, prepared in driver.prepared().items():
                out[uid] = out.get(uid, ()) + prepared.cdi_device_ids
        return out
