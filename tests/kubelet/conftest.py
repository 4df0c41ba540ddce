"""An in-process cluster on a FakeClock for kubelet tests: registry, client, informer factory.

Time only moves when a test calls :meth:`Cluster.advance`, which moves the clock in small steps
and lets every task woken by a step run before the next one, so a test says "five seconds later"
without ever sleeping.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.client import PODS, RESOURCE_CLAIMS, Client, InformerFactory
from fakeapi.clock import FakeClock
from fakeapi.cluster.profiles import load_profile
from fakeapi.kubelet import DriverProfile, Kubelet
from fakeapi.server.inprocess import InProcessTransport

Obj = dict[str, Any]


async def settle(rounds: int = 30) -> None:
    """Let ready tasks run (in-process requests finish within a few loop turns)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


@dataclass
class Cluster:
    clock: FakeClock
    client: Client
    informers: InformerFactory
    kubelets: list[Kubelet] = field(default_factory=list)

    async def advance(self, seconds: float, *, step: float = 0.25) -> None:
        moved = 0.0
        while moved < seconds:
            delta = min(step, seconds - moved)
            self.clock.advance(delta)
            moved += delta
            await settle()

    async def eventually(
        self, check: Callable[[], Awaitable[bool]], *, seconds: float = 60, step: float = 0.25
    ) -> None:
        """Advance the clock until ``check`` holds (at most ``seconds`` of fake time)."""
        moved = 0.0
        while not await check():
            if moved >= seconds:
                raise AssertionError(f"condition not met within {seconds}s of clock time")
            await self.advance(step, step=step)
            moved += step

    async def kubelet(
        self, node: str, *, drivers: Sequence[DriverProfile] | None = None, **kw: Any
    ) -> Kubelet:
        kubelet = Kubelet(
            client=self.client,
            informers=self.informers,
            clock=self.clock,
            rng=random.Random(7),
            node_name=node,
            drivers=[load_profile("gpu")] if drivers is None else drivers,
            **kw,
        )
        await kubelet.start()
        self.kubelets.append(kubelet)
        await settle()
        return kubelet

    async def pod(self, name: str, namespace: str = "default") -> Obj | None:
        try:
            return await self.client.get(PODS, namespace=namespace, name=name)
        except Exception:
            return None

    async def claim(self, name: str, namespace: str = "default") -> Obj:
        return await self.client.get(RESOURCE_CLAIMS, namespace=namespace, name=name)

    async def phase(self, name: str) -> str | None:
        """The pod's ``status.phase``; None when it does not exist."""
        pod = await self.pod(name)
        return None if pod is None else pod["status"].get("phase")

    async def until_phase(self, phase: str, *names: str, seconds: float = 10) -> None:
        """Advance the clock until every pod named is in ``phase``."""

        async def reached() -> bool:
            return all([await self.phase(name) == phase for name in names])

        await self.eventually(reached, seconds=seconds)

    async def until_gone(self, *names: str, seconds: float = 5) -> None:
        """Advance the clock until no pod named exists any more."""

        async def gone() -> bool:
            return all([await self.pod(name) is None for name in names])

        await self.eventually(gone, seconds=seconds)


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    clock = FakeClock()
    registry = new_registry(clock=clock)
    client = Client(InProcessTransport(registry), field_manager="tests")
    informers = InformerFactory(client, clock=clock)
    c = Cluster(clock=clock, client=client, informers=informers)
    yield c
    for kubelet in c.kubelets:
        await kubelet.stop()
    await informers.stop()
