"""The ResourcePool controller (KEP-5677 seed): counts that follow slices and allocations."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import (
    DEVICE_TAINT_RULES,
    RESOURCE_CLAIMS,
    RESOURCE_POOLS,
    RESOURCE_SLICES,
    is_not_found,
)

DRIVER = "gpu.example.com"
POOL_NAME = "gpu.example.com.node-1"


def _slice(
    name: str,
    devices: list[str],
    *,
    count: int = 1,
    generation: int = 1,
    pool: str = "node-1",
    shared: list[dict[str, Any]] | None = None,
    device_specs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "driver": DRIVER,
        "nodeName": "node-1",
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
    }
    listed = device_specs if device_specs is not None else [{"name": d} for d in devices]
    if listed:
        spec["devices"] = listed
    if shared:
        spec["sharedCounters"] = shared
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": spec,
    }


async def _pool(cluster, name: str = POOL_NAME) -> dict[str, Any] | None:
    try:
        return await cluster.user.get(RESOURCE_POOLS, name=name)
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise


def _condition(pool: dict[str, Any], type_: str) -> dict[str, Any]:
    return next(c for c in pool["status"]["conditions"] if c["type"] == type_)


@pytest.fixture
async def pools(cluster):
    await cluster.start(["resourcepool-controller"])
    return cluster


async def _wait_summary(cluster, *, slices: int = 1, **expected: int) -> dict[str, Any]:
    """Wait for the summary, moving the fake clock so that delayed status writes come due."""

    async def matches() -> bool:
        pool = await _pool(cluster)
        status = (pool or {}).get("status") or {}
        summary = status.get("summary") or {}
        if status.get("observedSliceCount") == slices and all(
            summary.get(k, 0) == v for k, v in expected.items()
        ):
            return True
        cluster.clock.advance(0.25)
        return False

    await cluster.eventually(matches, message=f"summary never became {expected}")
    pool = await _pool(cluster)
    assert pool is not None
    return pool


async def test_a_pool_gets_a_resource_pool_whose_counts_follow_allocations(pools):
    await pools.user.create(
        RESOURCE_SLICES, body=_slice("node-1-gpus", ["gpu-0", "gpu-1", "gpu-2", "gpu-3"])
    )
    pool = await _wait_summary(pools, totalDevices=4, allocatedDevices=0, availableDevices=4)
    assert pool["spec"] == {"driver": DRIVER, "poolName": "node-1", "nodeName": "node-1"}
    assert _condition(pool, "Complete")["status"] == "True"
    assert _condition(pool, "Complete")["reason"] == "AllSlicesPresent"
    assert _condition(pool, "Valid")["status"] == "True"
    status = pool["status"]
    assert (status["observedSliceCount"], status["expectedSliceCount"]) == (1, 1)
    assert status["observedGeneration"] == 1
    assert status["lastUpdateTime"]

    claim = await pools.create_claim("a")
    await pools.allocate(claim, devices=["gpu-0", "gpu-1"], reserved_for=[])
    await pools.advance(2)
    await _wait_summary(pools, totalDevices=4, allocatedDevices=2, availableDevices=2)

    current = await pools.user.get(RESOURCE_CLAIMS, namespace="default", name="a")
    current["status"] = {}
    await pools.user.update_status(RESOURCE_CLAIMS, body=current)
    await pools.advance(2)
    await _wait_summary(pools, totalDevices=4, allocatedDevices=0, availableDevices=4)


async def test_a_driver_written_in_capitals_and_a_pool_with_slashes_get_a_valid_name(pools):
    body = _slice("rack-gpus", ["gpu-0"], pool="rack1/n3")
    body["spec"]["driver"] = "GPU.Example.com"
    await pools.user.create(RESOURCE_SLICES, body=body)

    async def created() -> bool:
        return await _pool(pools, "gpu.example.com.rack1-n3") is not None

    await pools.eventually(created)
    pool = await _pool(pools, "gpu.example.com.rack1-n3")
    assert pool is not None
    assert pool["spec"] == {"driver": "GPU.Example.com", "poolName": "rack1/n3",
                            "nodeName": "node-1"}


async def test_an_incomplete_pool_is_reported(pools):
    await pools.user.create(RESOURCE_SLICES, body=_slice("part-1", ["gpu-0"], count=2))
    pool = await _wait_summary(pools, totalDevices=1)
    complete = _condition(pool, "Complete")
    assert (complete["status"], complete["reason"]) == ("False", "SlicesMissing")
    assert (pool["status"]["observedSliceCount"], pool["status"]["expectedSliceCount"]) == (1, 2)

    await pools.user.create(RESOURCE_SLICES, body=_slice("part-2", ["gpu-1"], count=2))
    pool = await _wait_summary(pools, slices=2, totalDevices=2)
    assert _condition(pool, "Complete")["status"] == "True"


async def test_a_device_listed_twice_makes_the_pool_invalid_and_counts_once(pools):
    await pools.user.create(RESOURCE_SLICES, body=_slice("part-1", ["gpu-0", "gpu-1"], count=2))
    await pools.user.create(RESOURCE_SLICES, body=_slice("part-2", ["gpu-1", "gpu-2"], count=2))
    await pools.advance(2)
    pool = await _wait_summary(pools, slices=2, totalDevices=3)
    valid = _condition(pool, "Valid")
    assert (valid["status"], valid["reason"]) == ("False", "ValidationFailed")
    assert pool["status"]["validationErrors"] == [
        'device "gpu-1" appears in both part-1 and part-2'
    ]
    assert pool["status"]["truncatedErrorCount"] == 0


async def test_validation_errors_are_truncated_to_ten(pools):
    names = [f"gpu-{i}" for i in range(12)]
    await pools.user.create(RESOURCE_SLICES, body=_slice("part-1", names, count=2))
    await pools.user.create(RESOURCE_SLICES, body=_slice("part-2", names, count=2))
    await pools.advance(2)
    pool = await _wait_summary(pools, slices=2, totalDevices=12)
    assert len(pool["status"]["validationErrors"]) == 10
    assert pool["status"]["truncatedErrorCount"] == 12


async def test_exhausted_shared_counters_make_devices_unavailable(pools):
    shared = [{"name": "memory", "counters": {"mem": {"value": "8Gi"}}}]

    def partition(name: str, size: str) -> dict[str, Any]:
        return {
            "name": name,
            "consumesCounters": [{"counterSet": "memory", "counters": {"mem": {"value": size}}}],
        }

    devices = [partition("whole", "8Gi"), partition("half-0", "4Gi"), partition("half-1", "4Gi")]
    # counters and the devices drawing from them are published in separate slices
    await pools.user.create(
        RESOURCE_SLICES, body=_slice("node-1-counters", [], count=2, shared=shared, device_specs=[])
    )
    await pools.user.create(
        RESOURCE_SLICES, body=_slice("node-1-devices", [], count=2, device_specs=devices)
    )
    await _wait_summary(pools, slices=2, totalDevices=3, availableDevices=3)
    claim = await pools.create_claim("a")
    await pools.allocate(claim, devices=["half-0"], reserved_for=[])
    await pools.advance(2)
    pool = await _wait_summary(
        pools,
        slices=2,
        totalDevices=3,
        allocatedDevices=1,
        availableDevices=1,
        unavailableDevices=1,
    )
    assert "partiallyAllocatedDevices" not in pool["status"]["summary"]


async def test_devices_a_taint_rule_selects_are_unavailable_while_the_rule_lasts(pools):
    await pools.user.create(
        RESOURCE_SLICES, body=_slice("node-1-gpus", [f"gpu-{i}" for i in range(4)])
    )
    await _wait_summary(pools, totalDevices=4, availableDevices=4)
    await pools.user.create(
        DEVICE_TAINT_RULES,
        body={
            "apiVersion": DEVICE_TAINT_RULES.api_version,
            "kind": "DeviceTaintRule",
            "metadata": {"name": "drain-gpu-1"},
            "spec": {
                "deviceSelector": {"driver": DRIVER, "pool": "node-1", "device": "gpu-1"},
                "taint": {"key": "example.com/maintenance", "effect": "NoSchedule"},
            },
        },
    )
    await _wait_summary(pools, totalDevices=4, availableDevices=3, unavailableDevices=1)
    await pools.user.delete(DEVICE_TAINT_RULES, name="drain-gpu-1")
    pool = await _wait_summary(pools, totalDevices=4, availableDevices=4)
    assert "unavailableDevices" not in pool["status"]["summary"]


async def test_the_pool_goes_with_its_last_slice(pools):
    await pools.user.create(RESOURCE_SLICES, body=_slice("node-1-gpus", ["gpu-0"]))
    await _wait_summary(pools, totalDevices=1)
    await pools.user.delete(RESOURCE_SLICES, name="node-1-gpus")

    async def gone() -> bool:
        return await _pool(pools) is None

    await pools.eventually(gone)


async def test_a_burst_of_allocations_is_written_once_per_interval(pools):
    await pools.user.create(
        RESOURCE_SLICES, body=_slice("node-1-gpus", [f"gpu-{i}" for i in range(8)])
    )
    first = await _wait_summary(pools, totalDevices=8, allocatedDevices=0)
    for i in range(5):
        claim = await pools.create_claim(f"c-{i}")
        await pools.allocate(claim, devices=[f"gpu-{i}"], reserved_for=[])
    await pools.settle()
    unchanged = await _pool(pools)
    assert unchanged is not None
    assert unchanged["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]

    await pools.advance(1.0)
    after = await _wait_summary(pools, totalDevices=8, allocatedDevices=5, availableDevices=3)
    assert int(after["metadata"]["resourceVersion"]) > int(first["metadata"]["resourceVersion"])
    await pools.settle()
    again = await _pool(pools)
    assert again is not None
    assert again["metadata"]["resourceVersion"] == after["metadata"]["resourceVersion"]
