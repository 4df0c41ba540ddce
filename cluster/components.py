"""What a component is to the assembler, what it is given, and how the built-in ones are made.

A :class:`Component` is anything with ``async start()`` (synced and running when it returns) and
``async stop()``. Every component the assembler runs — the built-in ones and a user's own
(``Cluster(extra_components=[...])``) — gets a :class:`ComponentContext`, built in one place
(``Cluster._context``): its name; its own client — its own field manager, so managed fields and
events say who wrote what; in-process or over HTTP to the cluster's own server, as the cluster's
``transport`` says; its writes fed to the shared informers at once — the cluster's shared
informers, the clock, its own ``random.Random`` derived from the cluster's seed, its feature
gates, the cluster's metrics registry, the server's URL and kubeconfig when it serves HTTP, and
a supervisor (``fakeapi.cluster.supervision``) that gives it an event recorder, a logger and
tasks whose failures reach the test's failure report.

The functions here turn a context plus the options a test or a user chose into a built-in
component; :meth:`ComponentContext.arguments` keeps an option from replacing what the context
gives, and merges an option's ``feature_gates`` over the component's.

The component packages are imported inside the functions: ``fakeapi.cluster`` loads in every
pytest run (the plugin), and a test of the API server alone should not pay for the scheduler.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from fakeapi.client import Client, EventRecorder, InformerFactory
from fakeapi.clock import Clock
from fakeapi.cluster.supervision import ComponentSupervisor

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from fakeapi.controllers import ControllerManager
    from fakeapi.kubelet import ClusterDriver, DriverProfile, Kubelet, Stage
    from fakeapi.scheduler import Scheduler

__all__ = [
    "Component",
    "ComponentContext",
    "new_cluster_driver",
    "new_controller_manager",
    "new_kubelet",
    "new_scheduler",
]

T = TypeVar("T")

#: what only the assembler gives a component; an option naming one is refused
_FROM_CONTEXT = frozenset({"client", "informers", "clock", "rng"})


class Component(Protocol):
    """What the assembler needs of a component: start (synced and running) and stop."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentContext:
    """What one component is given by the assembler (see the module docstring)."""

    #: the component's name (its field manager, for a user's component)
    name: str
    #: the component's own client, writing as its field manager
    client: Client
    #: the cluster's shared informers (one list + watch per resource for every component)
    informers: InformerFactory
    clock: Clock
    #: the component's own random source, seeded from the cluster's seed and its name
    rng: random.Random
    #: the component's feature gates (None: the defaults)
    feature_gates: Mapping[str, bool] | None
    metrics: CollectorRegistry
    #: the API server's URL and a kubeconfig for it, when the cluster serves HTTP (else None):
    #: for clients other than fakeapi's (kopf, kubernetes_asyncio, lightkube)
    url: str | None = None
    kubeconfig: Path | None = None
    #: the assembler's bookkeeping of the component: its tasks, errors, logger and recorder
    supervisor: ComponentSupervisor

    @property
    def recorder(self) -> EventRecorder:
        """An events.k8s.io recorder reporting as the component (made on first use, closed
        when the component stops)."""
        return self.supervisor.recorder

    @property
    def log(self) -> logging.LoggerAdapter:  # type: ignore[type-arg]
        """The component's logger; its warnings and errors go to the test's failure report."""
        return self.supervisor.log

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run ``coro`` as a task of the component: cancelled when the component stops, and an
        exception it ends with goes to the test's failure report."""
        return self.supervisor.spawn(coro, name=name)

    def arguments(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The keyword arguments of a component taking the whole context, with ``options``
        added; ``options["feature_gates"]`` is merged over the component's gates."""
        given = sorted(_FROM_CONTEXT & options.keys())
        if given:
            raise TypeError(
                f"{', '.join(given)}: the assembler gives every component its own; "
                "options cannot replace them"
            )
        gates = self.feature_gates
        if options.get("feature_gates") is not None:
            gates = {**(gates or {}), **options["feature_gates"]}
        return {
            "client": self.client,
            "informers": self.informers,
            "clock": self.clock,
            "rng": self.rng,
            "metrics": self.metrics,
            **options,
            "feature_gates": gates,
        }


def new_controller_manager(context: ComponentContext, **options: Any) -> ControllerManager:
    """kube-controller-manager: ``controllers=`` names the controllers it runs (None: all)."""
    from fakeapi.controllers import ControllerManager

    return ControllerManager(**context.arguments(options))


def new_scheduler(context: ComponentContext, **options: Any) -> Scheduler:
    """kube-scheduler; ``options`` are :class:`~fakeapi.scheduler.Scheduler` arguments
    (``scheduler_name``, ``profile``, ``registry``...)."""
    from fakeapi.scheduler import Scheduler

    return Scheduler(**context.arguments(options))


def new_kubelet(
    context: ComponentContext,
    *,
    node_name: str,
    drivers: Sequence[DriverProfile],
    stages: Sequence[Stage],
    **options: Any,
) -> Kubelet:
    """A simulated kubelet for ``node_name`` with ``drivers``' simulated DRA drivers; ``options``
    are :class:`~fakeapi.kubelet.Kubelet` arguments (``capacity``, ``labels``, ``workers``...)."""
    from fakeapi.kubelet import Kubelet

    return Kubelet(
        node_name=node_name, drivers=drivers, stages=stages, **context.arguments(options)
    )


def new_cluster_driver(context: ComponentContext, *, profile: DriverProfile) -> ClusterDriver:
    """The driver of a cluster-scoped profile: it publishes pools no node owns."""
    from fakeapi.kubelet import ClusterDriver

    return ClusterDriver(
        client=context.client, informers=context.informers, clock=context.clock, profile=profile
    )
