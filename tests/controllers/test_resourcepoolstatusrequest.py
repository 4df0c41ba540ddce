"""The ResourcePoolStatusRequest controller: one answer per request, counted as every pool reader
counts, then the request is cleaned up an hour later."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import RESOURCE_POOL_STATUS_REQUESTS, RESOURCE_SLICES, is_not_found

DRIVER = "gpu.example.com"


def _slice(name: str, pool: str, devices: int, *, count: int = 1, driver: str = DRIVER) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": driver,
            "nodeName": pool,
            "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
            "devices": [{"name": f"gpu-{i}"} for i in range(devices)],
        },
    }


def _request(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "ResourcePoolStatusRequest",
        "metadata": {"name": name},
        "spec": {"driver": DRIVER, **spec},
    }


@pytest.fixture
async def requests(cluster):
    await cluster.start(["resourcepoolstatusrequest-controller"])
    return cluster


async def _answered(cluster, name: str) -> dict[str, Any]:
    async def status() -> dict[str, Any] | None:
        request = await cluster.user.get(RESOURCE_POOL_STATUS_REQUESTS, name=name)
        return request.get("status") or None

    result: dict[str, Any] = await cluster.eventually(status)
    return result


async def test_a_request_is_answered_with_the_drivers_pools_sorted_and_counted(requests):
    for name, pool, devices in (("b", "node-b", 2), ("a", "node-a", 3)):
        await requests.user.create(RESOURCE_SLICES, body=_slice(name, pool, devices))
    await requests.user.create(
        RESOURCE_SLICES, body=_slice("other", "node-a", 1, driver="nic.example.com")
    )
    claim = await requests.create_claim("c")
    await requests.allocate(claim, devices=["gpu-0"], reserved_for=[], pool="node-a")
    await requests.user.create(RESOURCE_POOL_STATUS_REQUESTS, body=_request("all"))

    status = await _answered(requests, "all")
    assert status["poolCount"] == 2
    assert [(p["poolName"], p["totalDevices"], p["allocatedDevices"], p["availableDevices"])
            for p in status["pools"]] == [("node-a", 3, 1, 2), ("node-b", 2, 0, 2)]
    complete = status["conditions"][0]
    assert (complete["type"], complete["status"]) == ("Complete", "True")


async def test_the_limit_truncates_the_list_but_not_the_count(requests):
    for i in range(3):
        await requests.user.create(RESOURCE_SLICES, body=_slice(f"s{i}", f"node-{i}", 1))
    await requests.user.create(RESOURCE_POOL_STATUS_REQUESTS, body=_request("two", limit=2))
    status = await _answered(requests, "two")
    assert status["poolCount"] == 3
    assert [p["poolName"] for p in status["pools"]] == ["node-0", "node-1"]


async def test_a_pool_name_narrows_the_answer_and_an_incomplete_pool_has_no_counts(requests):
    await requests.user.create(RESOURCE_SLICES, body=_slice("half", "node-x", 2, count=2))
    await requests.user.create(RESOURCE_SLICES, body=_slice("whole", "node-y", 2))
    await requests.user.create(
        RESOURCE_POOL_STATUS_REQUESTS, body=_request("x", poolName="node-x")
    )
    status = await _answered(requests, "x")
    assert status["poolCount"] == 1
    (pool,) = status["pools"]
    assert pool["validationError"] == (
        "pool generation 1 is incomplete: 1 of 2 ResourceSlices published"
    )
    assert "totalDevices" not in pool


async def test_the_answer_is_given_once_and_the_request_goes_after_an_hour(requests):
    await requests.user.create(RESOURCE_SLICES, body=_slice("a", "node-a", 1))
    await requests.user.create(RESOURCE_POOL_STATUS_REQUESTS, body=_request("once"))
    first = await _answered(requests, "once")
    await requests.user.create(RESOURCE_SLICES, body=_slice("b", "node-b", 1))
    await requests.settle()
    again = await requests.user.get(RESOURCE_POOL_STATUS_REQUESTS, name="once")
    assert again["status"] == first  # never recomputed

    await requests.advance(3599)
    assert await requests.user.get(RESOURCE_POOL_STATUS_REQUESTS, name="once")
    await requests.advance(2)

    async def gone() -> bool:
        try:
            await requests.user.get(RESOURCE_POOL_STATUS_REQUESTS, name="once")
        except Exception as exc:
            return is_not_found(exc)
        return False

    await requests.eventually(gone)
