"""Kubelets together with the controllers: a stopped node goes NotReady; template claims live
and die with their pods. The scheduler's part (allocation) is written by hand, as it would."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from fakeapi.client import (
    EVENTS,
    LEASES,
    NODES,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
)
from fakeapi.controllers import ControllerManager

from .conftest import Cluster
from .helpers import allocate, bind


@pytest.fixture
async def controllers(cluster: Cluster) -> AsyncIterator[ControllerManager]:
    await cluster.assembler.start_component(
        "controllers",
        controllers=["node-lifecycle-controller", "resourceclaim-controller",
                     "garbage-collector-controller"],
    )
    assert cluster.assembler.controller_manager is not None
    yield cluster.assembler.controller_manager
    await cluster.assembler.stop_component("controllers")


def _ready(node: dict[str, Any]) -> str:
    for condition in node["status"]["conditions"]:
        if condition["type"] == "Ready":
            return str(condition["status"])
    return ""


def _taints(node: dict[str, Any]) -> set[str]:
    return {t["key"] for t in (node.get("spec") or {}).get("taints") or []}


async def test_stopped_kubelet_node_goes_not_ready_and_recovers_on_restart(
    cluster: Cluster, controllers: ControllerManager
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await cluster.advance(30)
    node = await cluster.client.get(NODES, name="node-1")
    assert _ready(node) == "True"
    await kubelet.stop()
    cluster.kubelets.remove(kubelet)

    async def unreachable() -> bool:
        current = await cluster.client.get(NODES, name="node-1")
        return _ready(current) == "Unknown" and "node.kubernetes.io/unreachable" in _taints(
            current
        )

    await cluster.eventually(unreachable, seconds=120, step=1)
    await cluster.kubelet("node-1")

    async def recovered() -> bool:
        current = await cluster.client.get(NODES, name="node-1")
        return _ready(current) == "True" and not _taints(current)

    await cluster.eventually(recovered, seconds=60, step=1)


async def test_template_claim_is_prepared_then_unprepared_when_the_pod_goes(
    cluster: Cluster, controllers: ControllerManager
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await cluster.client.create(
        RESOURCE_CLAIM_TEMPLATES, namespace="default",
        body={"metadata": {"name": "one-gpu"},
              "spec": {"spec": {"devices": {"requests": [
                  {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}},
    )
    pod = await cluster.client.create(
        PODS, namespace="default",
        body={"metadata": {"name": "trainer"},
              "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
                       "containers": [{"name": "app", "image": "registry.example/app:1.0",
                                       "resources": {"claims": [{"name": "gpu"}]}}]}},
    )

    async def claim_created() -> bool:
        current = await cluster.pod("trainer")
        return bool(current and current["status"].get("resourceClaimStatuses"))

    await cluster.eventually(claim_created, seconds=5)
    current = await cluster.pod("trainer")
    assert current is not None
    claim_name = current["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = await cluster.claim(claim_name)
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-5"])  # as the scheduler
    await bind(cluster.client, pod, "node-1")  # the controller adds the reservation

    async def running() -> bool:
        current = await cluster.pod("trainer")
        return bool(current and current["status"].get("phase") == "Running")

    await cluster.eventually(running, seconds=10)
    claim = await cluster.claim(claim_name)
    assert claim["status"]["reservedFor"][0]["name"] == "trainer"
    assert claim["status"]["devices"][0]["data"] == {
        "cdiDeviceIDs": ["k8s.gpu.example.com/gpu=gpu-5"]
    }
    await cluster.client.delete(PODS, namespace="default", name="trainer")

    async def claim_gone() -> bool:
        names = [c["metadata"]["name"] for c in
                 (await cluster.client.list(RESOURCE_CLAIMS, namespace="default")).items]
        return await cluster.pod("trainer") is None and claim_name not in names

    await cluster.eventually(claim_gone, seconds=30)
    assert kubelet.prepared_claims() == {}


async def test_lease_is_owned_by_the_recreated_node_and_survives_the_garbage_collector(
    cluster: Cluster, controllers: ControllerManager
) -> None:
    await cluster.kubelet("node-1")
    await cluster.advance(11)
    node = await cluster.client.get(NODES, name="node-1")
    await cluster.client.delete(NODES, name="node-1")
    await cluster.advance(15, step=1)  # the collector deletes the Lease with its owner
    # while there is no Node the kubelet's Lease goes without an owner
    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    assert not lease["metadata"].get("ownerReferences")
    body = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-1", "labels": node["metadata"]["labels"]}}
    recreated = await cluster.client.create(NODES, body=body)
    await cluster.advance(60, step=1)

    lease = await cluster.client.get(LEASES, namespace="kube-node-lease", name="node-1")
    (owner,) = lease["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"]) == (
        "Node", "node-1", recreated["metadata"]["uid"])
    # renewed all along, never collected again: created once after the Node was deleted
    assert lease["metadata"]["creationTimestamp"] < recreated["metadata"]["creationTimestamp"]


async def test_a_node_back_from_a_cut_off_records_node_ready(
    cluster: Cluster, controllers: ControllerManager
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await kubelet.stop_node()

    async def unknown() -> bool:
        return _ready(await cluster.client.get(NODES, name="node-1")) == "Unknown"

    await cluster.eventually(unknown, seconds=120, step=1)
    await kubelet.stop_node(stopped=False)

    async def ready_again() -> bool:
        return _ready(await cluster.client.get(NODES, name="node-1")) == "True"

    await cluster.eventually(ready_again, seconds=60, step=1)
    await kubelet.events.flush()
    events = (await cluster.client.list(EVENTS, namespace="default")).items
    [ready] = [e for e in events
               if e["reason"] == "NodeReady" and e["involvedObject"]["name"] == "node-1"]
    # once at the start, once back: one event counted twice, as the kubelet's recorder does
    assert (ready["count"], ready["message"]) == (2, "Node node-1 status is now: NodeReady")
