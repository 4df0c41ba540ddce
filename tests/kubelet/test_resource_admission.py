"""The kubelet admits a pod only if the node has room for it, as upstream's: a pod bound by hand
to a full node is rejected for good (``Failed``, ``OutOfcpu``...) with a Warning event."""

from __future__ import annotations

from typing import Any

from fakeapi.client import EVENTS, PODS

from .conftest import Cluster
from .helpers import bind, make_pod


def _asking(requests: dict[str, str]) -> dict[str, Any]:
    return {"containers": [{"name": "app", "image": "registry.example/app:1.0",
                            "resources": {"requests": requests, "limits": requests}}]}


async def test_a_pod_the_node_has_no_room_for_is_rejected_for_good(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1", capacity={"cpu": "4", "memory": "8Gi",
                                                        "pods": "110"})
    first = await make_pod(cluster.client, "first", extra_spec=_asking({"cpu": "3"}))
    await bind(cluster.client, first, "node-1")
    await cluster.until_phase("Running", "first")
    second = await make_pod(cluster.client, "second", extra_spec=_asking({"cpu": "2"}))
    await bind(cluster.client, second, "node-1")
    await cluster.until_phase("Failed", "second")
    pod = await cluster.client.get(PODS, namespace="default", name="second")
    message = "Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000"
    assert (pod["status"]["reason"], pod["status"]["message"]) == (
        "OutOfcpu", f"Pod was rejected: {message}")
    await kubelet.events.flush()
    events = (await cluster.client.list(EVENTS, namespace="default")).items
    assert [(e["type"], e["message"]) for e in events if e["reason"] == "OutOfcpu"] == [
        ("Warning", message)]
    assert await cluster.phase("first") == "Running"


async def test_the_pod_count_and_advertised_extended_resources_are_admitted_against(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1", capacity={"cpu": "4", "memory": "8Gi", "pods": "1",
                                              "example.com/fpga": "1"})
    only = await make_pod(cluster.client, "only", extra_spec=_asking({"example.com/fpga": "1"}))
    await bind(cluster.client, only, "node-1")
    await cluster.until_phase("Running", "only")
    extra = await make_pod(cluster.client, "extra")
    await bind(cluster.client, extra, "node-1")
    await cluster.until_phase("Failed", "extra")
    pod = await cluster.client.get(PODS, namespace="default", name="extra")
    assert pod["status"]["reason"] == "OutOfpods"
    assert pod["status"]["message"].endswith("pods, requested: 1, used: 1, capacity: 1")


async def test_ephemeral_storage_is_admitted_against(cluster: Cluster) -> None:
    await cluster.kubelet("node-1", capacity={"cpu": "4", "memory": "8Gi", "pods": "110",
                                              "ephemeral-storage": "10Gi"})
    scratch = await make_pod(cluster.client, "scratch",
                             extra_spec=_asking({"ephemeral-storage": "20Gi"}))
    await bind(cluster.client, scratch, "node-1")
    await cluster.until_phase("Failed", "scratch")
    pod = await cluster.client.get(PODS, namespace="default", name="scratch")
    assert pod["status"]["reason"] == "OutOfephemeral-storage"


async def test_an_extended_resource_the_node_does_not_advertise_is_not_the_kubelets(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    pod = await make_pod(cluster.client, "dra-served",
                         extra_spec=_asking({"example.com/gpu": "1"}))
    await bind(cluster.client, pod, "node-1")
    await cluster.until_phase("Running", "dra-served")
