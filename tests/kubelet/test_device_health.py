"""Device health (KEP-4680) reaches the pods that use the devices, and times out to Unknown."""

from __future__ import annotations

from typing import Any

from fakeapi.client import NODES, PODS

from .conftest import Cluster
from .helpers import allocate, bind, make_claim, pod_ref, schedule_with_claim

#: the resourceID upstream reports: the first CDI device ID the driver returned for the device
RID = "k8s.gpu.example.com/gpu=gpu-2"


async def _running_pod_with_gpu(cluster: Cluster, name: str = "web", **kw: Any) -> None:
    await schedule_with_claim(cluster.client, name, claim=f"{name}-claim", device="gpu-2", **kw)
    await cluster.until_phase("Running", name)


async def _health(cluster: Cluster, name: str = "web") -> tuple[str, str] | None:
    pod = await cluster.pod(name)
    assert pod is not None
    for status in pod["status"]["containerStatuses"][0].get("allocatedResourcesStatus") or []:
        if status["name"] == "claim:gpu":  # the container takes the whole claim
            (resource,) = status["resources"]
            assert resource["resourceID"] == RID
            return resource["health"], resource.get("message", "")
    return None


async def test_running_pod_reports_its_device_healthy(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await _running_pod_with_gpu(cluster)
    assert await _health(cluster) == ("Healthy", "")


async def test_a_container_using_one_request_reports_it_under_claim_and_request(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    container = {"name": "app", "image": "registry.example/app:1.0",
                 "resources": {"claims": [{"name": "gpu", "request": "gpu"}]}}
    await schedule_with_claim(cluster.client, "web", claim="web-claim", device="gpu-2",
                              extra_spec={"containers": [container]})
    await cluster.until_phase("Running", "web")
    await cluster.advance(6)
    pod = await cluster.pod("web")
    assert pod is not None
    [status] = pod["status"]["containerStatuses"][0]["allocatedResourcesStatus"]
    assert status == {"name": "claim:gpu/gpu",
                      "resources": [{"resourceID": RID, "health": "Healthy"}]}


async def test_injected_fault_shows_unhealthy_within_the_reporting_interval(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await _running_pod_with_gpu(cluster)
    await kubelet.mark_device_unhealthy(driver="gpu.example.com", device="gpu-2",
                                        message="ECC errors")
    await cluster.advance(5.25)  # the gpu profile streams health every 5 s
    assert await _health(cluster) == ("Unhealthy", "ECC errors")
    await kubelet.mark_device_healthy(driver="gpu.example.com", device="gpu-2")
    await cluster.advance(5.25)
    assert await _health(cluster) == ("Healthy", "")


async def test_silent_driver_turns_devices_unknown_after_the_timeout(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await _running_pod_with_gpu(cluster)
    await kubelet.silence_driver(driver="gpu.example.com")
    await cluster.advance(20)
    assert await _health(cluster) == ("Healthy", "")  # the last report is still fresh
    await cluster.advance(12)
    health = await _health(cluster)
    assert health is not None and health[0] == "Unknown"


async def test_unregistered_driver_turns_devices_unknown_and_removes_slices(
    cluster: Cluster,
) -> None:
    kubelet = await cluster.kubelet("node-1")
    await _running_pod_with_gpu(cluster)
    await kubelet.stop_driver(driver="gpu.example.com")
    await cluster.advance(1)
    health = await _health(cluster)
    assert health == ("Unknown", "DRA driver gpu.example.com is not registered")
    assert kubelet.drivers["gpu.example.com"].running is False
    slices = [s for s in kubelet._slices.list() if s["spec"]["driver"] == "gpu.example.com"]
    assert slices == []


async def test_health_is_updated_for_pods_that_already_ended(cluster: Cluster) -> None:
    kubelet = await cluster.kubelet("node-1")
    await _running_pod_with_gpu(
        cluster, "job", restart_policy="Never",
        annotations={"fakeapi.dev/finish": "Failed", "fakeapi.dev/run-seconds": "2"},
    )

    async def failed() -> bool:
        pod = await cluster.pod("job")
        return pod is not None and pod["status"]["phase"] == "Failed"

    await cluster.eventually(failed, seconds=10)
    await kubelet.mark_device_unhealthy(driver="gpu.example.com", device="gpu-2",
                                        message="XID 79")
    await cluster.advance(5.25)
    assert await _health(cluster, "job") == ("Unhealthy", "XID 79")


async def test_node_annotation_injects_and_clears_a_fault(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await _running_pod_with_gpu(cluster)
    annotation = "fakeapi.dev/fault-unhealthy-devices"
    await cluster.client.patch(
        NODES, name="node-1",
        patch={"metadata": {"annotations": {annotation: "gpu.example.com/gpu-2=fell off the bus"}}},
    )
    await cluster.advance(5.25)
    assert await _health(cluster) == ("Unhealthy", "fell off the bus")
    await cluster.client.patch(
        NODES, name="node-1", patch={"metadata": {"annotations": {annotation: None}}}
    )
    await cluster.advance(5.25)
    assert await _health(cluster) == ("Healthy", "")


async def test_pod_level_health_for_claims_no_container_uses(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    claim = await make_claim(cluster.client, "loose")
    # a claim in spec.resourceClaims that no container references
    pod = await cluster.client.create(
        PODS,
        namespace="default",
        body={
            "metadata": {"name": "web2"},
            "spec": {
                "resourceClaims": [{"name": "gpu", "resourceClaimName": "loose"}],
                "containers": [{"name": "app", "image": "registry.example/app:1.0"}],
            },
        },
    )
    await allocate(cluster.client, claim, node="node-1", devices=["gpu-2"],
                   reserved_for=[pod_ref(pod)])
    await bind(cluster.client, pod, "node-1")

    async def reported() -> bool:
        current = await cluster.pod("web2")
        return bool(
            current
            and current["status"].get("phase") == "Running"
            and current["status"].get("allocatedResourcesStatus")
        )

    await cluster.eventually(reported, seconds=10)
    current = await cluster.pod("web2")
    assert current is not None
    assert current["status"]["allocatedResourcesStatus"] == [
        {"name": "claim:gpu/gpu", "resources": [{"resourceID": RID, "health": "Healthy"}]}
    ]
    assert "allocatedResourcesStatus" not in current["status"]["containerStatuses"][0]


async def test_no_health_in_pod_status_with_the_gate_off(cluster: Cluster) -> None:
    await cluster.kubelet("node-1", feature_gates={"ResourceHealthStatus": False})
    await _running_pod_with_gpu(cluster)
    await cluster.advance(6)
    assert await _health(cluster) is None
