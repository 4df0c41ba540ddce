"""Controller tests' cluster: the assembler's API server on a FakeClock, and the controllers.

``cluster`` is an API-server-only :class:`fakeapi.cluster.assembler.Cluster` (no scheduler, no
kubelets); a test starts the controllers it wants with ``await cluster.start(...)`` — the
assembler's controller manager, with its own client and the shared informers — acts through
``cluster.user`` (the scheduler and kubelets are not running: tests write what they would write),
and waits for the outcome with ``await cluster.eventually(...)``
(:func:`fakeapi.cluster.eventually`: a bounded guard that lets the event loop run, never a timed
assertion). The fixture runs every test twice: with the controllers on the in-process transport
and talking HTTP to the cluster's server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from typing import Any

import pytest

from fakeapi.client import NAMESPACES, RESOURCE_CLAIMS, Client, InformerFactory
from fakeapi.clock import FakeClock
from fakeapi.cluster import eventually
from fakeapi.cluster.assembler import Cluster as AssembledCluster
from fakeapi.cluster.waiting import advance, settle
from fakeapi.controllers import ControllerManager

DRIVER = "gpu.example.com"

Check = Callable[[], Any | Awaitable[Any]]
#: over HTTP a request takes real time: let the loop wait a millisecond at each turn
SETTLE_INTERVAL = 0.001


class Cluster:
    def __init__(
        self, *, feature_gates: Mapping[str, bool] | None = None, transport: str = "inprocess"
    ) -> None:
        self.clock = FakeClock()
        self.assembler = AssembledCluster(
            components=(), profiles=(), clock=self.clock, feature_gates=feature_gates,
            transport=transport,
        )

    async def open(self) -> Cluster:
        if not self.assembler.started:
            await self.assembler.start()
        return self

    @property
    def user(self) -> Client:
        """What a test writes with, as a user or as the (absent) scheduler."""
        return self.assembler.client

    @property
    def informers(self) -> InformerFactory:
        """The informers the controllers share."""
        return self.assembler.informers

    @property
    def metrics(self) -> Any:
        return self.assembler.metrics

    @property
    def manager(self) -> ControllerManager | None:
        return self.assembler.controller_manager

    async def start(self, controllers: Collection[str] | None = None) -> ControllerManager:
        """Start the controller manager with ``controllers`` (None: all of them)."""
        await self.open()
        await self.assembler.start_component("controllers", controllers=controllers)
        assert self.manager is not None
        return self.manager

    async def stop(self) -> None:
        """Stop the controllers; the cluster and the informers' caches stay."""
        await self.assembler.stop_component("controllers")

    async def close(self) -> None:
        await self.assembler.stop()

    async def eventually(self, check: Check, *, timeout: float = 10.0, message: str = "") -> Any:
        """Run the loop until ``check()`` holds (a guard against hanging, not a delay)."""
        return await eventually(check, timeout=timeout, what=message or None)

    async def settle(self, rounds: int = 50) -> None:
        """Let queued work run (for checks that something did *not* happen)."""
        await settle(rounds, interval=SETTLE_INTERVAL)

    async def advance(self, seconds: float) -> None:
        """Move the fake clock and let the woken tasks run."""
        await advance(self.clock, seconds, rounds=5, interval=SETTLE_INTERVAL)

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
    """``make_cluster(feature_gates=...)``: a cluster the test starts (``start``) and closes."""
    return Cluster


@pytest.fixture(params=["inprocess", "http"], ids=["in-process", "http"])
async def cluster(request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    """A cluster whose controllers use the in-process transport or HTTP (each test runs
    with both: a controller must not depend on which one carries its requests)."""
    made = Cluster(transport=request.param)
    try:
        yield await made.open()
    finally:
        await made.close()
