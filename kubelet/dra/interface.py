"""What the kubelet needs of a DRA driver, whichever kind it is.

Two kinds implement :class:`DRADriver`:

- :class:`~fakeapi.kubelet.dra.driver.SimulatedDriver`, the in-process driver made from a
  profile, which publishes its own slices and answers prepare and unprepare as plain calls;
- :class:`~fakeapi.kubelet.plugins.external.ExternalDriver`, a real driver in another process,
  reached over the kubelet's plugin gRPC APIs once it registered through ``plugins_registry/``.

The kubelet's DRA manager (:mod:`.manager`), its pod sync and its health cache see only this
interface: a claim is prepared, unprepared and reported on in the same way for both, which is
what lets a driver author's binary stand where a simulated driver stood. Fault injection that
changes what the kubelet *sees* of a driver (a device reported Unhealthy, health silenced) is part
of the interface; what differs — how a driver stops (a simulated driver unregisters, an external
one loses its registration socket) — stays with the kubelet, which knows the kinds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from fakeapi.kubelet.dra.driver import ClaimID, HealthSink, PreparedClaim

__all__ = ["DRADriver"]

Obj = dict[str, Any]


class DRADriver(Protocol):
    """One DRA driver of a node, as the kubelet uses it."""

    #: the driver name (``spec.driver`` of its slices, ``driver`` of allocation results)
    name: str
    #: the driver streams no health while set (its devices time out to Unknown)
    silenced: bool

    @property
    def running(self) -> bool:
        """Registered: prepare and unprepare can be called."""
        ...

    def start(self, *, health_sink: HealthSink | None = None) -> None:
        """Begin: register (simulated) or accept registrations (external)."""
        ...

    async def stop(self, *, remove_slices: bool = True) -> None:
        """End: unregister; ``remove_slices`` asks for the driver's slices to go as well."""
        ...

    def resync(self) -> None:
        """The node's slices changed (a driver that publishes compares them again)."""
        ...

    def prepared(self) -> dict[str, PreparedClaim]:
        """The claims prepared by this driver on this node, by claim UID."""
        ...

    async def prepare_claims(self, claims: Sequence[Obj]) -> dict[str, PreparedClaim]:
        """NodePrepareResources for ``claims`` (ResourceClaim objects) of one pod; by claim UID.
        Idempotent; raises :class:`~.driver.PrepareError` with upstream's message."""
        ...

    async def unprepare_claims(self, claims: Sequence[ClaimID]) -> None:
        """NodeUnprepareResources; raises :class:`~.driver.UnprepareError` when not done."""
        ...

    def set_unhealthy(self, devices: Mapping[str, str]) -> None:
        """Fault injection: ``devices`` (name -> message) are seen Unhealthy, the rest as the
        driver reports them."""
        ...
