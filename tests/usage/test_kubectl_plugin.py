"""``kubectl dra`` internals: kubectl's table layout, and reading claims where RBAC allows."""

from __future__ import annotations

from typing import Any

from fakeapi.client import DEVICE_TAINT_RULES, RESOURCE_CLAIMS, Client, Resource, StatusError
from fakeapi.client.transport import ListParams, ObjectList
from fakeapi.cluster.assembler import Cluster
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.usage import UNAVAILABLE, UNKNOWN, resource_pool_name
from fakeapi.usage.kubectl_plugin import format_table, read_cluster


def test_tables_pad_columns_three_spaces_apart_like_kubectl() -> None:
    text = format_table(["NAME", "TOTAL"], [["a-long-name", "8"], ["b", "10"]])
    assert text == "NAME          TOTAL\na-long-name   8\nb             10\n"


class _NamespacedClaimsOnly(InProcessTransport):
    """The in-process server, with RBAC that forbids listing claims across namespaces."""

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList:
        if resource == RESOURCE_CLAIMS and namespace is None:
            raise StatusError(403, "Forbidden", 'resourceclaims.resource.k8s.io is forbidden: '
                              'User "dev" cannot list resource "resourceclaims" at the cluster '
                              'scope')
        return await super().list(resource, namespace=namespace, params=params)


def _allocated_claim(name: str, namespace: str, device: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1",
             "device": device}]}}},
    }


async def test_claims_fall_back_to_the_namespace_when_listing_all_is_forbidden() -> None:
    async with Cluster(nodes=1, components=["controllers", "kubelets"]) as cluster:
        for name, namespace, device in [("mine", "default", "gpu-0"),
                                        ("theirs", "kube-system", "gpu-1")]:
            claim = _allocated_claim(name, namespace, device)
            created = await cluster.client.create(RESOURCE_CLAIMS, body=claim)
            created["status"] = claim["status"]
            await cluster.client.update_status(RESOURCE_CLAIMS, body=created)
        pool_name = resource_pool_name(driver="gpu.example.com", pool="node-1")
        await cluster.wait_for("resourcepools", pool_name, timeout=10,
                               jsonpath="{.status.summary.allocatedDevices}=2")
        restricted = Client(_NamespacedClaimsOnly(cluster.registry))
        view = await read_cluster(restricted, namespace="default")
        assert view.claims_namespace == "default"
        assert [c["metadata"]["name"] for c in view.claims] == ["mine"]
        [pool] = view.pools()
        states = {d.name: (d.state, d.claims) for d in pool.devices}
        assert states["gpu-0"] == ("Allocated", ["default/mine"])
        assert states["gpu-1"][0] == UNKNOWN
        assert (pool.allocated, pool.allocated_without_reference, pool.available) == (2, 1, 6)


async def test_with_every_claim_readable_stale_pool_counts_are_ignored() -> None:
    async with Cluster(nodes=1, components=["kubelets"]) as cluster:
        view = await read_cluster(cluster.client, namespace="default")
        stale = {"spec": {"driver": "gpu.example.com", "poolName": "node-1"},
                 "status": {"summary": {"allocatedDevices": 3}}}
        view.resource_pools = [stale]
        [pool] = view.pools()
        assert view.claims_namespace is None
        assert (pool.allocated, pool.available, pool.allocated_without_reference) == (0, 8, 0)


async def test_a_device_taint_rule_read_from_the_cluster_makes_its_device_unavailable() -> None:
    async with Cluster(nodes=1, components=["kubelets"]) as cluster:
        await cluster.client.create(DEVICE_TAINT_RULES, body={
            "metadata": {"name": "drain-gpu-0"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "device": "gpu-0"},
                     "taint": {"key": "maintenance", "effect": "NoSchedule"}}})
        view = await read_cluster(cluster.client, namespace="default")
        assert [r["metadata"]["name"] for r in view.taint_rules] == ["drain-gpu-0"]
        [pool] = view.pools()
        assert {d.name: d.state for d in pool.devices}["gpu-0"] == UNAVAILABLE
        assert (pool.available, pool.unavailable) == (7, 1)
