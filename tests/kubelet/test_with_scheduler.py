"""The whole path on a FakeClock: claim template → resourceclaim controller → scheduler →
kubelet. A pod asks for a GPU, runs with the prepared device, and gives it back when deleted."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from fakeapi.client import DEVICE_CLASSES, PODS, RESOURCE_CLAIM_TEMPLATES, RESOURCE_CLAIMS

from .conftest import Cluster


@pytest.fixture
async def control_plane(cluster: Cluster) -> AsyncIterator[None]:
    await cluster.client.create(DEVICE_CLASSES, body={
        "metadata": {"name": "gpu.example.com"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    })
    await cluster.assembler.start_component(
        "controllers", controllers=["resourceclaim-controller", "garbage-collector-controller"]
    )
    await cluster.assembler.start_component("scheduler")
    yield
    await cluster.assembler.stop_component("scheduler")
    await cluster.assembler.stop_component("controllers")


def _pod(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
            "containers": [{"name": "app", "image": "registry.example/app:1.0",
                            "resources": {"claims": [{"name": "gpu"}]}}],
        },
    }


async def test_template_claim_pod_is_scheduled_runs_and_releases_its_gpu(
    cluster: Cluster, control_plane: None
) -> None:
    kubelets = [await cluster.kubelet("node-1"), await cluster.kubelet("node-2")]
    await cluster.advance(1)
    await cluster.client.create(RESOURCE_CLAIM_TEMPLATES, namespace="default", body={
        "metadata": {"name": "one-gpu"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}},
    })
    await cluster.client.create(PODS, namespace="default", body=_pod("trainer"))

    async def running() -> bool:
        pod = await cluster.pod("trainer")
        return bool(pod and pod["status"].get("phase") == "Running")

    await cluster.eventually(running, seconds=30)
    pod = await cluster.pod("trainer")
    assert pod is not None
    claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = await cluster.claim(claim_name)
    (result,) = claim["status"]["allocation"]["devices"]["results"]
    assert result["pool"] == pod["spec"]["nodeName"]
    (device,) = claim["status"]["devices"]
    assert device["data"] == {"cdiDeviceIDs": [f"k8s.gpu.example.com/gpu={result['device']}"]}
    health = pod["status"]["containerStatuses"][0]["allocatedResourcesStatus"]
    # upstream's resourceID: the device's first CDI device ID
    assert health[0]["resources"][0]["resourceID"] == device["data"]["cdiDeviceIDs"][0]

    await cluster.client.delete(PODS, namespace="default", name="trainer")

    async def released() -> bool:
        names = [c["metadata"]["name"] for c in
                 (await cluster.client.list(RESOURCE_CLAIMS, namespace="default")).items]
        return await cluster.pod("trainer") is None and claim_name not in names

    await cluster.eventually(released, seconds=30)
    assert all(k.prepared_claims() == {} for k in kubelets)


@pytest.mark.parametrize(
    ("profile", "driver", "selector"),
    [
        ("partitionable", "mig.example.com",
         'device.attributes["mig.example.com"].profile == "1g.5gb"'),
        ("consumable-capacity", "shared.example.com", "true"),
    ],
)
async def test_other_profiles_run_pods_through_the_scheduler(
    cluster: Cluster, control_plane: None, profile: str, driver: str, selector: str
) -> None:
    from fakeapi.cluster.profiles import load_profile

    await cluster.kubelet("node-1", drivers=[load_profile(profile)])
    await cluster.advance(1)
    await cluster.client.create(DEVICE_CLASSES, body={
        "metadata": {"name": driver},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
    })
    await cluster.client.create(RESOURCE_CLAIM_TEMPLATES, namespace="default", body={
        "metadata": {"name": "one-gpu"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": driver,
                                        "selectors": [{"cel": {"expression": selector}}]}}]}}},
    })
    for i in range(3):
        await cluster.client.create(PODS, namespace="default", body=_pod(f"user-{i}"))

    async def all_running() -> bool:
        pods = [await cluster.pod(f"user-{i}") for i in range(3)]
        return all(p is not None and p["status"].get("phase") == "Running" for p in pods)

    await cluster.eventually(all_running, seconds=30)
    devices = set()
    for i in range(3):
        pod = await cluster.pod(f"user-{i}")
        assert pod is not None
        claim = await cluster.claim(pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"])
        (entry,) = claim["status"]["devices"]
        devices.add((entry["device"], entry.get("shareID", "")))
    assert len(devices) == 3  # distinct partitions, or distinct shares of a shared device
