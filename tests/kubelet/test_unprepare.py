"""Unprepare needs the driver: while it is not registered a pod's claims stay prepared, the pod
is neither reported terminal nor deleted, and it all completes once the driver is back. A claim
the driver was asked to prepare is unprepared when its pod goes, even if that prepare failed."""

from __future__ import annotations

import dataclasses
from typing import Any

from fakeapi.client import NODES, PODS
from fakeapi.cluster import load_profile
from fakeapi.kubelet import DriverBehavior, PreparedClaim, PrepareError

from .conftest import Cluster
from .helpers import allocate, bind, make_claim, make_pod, pod_ref, schedule_with_claim

DRIVER = "gpu.example.com"


async def test_deleted_pod_stays_terminating_until_its_stopped_driver_is_back(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(cluster.client, "web", claim="gpu-claim", device="gpu-0")
    await cluster.until_phase("Running", "web")
    await kubelet.stop_driver(driver=DRIVER)
    await cluster.client.delete(PODS, namespace="default", name="web")
    await cluster.advance(5)
    held = await cluster.pod("web")
    assert held is not None
    await cluster.advance(60, step=1)

    pod = await cluster.pod("web")
    assert pod is not None and pod["metadata"]["deletionTimestamp"]  # Terminating
    # the retries write nothing: the held status is written once
    assert pod["metadata"]["resourceVersion"] == held["metadata"]["resourceVersion"]
    # the containers were stopped, but the phase stays until the claim is unprepared
    assert "terminated" in pod["status"]["containerStatuses"][0]["state"]
    assert pod["status"]["phase"] == "Running"
    claim = await cluster.claim("gpu-claim")
    assert claim["status"]["allocation"] and claim["status"]["reservedFor"]
    assert claim["status"]["devices"]  # still prepared
    assert list(kubelet.prepared_claims().values()) == [("k8s.gpu.example.com/gpu=gpu-0",)]

    await kubelet.start_driver(driver=DRIVER)
    await cluster.until_gone("web")
    assert kubelet.prepared_claims() == {}
    assert not (await cluster.claim("gpu-claim"))["status"].get("devices")


async def test_finished_pod_is_reported_succeeded_only_after_its_claim_is_unprepared(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(
        cluster.client, "job", claim="gpu-claim", device="gpu-1", restart_policy="Never",
        annotations={"fakeapi.dev/finish": "Succeeded", "fakeapi.dev/run-seconds": "5"},
    )
    await cluster.until_phase("Running", "job")
    # the driver stops through the Node's fault annotation, as a test over kubectl would
    await cluster.client.patch(NODES, name="node-1", patch={"metadata": {"annotations": {
        "fakeapi.dev/fault-stopped-drivers": DRIVER}}})
    await cluster.advance(30, step=1)

    pod = await cluster.pod("job")
    assert pod is not None
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], pod["status"]["phase"]) == (0, "Running")
    assert kubelet.prepared_claims()
    await cluster.advance(30, step=1)
    again = await cluster.pod("job")
    assert again is not None
    assert again["metadata"]["resourceVersion"] == pod["metadata"]["resourceVersion"]

    await cluster.client.patch(NODES, name="node-1", patch={"metadata": {"annotations": {
        "fakeapi.dev/fault-stopped-drivers": None}}})
    await cluster.until_phase("Succeeded", "job", seconds=10)
    assert kubelet.prepared_claims() == {}


async def test_force_deleted_pod_is_unprepared_once_its_driver_is_back(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await schedule_with_claim(cluster.client, "web", claim="gpu-claim", device="gpu-2")
    await cluster.until_phase("Running", "web")
    await kubelet.stop_driver(driver=DRIVER)
    await cluster.client.delete(PODS, namespace="default", name="web", grace_period_seconds=0)
    await cluster.advance(30, step=1)
    assert kubelet.prepared_claims()  # the pod is gone, its claim not yet unprepared

    await kubelet.start_driver(driver=DRIVER)
    await cluster.advance(2)
    assert kubelet.prepared_claims() == {}


class RefusesClaimB(DriverBehavior):
    """Prepares every claim but ``b``, which it refuses (after the claims before it in the call
    are prepared, as a driver's per-claim results of one NodePrepareResources can be)."""

    async def prepare(self, claim: dict[str, Any], prepared: PreparedClaim) -> PreparedClaim:
        if claim["metadata"]["name"] == "b":
            raise PrepareError("claim b: device busy")
        return prepared


async def test_a_pod_deleted_after_a_partial_prepare_has_the_prepared_claim_unprepared(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet(
        "node-1", drivers=[dataclasses.replace(load_profile("gpu"), behavior=RefusesClaimB)])
    claims = [await make_claim(cluster.client, name) for name in ("a", "b")]
    pod = await make_pod(cluster.client, "web", extra_spec={
        "resourceClaims": [{"name": "a", "resourceClaimName": "a"},
                           {"name": "b", "resourceClaimName": "b"}],
    })
    for claim, device in zip(claims, ("gpu-0", "gpu-1"), strict=True):
        await allocate(cluster.client, claim, node="node-1", devices=[device],
                       reserved_for=[pod_ref(pod)])
    await bind(cluster.client, pod, "node-1")
    await cluster.advance(3)
    assert await cluster.phase("web") == "Pending"
    assert list(kubelet.prepared_claims().values()) == [("k8s.gpu.example.com/gpu=gpu-0",)]

    await cluster.client.delete(PODS, namespace="default", name="web")
    await cluster.until_gone("web", seconds=60)
    assert kubelet.prepared_claims() == {}
