"""Who holds a device and how it is doing (``kubectl dra pool``'s RESERVED FOR and HEALTH)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.usage.holders import DeviceHealth, claim_consumers, device_health


def _claim(name: str, *devices: tuple[str, str], reserved_for: list[Any] | None = None) -> (
        dict[str, Any]):
    return {
        "metadata": {"name": name, "namespace": "default"},
        "status": {
            "allocation": {"devices": {"results": [
                {"request": request, "driver": "gpu.example.com", "pool": "node-1",
                 "device": device} for request, device in devices]}},
            "reservedFor": reserved_for or [],
        },
    }


def _pod(claim: str, *reports: tuple[str, str, str], container: bool = True) -> dict[str, Any]:
    """A pod using ``claim`` as pod claim "gpu", reporting (entry, resourceID, health)."""
    entries: dict[str, list[dict[str, str]]] = {}
    for entry, rid, health in reports:
        entries.setdefault(entry, []).append({"resourceID": rid, "health": health})
    statuses = [{"name": name, "resources": resources} for name, resources in entries.items()]
    status: dict[str, Any] = {
        "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": claim}]}
    if container:
        status["containerStatuses"] = [{"name": "app", "allocatedResourcesStatus": statuses}]
    else:
        status["allocatedResourcesStatus"] = statuses
    return {"metadata": {"name": f"uses-{claim}", "namespace": "default"},
            "spec": {"resourceClaims": [{"name": "gpu"}]}, "status": status}


KEY = ("gpu.example.com", "node-1", "gpu-1")


@pytest.mark.parametrize(
    ("claim", "pod", "expected"),
    [
        # the resourceID is the first CDI device ID; its device name follows "="
        (_claim("c", ("gpu", "gpu-1")),
         _pod("c", ("claim:gpu/gpu", "k8s.gpu.example.com/gpu=gpu-1", "Unhealthy")),
         {KEY: DeviceHealth("Unhealthy")}),
        # no CDI ID: <driver>/<pool>/<device>
        (_claim("c", ("gpu", "gpu-0"), ("gpu", "gpu-1")),
         _pod("c", ("claim:gpu/gpu", "gpu.example.com/node-1/gpu-1", "Healthy"),
              ("claim:gpu/gpu", "gpu.example.com/node-1/gpu-0", "Unknown")),
         {KEY: DeviceHealth("Healthy"), (*KEY[:2], "gpu-0"): DeviceHealth("Unknown")}),
        # an ID naming none of them, for a request of one device: that device
        (_claim("c", ("gpu", "gpu-1")),
         _pod("c", ("claim:gpu/gpu", "vendor.example/gpu=GPU-8f2e", "Healthy"),
              container=False),
         {KEY: DeviceHealth("Healthy")}),
        # the entry names another request: not this device
        (_claim("c", ("gpu", "gpu-1")),
         _pod("c", ("claim:gpu/nic", "vendor.example/gpu=GPU-8f2e", "Healthy")), {}),
        # a pod claim whose ResourceClaim is not readable: nothing
        (_claim("other", ("gpu", "gpu-1")),
         _pod("c", ("claim:gpu/gpu", "gpu.example.com/node-1/gpu-1", "Healthy")), {}),
    ],
)
def test_health_is_matched_to_the_device_through_the_pods_claim(
    claim: dict[str, Any], pod: dict[str, Any], expected: dict[Any, DeviceHealth]
) -> None:
    assert device_health(pods=[pod], claims=[claim]) == expected


def test_unhealthy_wins_when_pods_sharing_a_device_disagree() -> None:
    claim = _claim("c", ("gpu", "gpu-1"))
    rid = "gpu.example.com/node-1/gpu-1"
    pods = [_pod("c", ("claim:gpu/gpu", rid, "Healthy")),
            _pod("c", ("claim:gpu/gpu", rid, "Unhealthy")),
            _pod("c", ("claim:gpu/gpu", rid, "Unknown"))]
    assert device_health(pods=pods, claims=[claim]) == {KEY: DeviceHealth("Unhealthy")}


def test_consumers_are_named_as_kubectl_names_objects() -> None:
    claim = _claim("c", reserved_for=[
        {"resource": "pods", "name": "web", "uid": "1"},
        {"apiGroup": "example.com", "resource": "jobsets", "name": "train", "uid": "2"},
        {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "gang", "uid": "3"},
    ])
    assert claim_consumers(claim) == ["pod/web", "jobsets.example.com/train",
                                      "podgroups.scheduling.k8s.io/gang"]
