"""Scheduler tests' cluster: the assembler's API server on a FakeClock, and one scheduler.

``cluster`` is an API-server-only :class:`fakeapi.cluster.assembler.Cluster` (no controllers, no
kubelets, no device classes); a test makes its objects through the client, as a user would
(nodes, slices, classes, claims, pods), and then starts the scheduler with
:meth:`Cluster.start_scheduler` — the assembler starts it as in a whole cluster, with its own
client and the shared informers, so it sees those objects only through its informers.
``cluster_over_http`` is the same with the scheduler talking HTTP to the cluster's server.
Template claims are made by the tests the way the resourceclaim controller would (owned by the
pod, recorded in the pod's ``status.resourceClaimStatuses``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest

from fakeapi.client import (
    DEVICE_CLASSES,
    EVENTS_K8S_IO,
    NODES,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    InformerFactory,
)
from fakeapi.clock import FakeClock
from fakeapi.cluster import eventually as _eventually
from fakeapi.cluster.assembler import Cluster as AssembledCluster
from fakeapi.scheduler import Scheduler

Obj = dict[str, Any]
DRIVER = "gpu.example.com"


class Cluster:
    """The assembler's API server on a fake clock, a client, and at most one scheduler."""

    def __init__(
        self, *, feature_gates: Mapping[str, bool] | None = None, transport: str = "inprocess"
    ) -> None:
        self.clock = FakeClock()
        #: the scheduler's gates: a test may change them before :meth:`start_scheduler`
        self.feature_gates = dict(feature_gates or {})
        self.assembler = AssembledCluster(
            components=(), profiles=(), clock=self.clock, feature_gates=feature_gates,
            transport=transport,
        )

    async def open(self) -> Cluster:
        if not self.assembler.started:
            await self.assembler.start()
        return self

    @property
    def client(self) -> Client:
        return self.assembler.client

    @property
    def metrics(self) -> Any:
        return self.assembler.metrics

    @property
    def informers(self) -> InformerFactory:
        return self.assembler.informers

    @property
    def scheduler(self) -> Scheduler | None:
        return self.assembler.scheduler

    async def start_scheduler(self, **options: Any) -> Scheduler:
        """Start the scheduler (``options``: more Scheduler arguments) on the objects so far."""
        await self.open()
        await self.assembler.start_component(
            "scheduler", feature_gates=self.feature_gates, **options
        )
        assert self.assembler.scheduler is not None
        return self.assembler.scheduler

    async def stop(self) -> None:
        await self.assembler.stop()

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


@pytest.fixture
def eventually() -> Callable[..., Any]:
    """``await eventually(check)``: the value ``check`` returns once it is truthy."""
    return _eventually


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    made = Cluster()
    try:
        yield await made.open()
    finally:
        await made.stop()


@pytest.fixture
async def cluster_over_http() -> AsyncIterator[Cluster]:
    """The same, with the scheduler reaching the API server over HTTP."""
    made = Cluster(transport="http")
    try:
        yield await made.open()
    finally:
        await made.stop()
