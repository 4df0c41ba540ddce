"""The components of a cluster: each made from its own context, started, stopped, started again.

The second room of :class:`~fakeapi.cluster.assembler.Cluster`. :meth:`ComponentWiring._context`
is the one place a component gets what it works with (its client and field manager, the shared
informers, the clock, its random source, its gates, its supervisor, and — when the cluster
authenticates — its identity, :mod:`fakeapi.cluster.identities`); the built-in controllers and
scheduler and a user's components (``extra_components``) are all made from one. Components may
start later, one at a time, on a running cluster (:meth:`ComponentWiring.start_component`),
which is how the component test suites build theirs. User components start after the built-in
ones and stop before them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fakeapi.auth.settings import SecuritySettings
from fakeapi.auth.user import UserInfo
from fakeapi.client import Client, EventRecorder, InformerFactory, strip_managed_fields
from fakeapi.cluster.access import InProcessAccess
from fakeapi.cluster.components import (
    Component,
    ComponentContext,
    new_controller_manager,
    new_scheduler,
)
from fakeapi.cluster.extensions import ComponentFactory, ExtraComponent
from fakeapi.cluster.identities import (
    ADMIN_USER,
    INFORMERS_USER,
    SCHEDULER_USER,
    Tokens,
    controller_user,
)
from fakeapi.cluster.options import (
    AVAILABLE_COMPONENTS,
    check_components,
    scheduler_profile,
)
from fakeapi.cluster.supervision import ComponentSupervisor
from fakeapi.server.inprocess import InProcessTransport

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from fakeapi.controllers import ControllerManager
    from fakeapi.scheduler import Scheduler
    from fakeapi.scheduler.framework import PluginFactory

__all__ = [
    "CONTROLLER_MANAGER_FIELD_MANAGER",
    "ComponentWiring",
    "INFORMERS_FIELD_MANAGER",
    "SCHEDULER_FIELD_MANAGER",
]

#: field managers of the components' clients (as upstream's components name themselves)
CONTROLLER_MANAGER_FIELD_MANAGER = "kube-controller-manager"
SCHEDULER_FIELD_MANAGER = "kube-scheduler"
#: the shared informers' client, which only lists and watches
INFORMERS_FIELD_MANAGER = "fakeapi-informers"


class ComponentWiring(InProcessAccess):
    """Contexts, clients and the start and stop of single components (module docstring)."""

    transport: str
    #: the API server of another process the components work against (None: this cluster's)
    api_url: str | None
    seed: int
    feature_gates: dict[str, bool] | None
    component_feature_gates: dict[str, dict[str, bool]]
    component_options: dict[str, dict[str, Any]]
    #: the controllers the controller manager runs (None: all of them)
    controllers: tuple[str, ...] | None
    #: the user's components by name, in start order
    extra_components: dict[str, ComponentFactory]
    #: out-of-tree scheduler plugins by name
    scheduler_plugins: dict[str, PluginFactory]
    scheduler_config: Any
    metrics: CollectorRegistry
    informers: InformerFactory
    controller_manager: ControllerManager | None
    scheduler: Scheduler | None
    #: the running components with their names, in start order
    _running: list[tuple[str, Component]]
    _clients: list[Client]
    #: the registry, server and shared informers are up: components can start
    _wired: bool
    #: authentication, authorization and TLS (all off by default)
    security: SecuritySettings
    #: the bearer tokens of the cluster's identities (None: nobody is authenticated)
    tokens: Tokens | None

    # --- what a component is given ----------------------------------------------------------
    def identity(self, user: UserInfo) -> UserInfo | None:
        """``user`` when the cluster authenticates, else None (every client is trusted)."""
        return user if self.security.authenticates else None

    def client_for(self, field_manager: str) -> Client:
        """A new in-process client writing as ``field_manager`` (closed with the cluster), as the
        cluster's admin when it authenticates; over HTTP when the API server is another
        process's (``api_url``)."""
        if self.api_url is not None:
            return self._component_client(field_manager, observed=False)
        transport = InProcessTransport(self.registry, user=self.identity(ADMIN_USER))
        client = Client(transport, field_manager=field_manager)
        self._clients.append(client)
        return client

    def client_as(
        self,
        user: str,
        *,
        groups: tuple[str, ...] = (),
        field_manager: str = "fakeapi-test",
        namespace: str | None = None,
    ) -> Client:
        """An in-process client of ``user`` in ``groups`` (and ``system:authenticated``): its
        requests are authorized as that user's over HTTP would be (by the cluster's
        ``authorization`` modes; with none, everything is allowed). Closed with the cluster."""
        groups = tuple(groups) if "system:authenticated" in groups else (
            *groups, "system:authenticated"
        )
        transport = InProcessTransport(self.registry, user=UserInfo(user, groups=groups))
        client = Client(transport, field_manager=field_manager, resolve=self.resource,
                        namespace=namespace or self.namespace)
        self._clients.append(client)
        return client

    def gates_of(self, component: str) -> dict[str, bool] | None:
        """The feature gates ``component`` runs with: the cluster-wide map, overridden by its
        own entries in ``component_feature_gates`` (None: the defaults)."""
        own = self.component_feature_gates.get(component)
        if not own:
            return self.feature_gates
        return {**(self.feature_gates or {}), **own}

    def rng(self, component: str) -> random.Random:
        """The component's own random source: the same seed gives the same run."""
        return random.Random(f"{self.seed}:{component}")

    def _new_informers(self) -> InformerFactory:
        """The informers every component shares; like kube-controller-manager's (all kinds) and
        kube-scheduler's (pods), they drop managedFields, which none reads. They list and watch
        as kube-controller-manager's own informers do (``system:kube-controller-manager``)."""
        return InformerFactory(
            self._component_client(INFORMERS_FIELD_MANAGER, observed=False, user=INFORMERS_USER),
            clock=self.clock,
            transform=strip_managed_fields,
        )

    def _component_client(
        self, field_manager: str, *, observed: bool = True, user: UserInfo = ADMIN_USER
    ) -> Client:
        """A client for one component, over the cluster's transport, as ``user`` when the
        cluster authenticates; its writes reach the shared informers at once (``observed``)."""
        identity = self.identity(user)
        if self.transport == "http":
            from fakeapi.client import SessionTransport

            url = self.api_url or (self.server.url if self.server is not None else None)
            assert url is not None  # served by start() before any component
            # no certificate store to load: plain HTTP, or the cluster's own server over TLS
            token = self.tokens.token(identity) if identity and self.tokens else None
            transport: Any = SessionTransport(url, verify=False, token=token)
        else:
            transport = InProcessTransport(self.registry, user=identity)
        # resources may be named as kubectl names them ("configmaps"), as with the test's client
        client = Client(transport, field_manager=field_manager, resolve=self.resource)
        self._clients.append(client)
        if observed:
            self.informers.observe_writes_of(client)
        return client

    def _context(
        self,
        component: str,
        *,
        field_manager: str,
        rng: str | None = None,
        user: UserInfo = ADMIN_USER,
    ) -> ComponentContext:
        """What ``component`` is given: its own client writing as ``field_manager`` (as ``user``
        when the cluster authenticates), the shared informers, the clock, its own random source
        (named ``rng``, or after the component), its feature gates and a supervisor. Every
        component is wired here, and only here."""
        client = self._component_client(field_manager, user=user)

        def recorder() -> EventRecorder:
            return EventRecorder(client, component=field_manager, clock=self.clock)

        url = self.api_url or (self.server.url if self.server is not None else None)
        served = url is not None and self._kubeconfig_path is not None
        return ComponentContext(
            name=component,
            client=client,
            informers=self.informers,
            clock=self.clock,
            rng=self.rng(rng or component),
            feature_gates=self.gates_of(component),
            metrics=self.metrics,
            url=url,
            kubeconfig=self._kubeconfig_path if served else None,
            supervisor=ComponentSupervisor(
                component=component, errors=self.component_errors, make_recorder=recorder
            ),
        )

    # --- starting and stopping ---------------------------------------------------------------
    async def _run(self, name: str, component: Component) -> None:
        self._running.append((name, component))  # stopped on failure too: start may be half done
        await component.start()

    def _require_started(self, what: str) -> None:
        if not self._wired:
            raise RuntimeError(f"{what} needs a started cluster: await cluster.start() first")

    def _options(self, name: str, options: Mapping[str, Any]) -> dict[str, Any]:
        return {**self.component_options.get(name, {}), **options}

    async def start_component(self, name: str, **options: Any) -> None:
        """Start component ``name`` on this running cluster, with ``options`` for its
        constructor over those of ``component_options``: ``"controllers"`` (``controllers=``
        names which; the cluster's ``controllers`` otherwise), ``"scheduler"`` (e.g.
        ``scheduler_name=``; the cluster's ``scheduler_plugins`` and ``scheduler_config`` unless
        given as ``plugins=`` and ``profile=``), ``"kubelets"`` (the ``nodes`` kubelets, each
        with the options; it returns once they are Ready and have published), or one of the
        cluster's ``extra_components`` (no options: its factory has what it needs). A component
        runs once at a time and may start again after :meth:`stop_component` (a restarted
        scheduler records into the cluster's metric families it registered before)."""
        self._require_started(f"starting {name}")
        check_components((name,), extra=self.extra_components)
        if any(running == name for running, _ in self._running):
            raise RuntimeError(f"{name} already runs: stop_component({name!r}) first")
        if name in self.extra_components:
            if options:
                raise TypeError(f"{name} takes no options: its factory has what it needs")
            context = self._context(name, field_manager=name)
            await self._run(name, ExtraComponent(name, self.extra_components[name], context))
            return
        options = self._options(name, options)
        if name == "controllers":
            options.setdefault("controllers", self.controllers)
            context = self._context(name, field_manager=CONTROLLER_MANAGER_FIELD_MANAGER)
            if self.security.authenticates:  # --use-service-account-credentials
                options.setdefault("clients", self._controller_client)
            self.controller_manager = new_controller_manager(context, **options)
            await self._run(name, self.controller_manager)
        elif name == "scheduler":
            if self.scheduler_plugins:
                options.setdefault("plugins", self.scheduler_plugins)
            if self.scheduler_config is not None and "profile" not in options:
                options["profile"] = scheduler_profile(
                    self.scheduler_config, feature_gates=self.gates_of(name)
                )
            context = self._context(
                name, field_manager=SCHEDULER_FIELD_MANAGER, user=SCHEDULER_USER
            )
            self.scheduler = new_scheduler(context, **options)
            await self._run(name, self.scheduler)
        elif name == "kubelets":
            await self._start_kubelets(options)
        else:  # pragma: no cover - AVAILABLE_COMPONENTS and this switch go together
            raise ValueError(f"component {name} is not available in this build")

    def _controller_client(self, controller: str) -> Client:
        """The client of one controller: its own service account, one field manager for all."""
        return self._component_client(
            CONTROLLER_MANAGER_FIELD_MANAGER, user=controller_user(controller)
        )

    async def _start_kubelets(self, options: Mapping[str, Any]) -> None:
        raise NotImplementedError  # the nodes' room (fakeapi.cluster.nodes) starts them

    async def stop_component(self, name: str) -> None:
        """Stop component ``name`` (every kubelet and cluster driver, for ``"kubelets"``); the
        objects it wrote stay, as when a real component goes down. Nothing if it does not run."""
        check_components((name,), extra=self.extra_components)
        for entry in reversed(list(self._running)):
            if entry[0] == name:
                self._running.remove(entry)
                await entry[1].stop()
        if name == "controllers":
            self.controller_manager = None
        elif name == "scheduler":
            self.scheduler = None

    async def _stop_components(self) -> None:
        """Stop every running component, the user's first, each group in reverse start order;
        a user component that failed to stop is raised once all are stopped."""
        failed: list[BaseException] = []
        for builtin in (False, True):
            for entry in reversed(list(self._running)):
                if (entry[0] in AVAILABLE_COMPONENTS) is not builtin:
                    continue
                self._running.remove(entry)
                try:
                    await entry[1].stop()
                except Exception as exc:
                    if builtin:
                        raise
                    failed.append(exc)
        self.controller_manager = None
        self.scheduler = None
        if failed:
            raise failed[0]

    async def reset_informers(self) -> None:
        """Start the shared informers over, with empty caches: the components started next list
        everything afresh, as after a restart of their processes. Only while none runs."""
        if self._running:
            running = ", ".join(dict.fromkeys(name for name, _ in self._running))
            raise RuntimeError(f"{running} still use the informers: stop them first")
        await self.informers.stop()
        self.informers = self._new_informers()
