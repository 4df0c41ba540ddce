"""A control-plane DRA driver: publishes cluster-scoped pools once, not per node.

Network-attached devices belong to no single node: their pool is published once with a
``nodeSelector`` (or ``allNodes``), and it is a controller — not a kubelet — that does it. A
:class:`ClusterDriver` runs such a profile (``scope: cluster``): it keeps the pools' slices in the
API equal to the profile, like a node driver does for its node. Preparing those devices for a pod
still happens on the pod's node: give the same profile to the kubelets too (they prepare and
report health for it, but never publish it). Devices that must be attached before use (binding
conditions, KEP-5007) are attached by the :class:`~fakeapi.kubelet.attacher.DeviceAttacher` it
runs.
"""

from __future__ import annotations

import contextlib

from fakeapi.client import RESOURCE_CLAIMS, RESOURCE_SLICES, Client, InformerFactory
from fakeapi.clock import Clock
from fakeapi.kubelet.attacher import DeviceAttacher
from fakeapi.kubelet.dispatch import Dispatcher, field_key
from fakeapi.kubelet.dra.driver import SimulatedDriver
from fakeapi.kubelet.dra.profiles import DriverProfile
from fakeapi.objects import Obj

__all__ = ["DRIVER_INDEX", "ClusterDriver"]

#: index of the shared slices informer by ``spec.driver``
DRIVER_INDEX = "spec.driver"


class ClusterDriver:
    """Publishes the pools of one ``scope: cluster`` profile; ``start()`` / ``stop()``."""

    def __init__(
        self, *, client: Client, informers: InformerFactory, clock: Clock, profile: DriverProfile
    ) -> None:
        if profile.scope != "cluster":
            raise ValueError(f"profile {profile.name} is node-scoped; kubelets publish it")
        self.profile = profile
        self.informers = informers
        self._slices = informers.informer(RESOURCE_SLICES)
        with contextlib.suppress(ValueError):  # shared index, maybe added already
            self._slices.add_index(DRIVER_INDEX, field_key("spec", "driver"))
        self.driver = SimulatedDriver(
            profile=profile, client=client, clock=clock, list_slices=self._own_slices,
            publish=True,
        )
        self._dispatch = Dispatcher.of(
            self._slices, name=DRIVER_INDEX, keys=field_key("spec", "driver")
        )
        self._claims = informers.informer(RESOURCE_CLAIMS)
        self.attacher = DeviceAttacher(
            client=client, claims=self._claims, clock=clock, driver=profile.driver,
            delay=profile.attach_delay_seconds,
        )

    def _own_slices(self) -> list[Obj]:
        return self._slices.by_index(DRIVER_INDEX, self.profile.driver)

    def _changed(self, _slice: Obj) -> None:
        self.driver.resync()

    async def start(self) -> None:
        self._dispatch.subscribe(self.profile.driver, self._changed)
        self.informers.start()
        await self.informers.wait_for_sync(self._slices, self._claims)
        self.driver.start()
        self.attacher.start()

    async def stop(self, *, remove_slices: bool = False) -> None:
        self._dispatch.unsubscribe(self.profile.driver, self._changed)
        await self.attacher.stop()
        await self.driver.stop(remove_slices=remove_slices)
