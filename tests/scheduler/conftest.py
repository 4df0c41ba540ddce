"""An in-process cluster for scheduler tests: registry, client, FakeClock, and a Scheduler.

Objects are made through the API with the client, as a user would (nodes, slices, classes,
claims, pods); the scheduler sees them only through its informers. Template claims are made by
the tests the way the resourceclaim controller would (owned by the pod, recorded in the pod's
``status.resourceClaimStatuses``).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    DEVICE_CLASSES,
    EVENTS_K8S_IO,
    NODES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    HttpTransport,
    InformerFactory,
)
from fakeapi.clock import FakeClock
from fakeapi.scheduler import Scheduler
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.server.runner import ApiServer

Obj = dict[str, Any]
DRIVER = "gpu.example.com"


class Cluster:
    """One API server (in-process), a client, a fake clock and at most one scheduler."""

    def __init__(self, *, feature_gates: Mapping[str, bool] | None = None) -> None:
        self.clock = FakeClock()
        self.feature_gates = dict(feature_gates or {})
        self.registry = new_registry(clock=self.clock, feature_gates=feature_gates)
        self.client = Client(InProcessTransport(self.registry), field_manager="test")
        self.metrics = CollectorRegistry()
        self.scheduler: Scheduler | None = None
        self.server: ApiServer | None = None

    async def start_scheduler(self, *, http: bool = False, **kwargs: Any) -> Scheduler:
        """Start the scheduler, in-process or (``http``) talking to an API server over HTTP."""
        if http:
            self.server = ApiServer(registry=self.registry, port=0)
            await self.server.start()
            client = Client(HttpTransport(self.server.url), field_manager="scheduler")
        else:
            client = Client(InProcessTransport(self.registry), field_manager="scheduler")
        informers = InformerFactory(client, clock=self.clock)
        self.scheduler = Scheduler(
            client=client,
            informers=informers,
            clock=self.clock,
            rng=random.Random(1),
            feature_gates=self.feature_gates or None,
            metrics=self.metrics,
            **kwargs,
        )
        await self.scheduler.start()
        return self.scheduler

    async def stop(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.stop()
            await self.scheduler.informers.stop()
            await self.scheduler.client.close()
        if self.server is not None:
            await self.server.stop()

    # -- making objects ---------------------------------------------------------------------------
    async def node(
        self,
        name: str,
        *,
        cpu: str = "4",
        memory: str = "32Gi",
        pods: str = "110",
        labels: Mapping[str, str] | None = None,
        **spec: Any,
    ) -> Obj:
        return await self.client.create(
            NODES,
            body={
                "metadata": {
                    "name": name,
                    "labels": {"kubernetes.io/hostname": name, **(labels or {})},
                },
                "spec": dict(spec),
                "status": {
                    "allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                    "capacity": {"cpu": cpu, "memory": memory, "pods": pods},
                },
            },
        )

    async def device_class(self, name: str = DRIVER, *, driver: str = DRIVER) -> Obj:
        return await self.client.create(
            DEVICE_CLASSES,
            body={
                "metadata": {"name": name},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
            },
        )

    async def slice(
        self, node: str, devices: list[str] | list[Obj] | int, *, driver: str = DRIVER,
        **extra: Any,
    ) -> Obj:
        """The node's one slice: ``devices`` gpu-0.. (a count), named, or given whole."""
        names = devices if isinstance(devices, list) else [f"gpu-{i}" for i in range(devices)]
        return await self.client.create(
            RESOURCE_SLICES,
            body={
                "metadata": {"name": f"{node}-{driver}"},
                "spec": {
                    "driver": driver,
                    "nodeName": node,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "devices": [n if isinstance(n, dict) else {"name": n} for n in names],
                    **extra,
                },
            },
        )

    async def claim(
        self,
        name: str,
        *,
        namespace: str = "default",
        count: int = 1,
        device_class: str = DRIVER,
        **spec: Any,
    ) -> Obj:
        return await self.client.create(
            RESOURCE_CLAIMS,
            body={
                "metadata": {"name": name, "namespace": namespace},
                "spec": {
                    "devices": {
                        "requests": [
                            {
                                "name": "gpu",
                                "exactly": {"deviceClassName": device_class, "count": count},
                            }
                        ]
                    },
                    **spec,
                },
            },
        )

    async def pod(
        self,
        name: str,
        *,
        namespace: str = "default",
        claims: list[Obj] | None = None,
        cpu: str | None = None,
        **spec: Any,
    ) -> Obj:
        container: Obj = {"name": "app", "image": "registry.example/app:1"}
        if cpu:
            container["resources"] = {"requests": {"cpu": cpu}}
        if claims:
            container.setdefault("resources", {})["claims"] = [{"name": c["name"]} for c in claims]
        body: Obj = {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"containers": [container], **spec},
        }
        if claims:
            body["spec"]["resourceClaims"] = claims
        return await self.client.create(PODS, body=body)

    async def template_claim_for(self, pod: Obj, *, pod_claim: str = "gpu", count: int = 1) -> Obj:
        """What the resourceclaim controller does for a template claim: create the claim owned
        by the pod and record its name in the pod status."""
        meta = pod["metadata"]
        claim = await self.client.create(
            RESOURCE_CLAIMS,
            body={
                "metadata": {
                    "name": f"{meta['name']}-{pod_claim}",
                    "namespace": meta["namespace"],
                    "annotations": {"resource.kubernetes.io/pod-claim-name": pod_claim},
                    "ownerReferences": [
                        {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "name": meta["name"],
                            "uid": meta["uid"],
                            "controller": True,
                        }
                    ],
                },
                "spec": {
                    "devices": {
                        "requests": [
                            {"name": "gpu", "exactly": {"deviceClassName": DRIVER, "count": count}}
                        ]
                    }
                },
            },
        )
        await self.client.patch(
            PODS,
            name=meta["name"],
            namespace=meta["namespace"],
            subresource="status",
            patch={
                "status": {
                    "resourceClaimStatuses": [
                        {"name": pod_claim, "resourceClaimName": claim["metadata"]["name"]}
                    ]
                }
            },
        )
        return claim

    # -- reading ---------------------------------------------------------------------------
    async def get_pod(self, name: str, namespace: str = "default") -> Obj:
        return await self.client.get(PODS, name=name, namespace=namespace)

    async def get_claim(self, name: str, namespace: str = "default") -> Obj:
        return await self.client.get(RESOURCE_CLAIMS, name=name, namespace=namespace)

    async def node_of(self, name: str, namespace: str = "default") -> str | None:
        pod = await self.get_pod(name, namespace)
        node: str | None = pod["spec"].get("nodeName")
        return node

    async def events_about(self, name: str, *, reason: str | None = None) -> list[Obj]:
        assert self.scheduler is not None
        await self.scheduler.recorder.flush()
        listed = await self.client.list(EVENTS_K8S_IO, namespace="default")
        return [
            e
            for e in listed.items
            if e.get("regarding", {}).get("name") == name
            and (reason is None or e.get("reason") == reason)
        ]


async def _eventually(check: Callable[[], Any], *, timeout: float = 10.0) -> Any:
    """Let the loop run until ``await check()`` (or ``check()``) is truthy; a guard, not a delay."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.002)


@pytest.fixture
def eventually() -> Callable[..., Any]:
    return _eventually


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    made = Cluster()
    try:
        yield made
    finally:
        await made.stop()
