"""The built-in components, made from what the assembler hands each one.

Every component the assembler runs gets a :class:`ComponentContext`, built in one place
(``Cluster.context_for``): its own client — its own field manager, so managed fields and events
say who wrote what; in-process or over HTTP to the cluster's own server, as the cluster's
``transport`` says; its writes fed to the shared informers at once — the cluster's shared
informers, the clock, its own ``random.Random`` derived from the cluster's seed, its feature gates
and the cluster's metrics registry. The functions here turn a context plus the options a test or
a user chose into a component object; :meth:`ComponentContext.arguments` keeps an option from
replacing what the context gives, and merges an option's ``feature_gates`` over the component's.

The component packages are imported inside the functions: ``fakeapi.cluster`` loads in every
pytest run (the plugin), and a test of the API server alone should not pay for the scheduler.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakeapi.client import Client, InformerFactory
from fakeapi.clock import Clock

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from fakeapi.controllers import ControllerManager
    from fakeapi.kubelet import ClusterDriver, DriverProfile, Kubelet, Stage
    from fakeapi.scheduler import Scheduler

__all__ = [
    "ComponentContext",
    "new_cluster_driver",
    "new_controller_manager",
    "new_kubelet",
    "new_scheduler",
]

#: what only the assembler gives a component; an option naming one is refused
_FROM_CONTEXT = frozenset({"client", "informers", "clock", "rng"})


@dataclass(frozen=True, slots=True, kw_only=True)
class ComponentContext:
    """What one component is given by the assembler (see the module docstring)."""

    #: the component's own client, writing as its field manager
    client: Client
    #: the cluster's shared informers (one list + watch per resource for every component)
    informers: InformerFactory
    clock: Clock
    rng: random.Random
    #: the component's feature gates (None: the defaults)
    feature_gates: Mapping[str, bool] | None
    metrics: CollectorRegistry

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
