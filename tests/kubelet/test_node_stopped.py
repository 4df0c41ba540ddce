"""A stopped node's kubelet cannot reach the API: it does nothing to its pods until it is back."""

from __future__ import annotations

from fakeapi.client import NODES, PODS

from .conftest import Cluster
from .helpers import bind, make_pod, schedule_with_claim

STOPPED = "fakeapi.dev/fault-node-stopped"


async def test_deleted_pod_on_a_stopped_node_stays_terminating_until_the_node_is_back(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(cluster.client, "web", claim="gpu-claim", device="gpu-0")
    await cluster.until_phase("Running", "web")
    before = await cluster.pod("web")
    assert before is not None
    await kubelet.stop_node()
    await cluster.client.delete(PODS, namespace="default", name="web")
    await cluster.advance(120, step=1)

    pod = await cluster.pod("web")
    assert pod is not None and pod["metadata"]["deletionTimestamp"]  # Terminating
    assert pod["status"] == before["status"]  # nothing written: containers still running
    assert kubelet.prepared_claims()  # nothing unprepared either

    await kubelet.stop_node(stopped=False)
    await cluster.until_gone("web")
    assert kubelet.prepared_claims() == {}


async def test_pod_bound_while_the_node_is_stopped_starts_once_the_annotation_is_removed(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    await cluster.client.patch(NODES, name="node-1",
                               patch={"metadata": {"annotations": {STOPPED: "true"}}})
    await cluster.advance(1)
    pod = await make_pod(cluster.client, "late")
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(30, step=1)
    current = await cluster.pod("late")
    assert current is not None
    assert current["status"]["phase"] == "Pending"
    assert "containerStatuses" not in current["status"]  # the kubelet never saw it

    await cluster.client.patch(NODES, name="node-1",
                               patch={"metadata": {"annotations": {STOPPED: None}}})
    await cluster.until_phase("Running", "late")
