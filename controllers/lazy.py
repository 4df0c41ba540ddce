"""Controllers that start with the first object of their kind.

A cluster per test must start in milliseconds, and most tests never create a Deployment, a Job
or a PodDisruptionBudget. The workload controllers are therefore started lazily: the manager
runs a :class:`LazyController` in their place, which only watches the (shared) informer of the
controller's kind. The first object of that kind — or one already there when the manager starts
— builds the real controller, which registers its handlers (being told of every cached object),
waits for its own informers to sync, and then starts its workers, exactly as the manager starts
any controller. Nothing observable differs from starting it up front, as kube-controller-manager
does: controllers are level-based, so the first reconcile sees everything that happened before.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import Any, Protocol

from fakeapi.client import Informer, InformerFactory, Resource, end_tasks
from fakeapi.objects import Obj

__all__ = ["LazyController", "ManagedController", "load_controller"]


class ManagedController(Protocol):
    name: str
    informers: list[Informer]

    def start(self) -> None: ...

    async def stop(self) -> None: ...


def load_controller(path: str) -> Callable[..., ManagedController]:
    """The controller class at ``"module:Class"`` (imported on first use)."""
    module, _, name = path.partition(":")
    found: Callable[..., ManagedController] = getattr(importlib.import_module(module), name)
    return found


class LazyController:
    """Stands in for the controller ``build()`` makes until an object of ``trigger``
    exists; :attr:`real` is the controller once built."""

    def __init__(
        self,
        *,
        name: str,
        trigger: Resource,
        build: Callable[[], ManagedController],
        informers: InformerFactory,
        sync_timeout: float,
    ) -> None:
        self.name = name
        self._build = build
        self._factory = informers
        self._sync_timeout = sync_timeout
        self._trigger = informers.informer(trigger)
        self.informers = [self._trigger]
        self.real: ManagedController | None = None
        self._starting: asyncio.Task[None] | None = None
        self._stopped = False

    def start(self) -> None:
        self._stopped = False
        self._trigger.add_handler(on_add=self._wake)

    def _wake(self, _obj: Obj) -> None:
        if self.real is not None or self._stopped:
            return
        self.real = self._build()
        self._starting = asyncio.get_running_loop().create_task(
            self._start_real(self.real), name=f"{self.name} lazy start"
        )

    async def _start_real(self, real: ManagedController) -> None:
        self._factory.start()
        await self._factory.wait_for_sync(*real.informers, timeout=self._sync_timeout)
        if not self._stopped:
            real.start()

    async def stop(self) -> None:
        self._stopped = True
        if self._starting is not None:
            await end_tasks([self._starting])
            self._starting = None
        if self.real is not None:
            await self.real.stop()
            self.real = None

    def __getattr__(self, attribute: str) -> Any:
        """The real controller's attributes, once it runs (tests reach into controllers)."""
        real = self.__dict__.get("real")
        if real is None:
            raise AttributeError(attribute)
        return getattr(real, attribute)
