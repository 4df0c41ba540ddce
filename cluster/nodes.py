"""The simulated nodes of a cluster: kubelets with their DRA drivers, and waiting until they are up.

The third room of :class:`~fakeapi.cluster.assembler.Cluster`. ``nodes=N`` starts a kubelet on
``node-1`` ... ``node-N`` (concurrently), after the drivers of cluster-scoped profiles; a running
cluster takes more with :meth:`NodeStartup.add_kubelet`. Starting returns once every node is
Ready and has published its drivers' slices, watched through the shared slice informer rather
than polled. Stages and driver profiles are parsed once for all the nodes; a DeviceClass named
after each driver is created up front, as the examples and docs expect. With
``kubelet_root_dir`` or ``driver_commands`` each node gets a kubelet directory where real DRA
drivers register, and each driver command runs once per node (``fakeapi.kubelet.plugins``).

When the cluster authenticates, a kubelet is ``system:node:<name>``, its simulated drivers write
claim status as their DaemonSet pod's service account on that node, a cluster-scoped driver as
its controller's (:mod:`fakeapi.cluster.identities`); with RBAC each driver gets the roles its
install manifest would bring, and an external driver a kubeconfig of its own node's identity.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakeapi.auth.authorizer import RBAC
from fakeapi.auth.user import UserInfo
from fakeapi.client import (
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
    DEVICE_CLASSES,
    NODES,
    RESOURCE_SLICES,
    Client,
    Informer,
)
from fakeapi.clock import RealClock
from fakeapi.cluster.components import new_cluster_driver, new_kubelet
from fakeapi.cluster.identities import (
    cluster_driver_user,
    driver_policy,
    node_driver_user,
    node_user,
)
from fakeapi.cluster.options import driver_profile, stages_of
from fakeapi.cluster.wiring import ComponentWiring

if TYPE_CHECKING:
    from fakeapi.kubelet import DriverProfile, Kubelet, Stage
    from fakeapi.kubelet.plugins.command import DriverProcess

__all__ = ["CLUSTER_DRIVER_FIELD_MANAGER", "KUBELET_FIELD_MANAGER", "NODES_READY_TIMEOUT",
           "NodeStartup"]

KUBELET_FIELD_MANAGER = "kubelet"
CLUSTER_DRIVER_FIELD_MANAGER = "fakeapi-cluster-driver"
#: how long start() waits for the simulated nodes to be Ready and to publish their devices
NODES_READY_TIMEOUT = 30.0


async def _published(
    slices: Informer, wanted: set[tuple[str, str]], *, timeout: float
) -> None:
    """Wait until the slice informer holds a slice for every (node name, driver) in ``wanted``
    ("" for cluster-scoped pools); event-driven, through the informer's handlers."""
    done = asyncio.Event()

    def seen(_obj: object = None, _new: object = None) -> None:
        if done.is_set():  # the handler stays on the informer: be cheap once done
            return
        have = {
            (str(spec.get("nodeName") or ""), str(spec.get("driver") or ""))
            for obj in slices.list()
            for spec in [obj.get("spec") or {}]
        }
        if wanted <= have:
            done.set()

    slices.add_handler(on_add=seen, on_update=seen)
    seen()
    try:
        async with asyncio.timeout(timeout):
            await done.wait()
    except TimeoutError:
        have = {(str((o.get("spec") or {}).get("nodeName") or ""),
                 str((o.get("spec") or {}).get("driver") or "")) for o in slices.list()}
        missing = ", ".join(f"{driver} on {node or 'the cluster'}"
                            for node, driver in sorted(wanted - have))
        raise TimeoutError(
            f"simulated drivers did not publish in {timeout:g}s: {missing}"
        ) from None


class NodeStartup(ComponentWiring):
    """Kubelets, cluster drivers and their readiness (see the module docstring)."""

    nodes: int
    #: the driver profiles as given (shipped names, YAML files, parsed profiles)
    profiles: tuple[Any, ...]
    stages: Any
    #: the simulated kubelets by node name, for fault injection (``mark_device_unhealthy``...)
    kubelets: dict[str, Kubelet]
    #: driver binaries run once per node, and the processes of each node
    driver_commands: tuple[str, ...]
    driver_processes: dict[str, list[DriverProcess]]
    #: the nodes' kubelet directories live here (None: no external drivers)
    kubelet_root_dir: Path | None
    _driver_profiles: list[DriverProfile]
    _tmpdir: str | None

    def node_names(self) -> list[str]:
        """The simulated nodes' names: ``node-1`` ... ``node-<nodes>``."""
        return [f"node-{i}" for i in range(1, self.nodes + 1)]

    def _commands(self, profiles: Sequence[DriverProfile]) -> tuple[str, ...]:
        """The driver binaries a node runs: ``driver_commands`` and the commands of the real
        drivers among ``profiles``."""
        return self.driver_commands + tuple(p.command for p in profiles if p.command)

    @property
    def profile_names(self) -> list[str]:
        """The driver profiles' names (a file's is the name inside it, once started)."""
        if hasattr(self, "_driver_profiles"):
            return [profile.name for profile in self._driver_profiles]
        return [str(getattr(entry, "name", entry)) for entry in self.profiles]

    async def _start_kubelets(self, options: Mapping[str, Any]) -> None:
        """Cluster-scoped drivers first, then one kubelet per node (started concurrently), then
        wait until every node is Ready and has published each of its drivers' slices."""
        profiles = self._driver_profiles
        if not self.nodes:
            return
        await self._create_driver_policies(profiles)
        for profile in profiles:
            if profile.scope == "cluster":
                context = self._context(
                    "kubelets", field_manager=CLUSTER_DRIVER_FIELD_MANAGER, rng=profile.driver,
                    user=cluster_driver_user(profile.driver),
                )
                await self._run("kubelets", new_cluster_driver(context, profile=profile))
        options = dict(options)
        stages = stages_of(options.pop("stages", self.stages))  # parsed once for every node
        kubelets = [
            self._new_kubelet(
                name, drivers=profiles, stages=stages, options={"node_index": index, **options}
            )
            for index, name in enumerate(self.node_names(), 1)
        ]
        await asyncio.gather(*(self._run("kubelets", kubelet) for kubelet in kubelets))
        for node in self.node_names():
            await self._start_driver_processes(node, profiles)
        await self._nodes_ready(self.node_names(), profiles, cluster_pools=True)

    def _new_kubelet(
        self,
        node: str,
        *,
        drivers: Sequence[DriverProfile],
        stages: Sequence[Stage],
        options: Mapping[str, Any],
    ) -> Kubelet:
        context = self._context(
            "kubelets", field_manager=KUBELET_FIELD_MANAGER, rng=node, user=node_user(node)
        )
        if self.security.authenticates:
            options = {**options, "driver_clients": self._driver_clients(node)}
        root = self._kubelet_root_dir(drivers)
        if root is not None:
            options = {"root_dir": root / node, **options}
        simulated = [profile for profile in drivers if not profile.command]
        labels = {k: v for p in drivers if p.command for k, v in p.node_labels.items()}
        if labels:
            options = {**options, "labels": {**labels, **(options.get("labels") or {})}}
        kubelet = new_kubelet(
            context, node_name=node, drivers=simulated, stages=stages, **options
        )
        self.kubelets[node] = kubelet
        return kubelet

    def _driver_clients(self, node: str) -> Callable[[str], Client]:
        """The client each simulated driver of ``node`` writes claim status with."""

        def client(driver: str) -> Client:
            return self._component_client(KUBELET_FIELD_MANAGER,
                                          user=node_driver_user(driver, node))

        return client

    async def _create_driver_policies(self, profiles: Sequence[DriverProfile]) -> None:
        """With RBAC, the roles each driver's install manifest would bring (created once)."""
        if RBAC not in self.security.modes:
            return
        client = self.client_for("fakeapi-assembler")
        for profile in profiles:
            # a cluster-scoped driver's controller, and any driver a kubelet runs
            policy = driver_policy(profile.driver, cluster_scoped=False,
                                   node_local=profile.scope != "cluster")
            if profile.scope == "cluster":
                policy += driver_policy(profile.driver, cluster_scoped=True)
            for obj in policy:
                resource = CLUSTER_ROLES if obj["kind"] == "ClusterRole" else CLUSTER_ROLE_BINDINGS
                await client.apply(resource, body=obj, force=True)

    def _node_kubeconfig(self, node: str) -> str:
        """The kubeconfig of ``node``'s external drivers: the cluster's, or one of the node's own
        identity when the cluster authenticates (written beside the cluster's)."""
        if not self.security.authenticates or self.tokens is None:
            return str(self.kubeconfig)
        path = self.kubeconfig.parent / f"kubeconfig-{node}"
        if not path.exists():
            self._write_kubeconfig(path, user=node_user(node))
        return str(path)

    def _write_kubeconfig(self, path: Path, *, user: UserInfo) -> None:
        raise NotImplementedError  # the assembler writes kubeconfigs (fakeapi.cluster.assembler)

    async def add_kubelet(
        self,
        node: str,
        *,
        drivers: Sequence[DriverProfile | str] | None = None,
        wait: bool = True,
        **options: Any,
    ) -> Kubelet:
        """Start a simulated kubelet for ``node`` on this running cluster and return it.

        ``drivers`` are its DRA drivers' profiles (objects, shipped profile names or profile
        YAML files; None: the cluster's ``profiles``); a cluster-scoped profile only labels the
        node, its driver runs once per cluster (with the cluster's ``profiles``). ``options`` go
        to the kubelet over ``component_options["kubelets"]``: ``stages`` (as the cluster's),
        ``capacity``, ``labels``, ``feature_gates``... With ``wait``, returns once the node is
        Ready and has published its node-scoped drivers' slices; without, at once (the test
        drives time). A node whose kubelet was stopped may get a new one.
        """
        self._require_started("add_kubelet")
        current = self.kubelets.get(node)
        if current is not None and current.running:
            raise RuntimeError(f"node {node} already has a running kubelet")
        self._running = [entry for entry in self._running if entry[1] is not current]
        profiles = self._driver_profiles if drivers is None else [
            driver_profile(d) for d in drivers
        ]
        options = self._options("kubelets", options)
        stages = stages_of(options.pop("stages", self.stages))
        await self._create_driver_policies(profiles)
        kubelet = self._new_kubelet(node, drivers=profiles, stages=stages, options=options)
        await self._run("kubelets", kubelet)
        await self._start_driver_processes(node, profiles)
        if wait:
            await self._nodes_ready([node], profiles, cluster_pools=False)
        return kubelet

    def _kubelet_root_dir(self, profiles: Sequence[DriverProfile]) -> Path | None:
        """Where the nodes' kubelet directories go: ``kubelet_root_dir``, or a temporary
        directory of the cluster's when only driver commands ask for one."""
        if self.kubelet_root_dir is None and self._commands(profiles):
            if self._tmpdir is None:
                self._tmpdir = tempfile.mkdtemp(prefix="fakeapi-")
            self.kubelet_root_dir = Path(self._tmpdir) / "kubelet"
        return self.kubelet_root_dir

    async def _start_driver_processes(self, node: str, profiles: Sequence[DriverProfile]) -> None:
        """Run each driver command for ``node`` (with its kubelet directory and a kubeconfig)."""
        commands = self._commands(profiles)
        root = self._kubelet_root_dir(profiles)
        if not commands or root is None:
            return
        # late for start-up time, as the other kubelet imports here
        from fakeapi.kubelet.plugins import KubeletDirectory
        from fakeapi.kubelet.plugins.command import DriverProcess

        processes = self.driver_processes.setdefault(node, [])
        kubeconfig = self._node_kubeconfig(node)
        for command in commands:
            process = DriverProcess(
                command=command, node_name=node, directory=KubeletDirectory(root / node),
                kubeconfig=kubeconfig, clock=RealClock(),
            )
            processes.append(process)
            await self._run("kubelets", process)

    async def _nodes_ready(
        self, nodes: Sequence[str], profiles: Sequence[DriverProfile], *, cluster_pools: bool
    ) -> None:
        """Wait until ``nodes`` have published every node-scoped profile's slices (and, with
        ``cluster_pools``, the cluster-scoped drivers theirs) and are Ready."""
        wanted = {(node, p.driver) for node in nodes for p in profiles if p.scope == "node"}
        if cluster_pools:
            wanted |= {("", p.driver) for p in profiles if p.scope == "cluster"}
        slices = self.informers.informer(RESOURCE_SLICES)
        await _published(slices, wanted, timeout=NODES_READY_TIMEOUT)
        for node in nodes:
            await self.wait_for(NODES, node, condition="Ready", timeout=NODES_READY_TIMEOUT)

    async def _create_device_classes(self, drivers: Sequence[str]) -> None:
        """A DeviceClass per driver, named after it and selecting its devices, as the examples
        and docs expect (``deviceClassName: gpu.example.com``)."""
        if not drivers:
            return
        client = self.client_for("fakeapi-assembler")  # not the test's: not in its report
        for driver in dict.fromkeys(drivers):
            body = {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": driver},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
            }
            await client.apply(DEVICE_CLASSES, body=body, force=True)
