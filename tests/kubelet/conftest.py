"""Kubelet tests' cluster: the assembler's API server on a FakeClock, kubelets started one by one.

``cluster`` is an API-server-only :class:`fakeapi.cluster.assembler.Cluster` (no controllers, no
scheduler, no device classes); a test starts the kubelets it wants with
:meth:`Cluster.kubelet` (the assembler's ``add_kubelet``: a named node, chosen driver profiles and
kubelet options) and writes what the scheduler and controllers would write through the client.

Time only moves when a test calls :meth:`Cluster.advance`, which moves the clock in small steps
and lets every task woken by a step run before the next one, so a test says "five seconds later"
without ever sleeping; :meth:`Cluster.eventually` moves it the same way until a condition holds
(:func:`fakeapi.cluster.eventually`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest

from fakeapi.client import PODS, RESOURCE_CLAIMS, Client, InformerFactory, StatusError
from fakeapi.clock import FakeClock
from fakeapi.cluster import eventually
from fakeapi.cluster.assembler import Cluster as AssembledCluster
from fakeapi.cluster.profiles import load_profile
from fakeapi.cluster.waiting import advance, settle
from fakeapi.kubelet import DriverProfile, Kubelet

Obj = dict[str, Any]
#: how far the fake clock moves between checks of a condition
STEP = 0.25


class Cluster:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.assembler = AssembledCluster(components=(), profiles=(), clock=self.clock)
        #: the kubelets this test started (a test removes one it stopped itself)
        self.kubelets: list[Kubelet] = []

    @property
    def client(self) -> Client:
        return self.assembler.client

    @property
    def informers(self) -> InformerFactory:
        """The informers the kubelets share (and any component a test makes itself)."""
        return self.assembler.informers

    async def advance(self, seconds: float, *, step: float = STEP) -> None:
        await advance(self.clock, seconds, step=step)

    async def eventually(
        self,
        check: Callable[[], Awaitable[Any]],
        *,
        seconds: float = 60,
        step: float = STEP,
        what: str | None = None,
    ) -> Any:
        """Advance the clock until ``check`` holds (at most ``seconds`` of fake time)."""
        return await eventually(check, clock=self.clock, step=step, timeout=seconds, what=what)

    async def kubelet(
        self, node: str, *, drivers: Sequence[DriverProfile] | None = None, **options: Any
    ) -> Kubelet:
        """Start a kubelet for ``node`` (drivers: the gpu profile unless given) and let it
        register; the test moves the clock from there."""
        kubelet = await self.assembler.add_kubelet(
            node, drivers=[load_profile("gpu")] if drivers is None else drivers, wait=False,
            **options,
        )
        self.kubelets.append(kubelet)
        await settle()
        return kubelet

    async def pod(self, name: str, namespace: str = "default") -> Obj | None:
        try:
            return await self.client.get(PODS, namespace=namespace, name=name)
        except StatusError as exc:
            if exc.code == 404:
                return None
            raise

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

        await self.eventually(reached, seconds=seconds, what=f"{', '.join(names)} in {phase}")

    async def until_gone(self, *names: str, seconds: float = 5) -> None:
        """Advance the clock until no pod named exists any more."""

        async def gone() -> bool:
            return all([await self.pod(name) is None for name in names])

        await self.eventually(gone, seconds=seconds, what=f"{', '.join(names)} to be gone")


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    made = Cluster()
    await made.assembler.start()
    try:
        yield made
    finally:
        await made.assembler.stop()
