"""A simulated kubelet: one node, its pods, its DRA drivers, its device health.

A real actor against the API (only :mod:`fakeapi.client`): it follows the pods bound to its node
(``spec.nodeName``), its own Node (for fault annotations), its node's ResourceSlices and the
ResourceClaims its pods use — through the cluster's shared informers, with :mod:`.dispatch`
routing each change to the one kubelet it concerns, which is what a per-node field-selector watch
would give a real kubelet — and reconciles one pod key at a time from current state:

1. **Admission** (pods not yet running): every claim must exist, be allocated for this node
   and reserved for the pod, its PodGroup, or any pod (:mod:`.admission`). Otherwise the pod
   stays Pending with a ``FailedPrepareDynamicResources`` Warning event and the status
   upstream's ``SyncPod`` writes first (containers ``ContainerCreating``, the kubelet's
   conditions, host IPs), and is retried with back-off (and at once when one of its claims
   changes). A pod whose first stage waits shows that status meanwhile.
2. **Prepare**: each driver named in a claim's allocation prepares it (NodePrepareResources),
   which returns CDI device IDs and writes the claim's ``status.devices``.
3. **Stages**: the lifecycle stages (:mod:`.stages`, timed by :mod:`.engine`) move the pod
   through its phases; the kubelet writes each stage's status with a strategic-merge patch of
   ``pods/status``, records its events and, for graceful deletion, deletes the pod with grace
   period 0 once its containers are stopped. Claims no other pod here uses are unprepared before
   a pod is reported Succeeded or Failed or deleted; while that fails (a driver not registered)
   the phase is held and the pod not deleted. Failed containers restart after the crash-loop
   back-off (:mod:`.backoff`).
4. **Health**: drivers stream device health into a :class:`~.dra.health.HealthCache`; whenever a
   device used by a pod changes health (or times out to Unknown) the pod's
   ``allocatedResourcesStatus`` is rewritten — for terminated pods too, as long as they exist.

On start the kubelet registers its Node, deletes its node's ResourceSlices (deletecollection by
``spec.nodeName``) and registers its drivers, which publish afresh. Faults can be injected from
Python (methods below) or through Node annotations (:mod:`.faults`, docs/kubelet.md); a stopped
node writes nothing for its pods until it is back.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    NODE_NAME_INDEX,
    NODES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    WorkQueue,
    end_tasks,
    node_name_index,
    object_key,
)
from fakeapi.clock import Clock
from fakeapi.features import enabled
from fakeapi.kubelet.default_stages import default_stages
from fakeapi.kubelet.dispatch import Dispatcher, field_key
from fakeapi.kubelet.dra.callfaults import Call, CallFault, CallFaults
from fakeapi.kubelet.dra.driver import DeviceHealthReport, SimulatedDriver
from fakeapi.kubelet.dra.health import DEFAULT_HEALTH_TIMEOUT_SECONDS, HealthCache
from fakeapi.kubelet.dra.interface import DRADriver
from fakeapi.kubelet.dra.manager import DEFAULT_CALL_TIMEOUT, DRAManager
from fakeapi.kubelet.dra.profiles import DriverProfile
from fakeapi.kubelet.engine import StageEngine
from fakeapi.kubelet.faults import (
    ANNOTATION_SILENCED_DRIVERS,
    ANNOTATION_STOPPED_DRIVERS,
    ANNOTATION_UNHEALTHY_DEVICES,
    NodeFaults,
    faults_from_node,
)
from fakeapi.kubelet.node import LEASE_RENEW_INTERVAL, NODE_STATUS_REPORT_INTERVAL, NodeAgent
from fakeapi.kubelet.plugins.layout import KubeletDirectory
from fakeapi.kubelet.pods import CLAIM_INDEX, PodSync, claim_index
from fakeapi.kubelet.stages import Stage
from fakeapi.objects import Obj

if TYPE_CHECKING:
    from fakeapi.kubelet.plugins.manager import PluginManager

__all__ = ["Kubelet"]

log = logging.getLogger("fakeapi.kubelet")
#: the reason of the Warning event for a fault annotation the kubelet cannot obey
INVALID_FAULT_ANNOTATION = "InvalidFaultAnnotation"

_HEALTH_CHECK_PERIOD = 1.0
#: upstream's ``defaultWipingDelay`` (fakeapi.kubelet.plugins.manager), here to keep gRPC unloaded
DEFAULT_WIPING_DELAY = 30.0


def _own_key(obj: Obj) -> list[str]:
    return [object_key(obj)]


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
        root_dir: str | Path | None = None,
        driver_call_timeout: float = DEFAULT_CALL_TIMEOUT,
        slice_wiping_delay: float = DEFAULT_WIPING_DELAY,
        plugin_poll_interval: float = 1.0,
        driver_clients: Callable[[str], Client] | None = None,
    ) -> None:
        self.client = client
        #: the client each simulated driver writes claim status with, by driver name (None: the
        #: kubelet's): a driver's own service account when the cluster authorizes requests
        self.driver_clients = driver_clients
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
            stages=stages if stages is not None else default_stages(), rng=rng
        )
        profile_labels = {k: v for profile in drivers for k, v in profile.node_labels.items()}
        self.node = NodeAgent(
            client=client, clock=clock, node_name=node_name, capacity=capacity,
            labels={**profile_labels, **(labels or {})}, node_index=node_index,
        )
        self.health = HealthCache(default_timeout=health_timeout_seconds, node=node_name)
        self.events = LegacyEventRecorder(client, component="kubelet", clock=clock, host=node_name)
        self.profiles = {p.driver: p for p in drivers}
        #: the node's DRA drivers by name: simulated ones from the profiles, external ones once
        #: they registered through the kubelet directory's plugins_registry/
        self.drivers: dict[str, DRADriver] = {}
        #: the kubelet directory (plugins_registry/, plugins/); None: no external drivers
        self.directory = KubeletDirectory(Path(root_dir)) if root_dir is not None else None
        self.driver_call_timeout = driver_call_timeout
        self.slice_wiping_delay = slice_wiping_delay
        self.plugin_poll_interval = plugin_poll_interval
        #: the external drivers' side (None until a kubelet with a root directory starts)
        self.plugins: PluginManager | None = None
        #: faults the kubelet injects into its own prepare / unprepare calls
        self.call_faults = CallFaults()
        #: the restart token of the Node's annotation last seen (None: not seen yet)
        self._restart_token: str | None = None
        self._restart_task: asyncio.Task[None] | None = None
        #: external drivers whose registration socket the kubelet lost (fault injection)
        self._lost_sockets: set[str] = set()
        self._local = _LocalFaults()
        self._api = NodeFaults()
        #: the node was cut off (``node_stopped``) when faults were last applied
        self._cut_off = False
        #: the owner reference the node's slices were last published with
        self._published_owner: Obj | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._fault_tasks: set[asyncio.Task[None]] = set()
        self._faults_lock = asyncio.Lock()
        self._events_closed = False
        self.running = False
        # the cluster-wide shared informers, routed to this node by dispatchers (see .dispatch)
        self._pods = informers.informer(PODS)
        self._nodes = informers.informer(NODES)
        self._slices = informers.informer(RESOURCE_SLICES)
        self._claims = informers.informer(RESOURCE_CLAIMS)
        # every kubelet adds the same indexes to the shared informers: the first one counts
        self._pods.add_index(NODE_NAME_INDEX, node_name_index)
        self._pods.add_index(CLAIM_INDEX, claim_index)
        self._slices.add_index(NODE_NAME_INDEX, node_name_index)
        self._pod_dispatch = Dispatcher.of(self._pods, name=NODE_NAME_INDEX, keys=node_name_index)
        self._node_dispatch = Dispatcher.of(
            self._nodes, name="metadata.name", keys=field_key("metadata", "name")
        )
        self._slice_dispatch = Dispatcher.of(
            self._slices, name=NODE_NAME_INDEX, keys=node_name_index
        )
        self._claim_dispatch = Dispatcher.of(self._claims, name=CLAIM_INDEX, keys=_own_key)
        self.dra = DRAManager(
            client=client, drivers=self.drivers, claims=self._claims, node=self._node_object,
            clock=clock, call_faults=self.call_faults, call_timeout=driver_call_timeout,
        )
        self.pod_sync = self._new_pod_sync()

    def _new_pod_sync(self) -> PodSync:
        return PodSync(
            client=self.client,
            clock=self.clock,
            node=self.node,
            pods=self._pods,
            claim_dispatch=self._claim_dispatch,
            engine=self.engine,
            dra=self.dra,
            health=self.health,
            events=lambda: self.events,
            reports_health=self.reports_health,
            queue=WorkQueue(clock=self.clock, name="kubelet", metrics=self.metrics),
            connected=lambda: not self.node_stopped,
        )

    # --- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        if self.running:
            return
        self.running = True
        if self.pod_sync.queue.shutting_down:  # started again after stop(): fresh pod state
            self.pod_sync = self._new_pod_sync()
        if self._events_closed:  # started again after stop(): a fresh recorder
            self._events_closed = False
            self.events = LegacyEventRecorder(
                self.client, component="kubelet", clock=self.clock, host=self.node_name
            )
        self._pod_dispatch.subscribe(self.node_name, self._pod_changed)
        self._slice_dispatch.subscribe(self.node_name, self._slices_changed)
        self._node_dispatch.subscribe(self.node_name, self._node_changed)
        await self.node.register()
        self._record_start()
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
                status_client=(
                    self.driver_clients(profile.driver) if self.driver_clients else None
                ),
                clock=self.clock,
                node_name=self.node_name if profile.scope == "node" else "",
                list_slices=self._own_slices if profile.scope == "node" else None,
                publish=profile.scope == "node",
                owner=self._node_owner,
            )
        if self.directory is not None:
            self._start_plugins(self.directory)
        await self._apply_faults()
        loop = asyncio.get_running_loop()
        for i in range(self.workers):
            self._tasks.append(loop.create_task(self.pod_sync.run_worker(), name=f"kubelet {i}"))
        self._tasks.append(loop.create_task(self._heartbeat(), name="kubelet heartbeat"))
        self._tasks.append(loop.create_task(self._health_expiry(), name="kubelet health"))
        node = self._nodes.get(self.node_name)
        if node is not None:
            self._node_changed(node)
        for key in self._pods.index_keys(NODE_NAME_INDEX, self.node_name):
            self.pod_sync.queue.add(key)

    def _record_start(self) -> None:
        """The events a starting kubelet records about its node, in upstream's words: it starts,
        its node's conditions are set, its allocatable is enforced. They name the node with its
        name as uid, as upstream's kubelet does (and ``kubectl describe node`` looks them up)."""
        node = self._node_ref()
        status = f"Node {self.node_name} status is now: "
        for reason, note in (
            ("Starting", "Starting kubelet."),
            ("NodeHasSufficientMemory", status + "NodeHasSufficientMemory"),
            ("NodeHasNoDiskPressure", status + "NodeHasNoDiskPressure"),
            ("NodeHasSufficientPID", status + "NodeHasSufficientPID"),
            ("NodeAllocatableEnforced", "Updated Node Allocatable limit across pods"),
            ("NodeReady", status + "NodeReady"),
        ):
            self.events.event(regarding=node, type="Normal", reason=reason, action=reason,
                              note=note)

    def _node_ref(self) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": self.node_name, "uid": self.node_name}}

    def _record_node_status(self, reason: str) -> None:
        """``Node <name> status is now: <reason>``, as the kubelet's status setters record a
        condition's change."""
        self.events.event(regarding=self._node_ref(), type="Normal", reason=reason,
                          action=reason, note=f"Node {self.node_name} status is now: {reason}")

    async def stop(self) -> None:
        """Stop everything (the node's slices stay, as when a real node goes down)."""
        if not self.running:
            return
        self.running = False
        self.pod_sync.queue.shutdown()
        tasks, self._tasks = [*self._tasks, *self._fault_tasks], []
        await end_tasks(tasks)
        if self.plugins is not None:
            await self.plugins.stop()
        for driver in self.drivers.values():
            await driver.stop(remove_slices=False)
        self.pod_sync.close()
        self._pod_dispatch.unsubscribe(self.node_name, self._pod_changed)
        self._slice_dispatch.unsubscribe(self.node_name, self._slices_changed)
        self._node_dispatch.unsubscribe(self.node_name, self._node_changed)
        await self.events.close()
        self._events_closed = True

    # --- fault injection (Python) ----------------------------------------------------------------
    async def mark_device_unhealthy(self, *, driver: str, device: str, message: str = "") -> None:
        """The driver reports ``device`` Unhealthy from its next health message on."""
        known = self._driver(driver)
        if isinstance(known, SimulatedDriver):  # checks that the device exists
            known.set_health(device=device, health="Unhealthy", message=message)
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
        """Unregister the driver: its slices are removed and its devices turn Unknown. For an
        external driver the kubelet loses its registration socket (hidden from the plugin
        watcher until :meth:`start_driver`): the plugin is deregistered and, after the wiping
        delay, its slices on this node are deleted."""
        self._driver(driver)
        self._local.stopped.add(driver)
        await self._apply_faults()

    async def start_driver(self, *, driver: str) -> None:
        self._driver(driver)
        self._local.stopped.discard(driver)
        await self._apply_faults()

    async def stop_node(self, *, stopped: bool = True) -> None:
        """Cut the node off from the API (or reconnect it): no Lease renewal, no node status and
        nothing written for its pods — they are neither started, stopped nor deleted — until it
        is back; then every pod is reconciled from its current state."""
        self._local.node_stopped = stopped
        await self._apply_faults()

    async def inject_call_fault(
        self, *, call: Call, claim: str, delay: float = 0.0, error: str = "", times: int = 1
    ) -> None:
        """Delay (seconds of the kubelet's clock) and/or fail (with ``error``) the next ``times``
        NodePrepareResources (``call="prepare"``) or NodeUnprepareResources (``"unprepare"``)
        calls for ``claim`` (``namespace/name``), on the kubelet's side of the wire
        (:mod:`.dra.callfaults`)."""
        self.call_faults.add(call, claim, CallFault(delay=delay, error=error), times=times)

    async def restart(self) -> None:
        """Restart the kubelet: stop, then start again — its node's slices are wiped, its
        simulated drivers publish afresh and external drivers register again from their
        sockets, as after a restart of a real kubelet."""
        await self.stop()
        await self.start()

    def _driver(self, name: str) -> DRADriver:
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
        if self._cut_off and not self.node_stopped:
            # back: every pod is looked at again from its current state (level-based), those
            # that came or went while the node was cut off included
            self._resync_pods()
        self._cut_off = self.node_stopped
        self.call_faults.set_standing("prepare", self._api.prepare)
        self.call_faults.set_standing("unprepare", self._api.unprepare)
        for name, driver in list(self.drivers.items()):
            unhealthy = {
                device: message
                for source in (self._api.unhealthy, self._local.unhealthy)
                for (drv, device), message in source.items()
                if drv == name
            }
            driver.set_unhealthy(unhealthy)
            driver.silenced = name in self._local.silenced or name in self._api.silenced
            should_stop = name in self._local.stopped or name in self._api.stopped
            if not isinstance(driver, SimulatedDriver):
                if self.plugins is not None and should_stop != (name in self._lost_sockets):
                    (self._lost_sockets.add if should_stop else self._lost_sockets.discard)(name)
                    await self.plugins.set_socket_lost(name, should_stop)
                continue
            if should_stop and driver.running:
                await driver.stop(remove_slices=True)
                self._health_changed(self.health.unregister(driver=name))
            elif not should_stop and not driver.running and self.running:
                driver.start(health_sink=self._on_health)
                self._resync_pods()  # claims waiting for this driver to unprepare them

    def _resync_pods(self) -> None:
        keys = {*self.pod_sync.states, *self._pods.index_keys(NODE_NAME_INDEX, self.node_name)}
        for key in keys:
            self.pod_sync.queue.add(key)

    # --- informer handlers --------------------------------------------------------------------
    def _pod_changed(self, pod: Obj) -> None:
        self.pod_sync.queue.add(object_key(pod))

    def _node_object(self) -> Obj:
        node = self._nodes.get(self.node_name)
        if node is None:  # not seen yet: what it was registered with is enough for admission
            return {"metadata": {"name": self.node_name, "labels": dict(self.node.labels)}}
        return node

    def _own_slices(self) -> list[Obj]:
        return self._slices.by_index(NODE_NAME_INDEX, self.node_name)

    def _slices_changed(self, _slice: Obj) -> None:
        for driver in self.drivers.values():
            driver.resync()

    def _node_owner(self) -> Obj | None:
        """The controller reference to this node's Node, which its slices carry; None while the
        Node does not exist (deleted: nothing is published until it is back)."""
        node = self._nodes.get(self.node_name)
        if node is None:
            return None
        uid = str(node["metadata"].get("uid") or "")
        return {"apiVersion": "v1", "kind": "Node", "name": self.node_name, "uid": uid,
                "controller": True}

    def _node_changed(self, node: Obj) -> None:
        owner = self._node_owner()
        if owner != self._published_owner:  # deleted or re-created: slices follow the Node
            self._published_owner = owner
            self._slices_changed(node)
        faults = faults_from_node(node)
        if self._restart_token is None:  # what a starting kubelet finds restarts nothing
            self._restart_token = faults.restart_token
        elif faults.restart_token != self._restart_token:
            self._restart_token = faults.restart_token
            if self._restart_task is None or self._restart_task.done():
                # not one of the kubelet's own tasks: stopping must not cancel it
                self._restart_task = asyncio.get_running_loop().create_task(
                    self._restart_logged(), name=f"restart kubelet {self.node_name}"
                )
        if faults != self._api:
            self._api = faults
            for problem in self._fault_problems(faults):
                self.events.event(regarding=self._node_ref(), type="Warning",
                                  reason=INVALID_FAULT_ANNOTATION, action="FaultInjection",
                                  note=problem)
            task = asyncio.get_running_loop().create_task(self._apply_faults_logged())
            self._fault_tasks.add(task)
            task.add_done_callback(self._fault_tasks.discard)

    def _fault_problems(self, faults: NodeFaults) -> list[str]:
        """What the Node's fault annotations ask for that this kubelet cannot do."""
        problems = list(faults.problems)
        named = [
            *((ANNOTATION_UNHEALTHY_DEVICES, driver) for driver, _ in faults.unhealthy),
            *((ANNOTATION_SILENCED_DRIVERS, driver) for driver in sorted(faults.silenced)),
            *((ANNOTATION_STOPPED_DRIVERS, driver) for driver in sorted(faults.stopped)),
        ]
        if self.directory is not None:
            return problems  # an external driver may register under any name, later
        known = sorted({*self.profiles, *self.drivers})
        for annotation, driver in dict.fromkeys(named):
            if driver not in known:
                problems.append(
                    f"annotation {annotation}: DRA driver {driver} does not run on node "
                    f"{self.node_name} (drivers: {', '.join(known) or 'none'})"
                )
        return problems

    async def _restart_logged(self) -> None:
        try:
            await self.restart()
        except Exception as exc:
            log.warning("node %s: restarting the kubelet failed: %s", self.node_name, exc)

    # --- external drivers -----------------------------------------------------------------------
    def _start_plugins(self, directory: KubeletDirectory) -> None:
        if self.plugins is None:
            # gRPC loads here, with the first kubelet that has a root directory
            from fakeapi.kubelet.plugins.manager import PluginManager

            self.plugins = PluginManager(
                directory=directory,
                node_name=self.node_name,
                client=self.client,
                clock=self.clock,
                drivers=self.drivers,
                health_sink=self._on_health,
                health_lost=self._on_health_lost,
                registered=self._on_registered,
                reports_health=self.reports_health,
                call_timeout=self.driver_call_timeout,
                wiping_delay=self.slice_wiping_delay,
                poll_interval=self.plugin_poll_interval,
            )
        self.plugins.start()

    def _on_registered(self, _driver: str) -> None:
        self._resync_pods()  # pods waiting for the driver to prepare or unprepare their claims

    def _on_health_lost(self, driver: str) -> None:
        self._health_changed(self.health.unregister(driver=driver))

    # --- health -------------------------------------------------------------------------------
    def _on_health(self, driver: str, reports: Sequence[DeviceHealthReport]) -> None:
        self._health_changed(
            self.health.report(driver=driver, reports=reports, now=self.clock.monotonic())
        )

    def _health_changed(self, resource_ids: set[str]) -> None:
        for rid in resource_ids:
            for key in self.dra.pods_using_device(rid):
                self.pod_sync.queue.add(key)

    async def _health_expiry(self) -> None:
        while True:
            await self.clock.sleep(_HEALTH_CHECK_PERIOD)
            self._health_changed(self.health.expire(now=self.clock.monotonic()))

    # --- heartbeat ----------------------------------------------------------------------------
    async def _heartbeat(self) -> None:
        reported = self.clock.monotonic()
        while True:
            await self.clock.sleep(LEASE_RENEW_INTERVAL)
            if self.node_stopped:
                continue
            try:
                await self.node.renew_lease()
                node = self._nodes.get(self.node_name)
                due = self.clock.monotonic() - reported >= NODE_STATUS_REPORT_INTERVAL
                if node is not None and (due or not NodeAgent.is_ready(node)):
                    was_ready = NodeAgent.is_ready(node)
                    await self.node.mark_ready()
                    reported = self.clock.monotonic()
                    if not was_ready:  # back (after a cut-off): as upstream's status setter
                        self._record_node_status("NodeReady")
            except Exception as exc:
                log.warning("node %s: heartbeat failed: %s", self.node_name, exc)

    # --- introspection (tests, sandbox) ---------------------------------------------------------
    def prepared_claims(self) -> dict[str, tuple[str, ...]]:
        """Claim UID -> CDI device IDs, over every driver of this node."""
        out: dict[str, tuple[str, ...]] = {}
        for driver in self.drivers.values():
            for uid, prepared in driver.prepared().items():
                out[uid] = out.get(uid, ()) + prepared.cdi_device_ids
        return out
