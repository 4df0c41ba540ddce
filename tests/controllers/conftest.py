"""A small in-process cluster for controller tests: registry, client, informers, controllers.

``cluster`` is a fresh registry on a FakeClock with a client and an informer factory; tests
start the controllers they want with ``await cluster.start(...)``, act through the client (the
scheduler and kubelets are not running: tests write what they would write), and wait for the
outcome with ``await cluster.eventually(...)`` — a bounded guard that lets the event loop run,
never a timed assertion.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    NAMESPACES,
    RESOURCE_CLAIMS,
    Client,
    HttpTransport,
    InformerFactory,
)
from fakeapi.clock import FakeClock
from fakeapi.controllers import ControllerManager
from fakeapi.registry.store import GenericStore
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.server.runner import ApiServer

DRIVER = "gpu.example.com"

Check = Callable[[], bool | Awaitable[bool]]


class Cluster:
    def __init__(self, *, feature_gates: Mapping[str, bool] | None = None) -> None:
        self.clock = FakeClock()
        self.gates = dict(feature_gates or {})
        self.registry: GenericStore = new_registry(
            clock=self.clock, feature_gates=self.gates or None
        )
        self.client = Client(
            InProcessTransport(self.registry), field_manager="kube-controller-manager"
        )
        #: what a test writes as a user or as the (absent) scheduler
        self.user = Client(InProcessTransport(self.registry), field_manager="test-user")
        self.informers = InformerFactory(self.client, clock=self.clock)
        self.metrics = CollectorRegistry()
        self.manager: ControllerManager | None = None
        self.server: ApiServer | None = None

    async def over_http(self) -> None:
        """Serve the registry over HTTP and give the controllers an HTTP client (call before
        :meth:`start`): the controllers must behave the same over either transport."""
        self.server = ApiServer(registry=self.registry, port=0, metrics=self.metrics)
        await self.server.start()
        await self.informers.stop()
        self.client = Client(
            HttpTransport(self.server.url), field_manager="kube-controller-manager"
        )
        self.informers = InformerFactory(self.client, clock=self.clock)

    async def start(self, controllers: Collection[str] | None = None) -> ControllerManager:
        self.manager = ControllerManager(
            client=self.client,
            informers=self.informers,
            clock=self.clock,
            rng=random.Random(7),
            feature_gates=self.gates,
            metrics=self.metrics,
            controllers=controllers,
        )
        await self.manager.start()
        return self.manager

    async def stop(self) -> None:
        if self.manager is not None:
            await self.manager.stop()
            self.manager = None

    async def close(self) -> None:
        await self.stop()
        await self.informers.stop()
        if self.server is not None:
            await self.client.close()
            await self.server.stop()

    async def eventually(self, check: Check, *, timeout: float = 10.0, message: str = "") -> None:
        """Run the loop until ``check()`` holds (a guard against hanging, not a delay)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = check()
            if inspect.isawaitable(result):
                result = await result
            if result:
                return
            if loop.time() > deadline:
                raise AssertionError(message or "condition not reached")
            await asyncio.sleep(0.002)

    async def settle(self, rounds: int = 50) -> None:
        """Let queued work run (for checks that something did *not* happen)."""
        for _ in range(rounds):
            await asyncio.sleep(0.001)

    async def advance(self, seconds: float) -> None:
        """Move the fake clock and let the woken tasks run."""
        await asyncio.sleep(0)
        self.clock.advance(seconds)
        await self.settle(5)

    # --- objects ------------------------------------------------------------------------------
    async def namespace(self, name: str) -> None:
        await self.user.create(NAMESPACES, body={"metadata": {"name": name}})

    async def claims(self, namespace: str = "default") -> list[dict[str, Any]]:
        return (await self.user.list(RESOURCE_CLAIMS, namespace=namespace)).items

    async def create_claim(self, name: str, **manifest: Any) -> dict[str, Any]:
        """Create :meth:`claim` ``name`` as the user."""
        return await self.user.create(RESOURCE_CLAIMS, body=self.claim(name, **manifest))

    async def allocate(
        self,
        claim: dict[str, Any],
        *,
        devices: list[str],
        reserved_for: list[dict[str, Any]],
        pool: str = "node-1",
        tolerations: list[dict[str, Any]] | None = None,
        reserved_for_any_pod: bool = False,
    ) -> dict[str, Any]:
        """What the scheduler writes when it allocates: the finalizer, then the allocation and
        the reservation."""
        meta = claim["metadata"]
        current = await self.user.get(
            RESOURCE_CLAIMS, namespace=meta["namespace"], name=meta["name"]
        )
        finalizers = current["metadata"].get("finalizers") or []
        if "resource.kubernetes.io/delete-protection" not in finalizers:
            current["metadata"]["finalizers"] = [
                *finalizers,
                "resource.kubernetes.io/delete-protection",
            ]
            current = await self.user.update(RESOURCE_CLAIMS, body=current)
        results = []
        for device in devices:
            result: dict[str, Any] = {
                "request": "gpu",
                "driver": DRIVER,
                "pool": pool,
                "device": device,
            }
            if tolerations:
                result["tolerations"] = tolerations
            results.append(result)
        allocation: dict[str, Any] = {"devices": {"results": results}}
        if reserved_for_any_pod:
            allocation["reservedForAnyPod"] = True
        current["status"] = {"allocation": allocation, "reservedFor": reserved_for}
        return await self.user.update_status(RESOURCE_CLAIMS, body=current)

    # --- manifests -------------------------------------------------------------------------
    @staticmethod
    def template(name: str = "gpu-template", *, namespace: str = "default") -> dict[str, Any]:
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "metadata": {"labels": {"app": "demo"}},
                "spec": {
                    "devices": {
                        "requests": [
                            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
                        ]
                    }
                },
            },
        }

    @staticmethod
    def claim(
        name: str, *, namespace: str = "default", reserved_for: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A claim for one device of class ``gpu.example.com``; ``reserved_for`` is the KEP-5194
        consumer written in its spec."""
        spec: dict[str, Any] = {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}
        }
        if reserved_for is not None:
            spec["reservedFor"] = reserved_for
        return {"metadata": {"name": name, "namespace": namespace}, "spec": spec}

    @staticmethod
    def pod_ref(pod: dict[str, Any]) -> dict[str, Any]:
        """The ``reservedFor`` entry of a pod."""
        return {"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}

    @staticmethod
    def pod(
        name: str,
        *,
        namespace: str = "default",
        claims: list[dict[str, Any]] | None = None,
        group: str | None = None,
        node: str | None = None,
    ) -> dict[str, Any]:
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
        if claims:
            spec["resourceClaims"] = claims
            spec["containers"][0]["resources"] = {"claims": [{"name": c["name"]} for c in claims]}
        if group:
            spec["workloadRef"] = {"name": "training", "podGroupName": group}
        if node:
            spec["nodeName"] = node
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }

    @staticmethod
    def pod_group(
        name: str, *, namespace: str = "default", template_name: str = "gpu-template"
    ) -> dict[str, Any]:
        return {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "workloadRef": {"name": "training"},
                "podGroupTemplateRef": {"name": "workers"},
                "policy": {"basic": {}},
                "resourceClaims": [
                    {"name": "shared-gpu", "resourceClaimTemplateName": template_name}
                ],
            },
        }


@pytest.fixture
def make_cluster() -> Callable[..., Cluster]:
    return Cluster


@pytest.fixture(params=["in-process", "http"])
async def cluster(request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    """A cluster whose controllers use the in-process transport or HTTP (each test runs
    with both: a controller must not depend on which one carries its requests)."""
    c = Cluster()
    try:
        if request.param == "http":
            await c.over_http()
        yield c
    finally:
        await c.close()
