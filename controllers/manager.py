"""The controller manager: builds the chosen controllers, syncs their caches, runs them, stops them.

Start order is the same as kube-controller-manager's: every controller first asks the shared
informer factory for the informers it needs and registers its handlers and indexes (so nothing
it cares about is missed), then the factory starts and the manager waits until those informers
have listed once, and only then do the controllers' workers start — a controller never
reconciles from an empty cache. Stop runs in reverse: workers are stopped last-started first,
each letting the reconcile in progress finish. The informers belong to the factory (shared with
the scheduler and the kubelets) and keep running; whoever made the factory stops it.

Every controller uses the manager's client, or — given ``clients`` — a client of its own, as
kube-controller-manager's ``--use-service-account-credentials`` gives each controller its service
account's credentials (the assembler does when its cluster authorizes requests).

A stopped manager can be started again (or a new one made over the same factory): controllers
are level-based, so everything that changed meanwhile is picked up by the initial adds.

The workload controllers (ReplicaSets, Deployments, Jobs...) start with the first object of their
kind (:mod:`~fakeapi.controllers.lazy`), and every controller module is imported when a cluster
first runs it: a cluster that never sees a Deployment pays nothing for the Deployment controller.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Collection, Mapping

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    CLUSTER_ROLES,
    CRON_JOBS,
    DAEMON_SETS,
    DEPLOYMENTS,
    JOBS,
    POD_DISRUPTION_BUDGETS,
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    STATEFUL_SETS,
    Client,
    InformerFactory,
    Resource,
)
from fakeapi.clock import Clock
from fakeapi.controllers.lazy import LazyController, ManagedController, load_controller

__all__ = ["CONTROLLER_NAMES", "ControllerManager", "ManagedController", "select_controllers"]

_PACKAGE = "fakeapi.controllers"
#: name -> the controller class, as ``module:Class`` (imported when a cluster first runs it)
_CONTROLLERS: dict[str, str] = {
    "garbage-collector-controller": f"{_PACKAGE}.garbage_collector:GarbageCollector",
    "namespace-controller": f"{_PACKAGE}.namespace:NamespaceController",
    "resourceclaim-controller": f"{_PACKAGE}.resourceclaim:ResourceClaimController",
    "podgroup-protection-controller":
        f"{_PACKAGE}.podgroup_protection:PodGroupProtectionController",
    "resourcepool-controller": f"{_PACKAGE}.resourcepool:ResourcePoolController",
    "resourcepoolstatusrequest-controller":
        f"{_PACKAGE}.resourcepoolstatusrequest:ResourcePoolStatusRequestController",
    "device-taint-eviction-controller":
        f"{_PACKAGE}.devicetaint_eviction:DeviceTaintEvictionController",
    "node-lifecycle-controller": f"{_PACKAGE}.nodelifecycle:NodeLifecycleController",
    "pod-garbage-collector-controller": f"{_PACKAGE}.podgc:PodGCController",
    "serviceaccount-controller": f"{_PACKAGE}.serviceaccounts:ServiceAccountsController",
    "replicaset-controller": f"{_PACKAGE}.replicaset:ReplicaSetController",
    "replicationcontroller-controller":
        f"{_PACKAGE}.replicaset:ReplicationControllerController",
    "deployment-controller": f"{_PACKAGE}.deployment:DeploymentController",
    "statefulset-controller": f"{_PACKAGE}.statefulset:StatefulSetController",
    "daemonset-controller": f"{_PACKAGE}.daemonset:DaemonSetController",
    "job-controller": f"{_PACKAGE}.job:JobController",
    "cronjob-controller": f"{_PACKAGE}.cronjob:CronJobController",
    "ttl-after-finished-controller":
        f"{_PACKAGE}.ttl_after_finished:TTLAfterFinishedController",
    "disruption-controller": f"{_PACKAGE}.disruption:DisruptionController",
    "clusterrole-aggregation-controller":
        f"{_PACKAGE}.clusterrole_aggregation:ClusterRoleAggregationController",
}
#: controllers that start with the first object of their kind (:mod:`.lazy`): most clusters
#: never see one, and a cluster per test must start in milliseconds
_LAZY: dict[str, Resource] = {
    "replicaset-controller": REPLICA_SETS,
    "replicationcontroller-controller": REPLICATION_CONTROLLERS,
    "deployment-controller": DEPLOYMENTS,
    "statefulset-controller": STATEFUL_SETS,
    "daemonset-controller": DAEMON_SETS,
    "job-controller": JOBS,
    "cronjob-controller": CRON_JOBS,
    "ttl-after-finished-controller": JOBS,
    "disruption-controller": POD_DISRUPTION_BUDGETS,
    "clusterrole-aggregation-controller": CLUSTER_ROLES,
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
        clients: Callable[[str], Client] | None = None,
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
        #: each controller's own client, by controller name (None: all share ``client``)
        self.clients = clients
        self.controllers: dict[str, ManagedController] = {}
        self._started = False

    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        for name in self.names:
            trigger = _LAZY.get(name)
            if trigger is None:
                self.controllers[name] = self._build(name)
            else:
                self.controllers[name] = LazyController(
                    name=name, trigger=trigger, build=functools.partial(self._build, name),
                    informers=self.informers, sync_timeout=self.sync_timeout,
                )
        self.informers.start()
        needed = [i for c in self.controllers.values() for i in c.informers]
        await self.informers.wait_for_sync(*needed, timeout=self.sync_timeout)
        for controller in self.controllers.values():
            controller.start()

    def _build(self, name: str) -> ManagedController:
        return load_controller(_CONTROLLERS[name])(
            client=self.client if self.clients is None else self.clients(name),
            informers=self.informers,
            clock=self.clock,
            rng=self.rng,
            feature_gates=self.feature_gates,
            metrics=self.metrics,
        )

    async def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        for name in reversed(list(self.controllers)):
            await self.controllers[name].stop()
        self.controllers.clear()
