"""The controller manager: builds the chosen controllers, syncs their caches, runs them, stops them.

Start order is the same as kube-controller-manager's: every controller first asks the shared
informer factory for the informers it needs and registers its handlers and indexes (so nothing
it cares about is missed), then the factory starts and the manager waits until those informers
have listed once, and only then do the controllers' workers start — a controller never
reconciles from an empty cache. Stop runs in reverse: workers are stopped last-started first,
each letting the reconcile in progress finish. The informers belong to the factory (shared with
the scheduler and the kubelets) and keep running; whoever made the factory stops it.

A stopped manager can be started again (or a new one made over the same factory): controllers
are level-based, so everything that changed meanwhile is picked up by the initial adds.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from typing import Protocol

from prometheus_client import CollectorRegistry

from fakeapi.client import Client, Informer, InformerFactory
from fakeapi.clock import Clock
from fakeapi.controllers.devicetaint_eviction import DeviceTaintEvictionController
from fakeapi.controllers.garbage_collector import GarbageCollector
from fakeapi.controllers.namespace import NamespaceController
from fakeapi.controllers.nodelifecycle import NodeLifecycleController
from fakeapi.controllers.podgc import PodGCController
from fakeapi.controllers.podgroup_protection import PodGroupProtectionController
from fakeapi.controllers.resourceclaim import ResourceClaimController
from fakeapi.controllers.resourcepool import ResourcePoolController
from fakeapi.controllers.resourcepoolstatusrequest import ResourcePoolStatusRequestController

__all__ = ["CONTROLLER_NAMES", "ControllerManager", "ManagedController", "select_controllers"]


class ManagedController(Protocol):
    name: str
    informers: list[Informer]

    def start(self) -> None: ...

    async def stop(self) -> None: ...


_CONTROLLERS = {
    "garbage-collector-controller": GarbageCollector,
    "namespace-controller": NamespaceController,
    "resourceclaim-controller": ResourceClaimController,
    "podgroup-protection-controller": PodGroupProtectionController,
    "resourcepool-controller": ResourcePoolController,
    "resourcepoolstatusrequest-controller": ResourcePoolStatusRequestController,
    "device-taint-eviction-controller": DeviceTaintEvictionController,
    "node-lifecycle-controller": NodeLifecycleController,
    "pod-garbage-collector-controller": PodGCController,
}
#: every controller the manager can run, in start order
CONTROLLER_NAMES: tuple[str, ...] = tuple(_CONTROLLERS)


def select_controllers(spec: str) -> tuple[str, ...]:
    """The controllers kube-controller-manager's ``--controllers`` list names: ``*`` is every
    controller, ``name`` adds one, ``-name`` takes one away (whatever the order); raises
    ValueError for an unknown name."""
    items = [item.strip() for item in spec.split(",") if item.strip()]
    unknown = [i for i in items if i != "*" and i.removeprefix("-") not in _CONTROLLERS]
    if unknown:
        raise ValueError(
            f"unknown controller(s) {', '.join(unknown)}; known: {', '.join(CONTROLLER_NAMES)}"
        )
    off = {item[1:] for item in items if item.startswith("-")}
    on = set(CONTROLLER_NAMES) if "*" in items else {i for i in items if i != "*"} - off
    return tuple(name for name in CONTROLLER_NAMES if name in on and name not in off)


class ControllerManager:
    """Runs ``controllers`` (None: all of :data:`CONTROLLER_NAMES`) over one informer factory."""

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        controllers: Collection[str] | None = None,
        sync_timeout: float = 30.0,
    ) -> None:
        chosen = CONTROLLER_NAMES if controllers is None else tuple(controllers)
        unknown = sorted(set(chosen) - set(CONTROLLER_NAMES))
        if unknown:
            raise ValueError(f"unknown controllers {unknown}; known: {', '.join(CONTROLLER_NAMES)}")
        self.client = client
        self.informers = informers
        self.clock = clock
        self.rng = rng
        self.feature_gates = dict(feature_gates or {})
        self.metrics = metrics
        self.names = [name for name in CONTROLLER_NAMES if name in chosen]
        self.sync_timeout = sync_timeout
        self.controllers: dict[str, ManagedController] = {}
        self._started = False

    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        for name in self.names:
            self.controllers[name] = _CONTROLLERS[name](
                client=self.client,
                informers=self.informers,
                clock=self.clock,
                rng=self.rng,
                feature_gates=self.feature_gates,
                metrics=self.metrics,
            )
        self.informers.start()
        needed = [i for c in self.controllers.values() for i in c.informers]
        await self.informers.wait_for_sync(*needed, timeout=self.sync_timeout)
        for controller in self.controllers.values():
            controller.start()

    async def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        for name in reversed(list(self.controllers)):
            await self.controllers[name].stop()
        self.controllers.clear()
