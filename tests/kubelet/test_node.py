"""The kubelet registers its Node and keeps its Lease fresh, until it stops."""

from __future__ import annotations

from fakeapi.client import EVENTS, LEASES, NODES
from fakeapi.timefmt import parse_time

from .conftest import Cluster


async def test_node_is_registered_ready_with_capacity_labels_and_version(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    node = await cluster.client.get(NODES, name="node-1")
    labels = node["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == "node-1"
    assert labels["kubernetes.io/os"] == "linux" and labels["kubernetes.io/arch"] == "amd64"
    status = node["status"]
    assert set(status["capacity"]) >= {"cpu", "memory", "pods"}
    assert status["allocatable"]["pods"] == "110"
    conditions = {c["type"]: (c["status"], c["reason"]) for c in status["conditions"]}
    assert conditions["Ready"] == ("True", "KubeletReady")
    assert conditions["MemoryPressure"] == ("False", "KubeletHasSufficientMemory")
    assert status["nodeInfo"]["kubeletVersion"].startswith("v1.37.")
    assert {a["type"] for a in status["addresses"]} == {"InternalIP", "Hostname"}


async def test_a_starting_kubelet_records_upstreams_node_events(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await kubelet.events.flush()
    # as kubectl describe node looks them up: core events about the Node whose uid is its name
    listed = await cluster.client.list(EVENTS, namespace="default", field_selector=(
        "involvedObject.kind=Node,involvedObject.name=node-1,involvedObject.uid=node-1"))
    assert [(e["reason"], e["message"], e["reportingComponent"]) for e in listed.items] == [
        ("Starting", "Starting kubelet.", "kubelet"),
        ("NodeHasSufficientMemory", "Node node-1 status is now: NodeHasSufficientMemory",
         "kubelet"),
        ("NodeHasNoDiskPressure", "Node node-1 status is now: NodeHasNoDiskPressure", "kubelet"),
        ("NodeHasSufficientPID", "Node node-1 status is now: NodeHasSufficientPID", "kubelet"),
        ("NodeAllocatableEnforced", "Updated Node Allocatable limit across pods", "kubelet"),
        ("NodeReady", "Node node-1 status is now: NodeReady", "kubelet"),
    ]


async def test_lease_is_renewed_every_ten_seconds(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    assert lease["spec"]["leaseDurationSeconds"] == 40
    assert lease["spec"]["holderIdentity"] == "node-1"
    first = parse_time(lease["spec"]["renewTime"])
    await cluster.advance(10.25)
    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    assert (parse_time(lease["spec"]["renewTime"]) - first).total_seconds() == 10


async def test_stopped_kubelet_stops_renewing_its_lease(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await cluster.advance(10.25)
    renewed = (await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1"))[
        "spec"]["renewTime"]
    await kubelet.stop()
    await cluster.advance(60)
    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    assert lease["spec"]["renewTime"] == renewed


async def test_node_stop_fault_pauses_the_lease_until_cleared(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await kubelet.stop_node()
    before = (await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1"))[
        "spec"]["renewTime"]
    await cluster.advance(30)
    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    assert lease["spec"]["renewTime"] == before
    await kubelet.stop_node(stopped=False)
    await cluster.advance(10.25)
    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    assert lease["spec"]["renewTime"] != before


async def test_node_status_heartbeat_is_refreshed_every_five_minutes(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")

    async def heartbeat() -> str:
        node = await cluster.client.get(NODES, name="node-1")
        (ready,) = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
        return str(ready["lastHeartbeatTime"])

    first = await heartbeat()
    await cluster.advance(290, step=5)
    assert await heartbeat() == first
    await cluster.advance(15, step=5)
    assert await heartbeat() != first
