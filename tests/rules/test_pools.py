"""Guard for fakeapi.rules.pools: one pool count for the ResourcePool controller and kubectl dra.

The shareable-device rows follow upstream's resourcepoolstatusrequest controller tests
(TestComputeShareableSummary: a shareable device in use is partially available, an idle one fully
available) and its counting rules (admin-access results are observers, the newest generation
alone counts); the rest are fakeapi's KEP-5677 seed rules.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.controllers.resourcepool_status import PoolView, compute_status
from fakeapi.rules.pools import (
    ALLOCATED,
    AVAILABLE,
    PARTIALLY_ALLOCATED,
    UNAVAILABLE,
    count_pool,
    gather_pool,
    pool_usage,
)

Obj = dict[str, Any]
DRIVER, POOL = "gpu.example.com", "pool-0"


def _slice(devices: list[Obj], *, name: str = "s", generation: int = 1,
           counters: list[Obj] | None = None) -> Obj:
    spec: Obj = {"driver": DRIVER, "nodeName": "node-1", "devices": devices,
                 "pool": {"name": POOL, "generation": generation, "resourceSliceCount": 1}}
    if counters:
        spec["sharedCounters"] = counters
    return {"metadata": {"name": name}, "spec": spec}


def _claim(name: str, *results: Obj) -> Obj:
    return {"metadata": {"namespace": "default", "name": name},
            "status": {"allocation": {"devices": {"results": list(results)}}}}


def _result(device: str, *, consumed: dict[str, str] | None = None, admin: bool = False) -> Obj:
    result: Obj = {"request": "r", "driver": DRIVER, "pool": POOL, "device": device}
    if consumed is not None:
        result["consumedCapacity"] = consumed
    if admin:
        result["adminAccess"] = True
    return result


def _shareable(name: str, memory: str | None = "40Gi") -> Obj:
    device: Obj = {"name": name, "allowMultipleAllocations": True}
    if memory is not None:
        device["capacity"] = {"memory": {"value": memory}}
    return device


# (description, devices, claims, expected states)
STATE_CASES = [
    ("a shareable device in use with capacity left is partially allocated, an idle one is not",
     [_shareable("shareable-0"), _shareable("shareable-1"), {"name": "plain"}],
     [_claim("a", _result("shareable-0", consumed={"memory": "10Gi"}))],
     {"shareable-0": PARTIALLY_ALLOCATED, "shareable-1": AVAILABLE, "plain": AVAILABLE}),
    ("a shareable device without capacity is partially allocated while in use",
     [_shareable("nic-0", memory=None)], [_claim("a", _result("nic-0"))],
     {"nic-0": PARTIALLY_ALLOCATED}),
    ("a shareable device whose capacity is used up is allocated",
     [_shareable("nic-0", memory="4Gi")],
     [_claim("a", _result("nic-0", consumed={"memory": "1Gi"})),
      _claim("b", _result("nic-0", consumed={"memory": "3Gi"}))],
     {"nic-0": ALLOCATED}),
    ("an admin-access result observes the device: it stays available",
     [{"name": "gpu-0"}], [_claim("a", _result("gpu-0", admin=True))], {"gpu-0": AVAILABLE}),
    ("a device taint against scheduling makes a free device unavailable",
     [{"name": "gpu-0", "taints": [{"key": "k", "effect": "NoSchedule"}]},
      {"name": "gpu-1", "taints": [{"key": "k", "effect": "None"}]}], [],
     {"gpu-0": UNAVAILABLE, "gpu-1": AVAILABLE}),
    ("allocations of other pools and unknown devices are ignored",
     [{"name": "gpu-0"}],
     [_claim("a", {**_result("gpu-0"), "pool": "other"}, _result("ghost"))],
     {"gpu-0": AVAILABLE}),
]


@pytest.mark.parametrize(("description", "devices", "claims", "states"), STATE_CASES)
def test_device_states_follow_the_counting_rules(
    description: str, devices: list[Obj], claims: list[Obj], states: dict[str, str]
) -> None:
    contents = gather_pool(driver=DRIVER, pool=POOL, slices=[_slice(devices)])
    usage = count_pool(contents, claims=claims)
    assert {d.name: d.state for d in usage.devices} == states, description
    assert usage.total == usage.allocated + usage.available + usage.unavailable


def test_the_newest_generation_alone_counts_and_a_device_listed_twice_counts_once() -> None:
    contents = gather_pool(driver=DRIVER, pool=POOL, slices=[
        _slice([{"name": "old"}], name="a", generation=1),
        _slice([{"name": "gpu-0"}], name="c", generation=2),
        _slice([{"name": "gpu-0"}, {"name": "gpu-1"}], name="b", generation=2),
    ])
    assert contents.generation == 2 and contents.mixed_generations
    assert list(contents.devices) == ["gpu-0", "gpu-1"]
    assert contents.duplicates == ['device "gpu-0" appears in both b and c']


POOLS = [
    _slice([_shareable("nic-0", memory=None), _shareable("big", "8Gi"), _shareable("full", "4Gi"),
            {"name": "gpu-0"}, {"name": "gpu-1", "taints": [{"key": "k", "effect": "NoExecute"}]},
            {"name": "whole", "consumesCounters": [
                {"counterSet": "mem", "counters": {"memory": {"value": "8Gi"}}}]},
            {"name": "half", "consumesCounters": [
                {"counterSet": "mem", "counters": {"memory": {"value": "4Gi"}}}]}],
           counters=[{"name": "mem", "counters": {"memory": {"value": "8Gi"}}}]),
]
CLAIMS = [
    _claim("a", _result("nic-0"), _result("big", consumed={"memory": "2Gi"})),
    _claim("b", _result("full", consumed={"memory": "4Gi"}), _result("half")),
    _claim("c", _result("gpu-0", admin=True)),
]


def test_the_resource_pool_status_and_kubectl_dra_count_alike() -> None:
    """Both readers call the one count: a shareable device without capacity, one with room,
    one used up, an observed device, a tainted one and used-up counters."""
    [usage] = pool_usage(slices=POOLS, claims=CLAIMS)
    status = compute_status(
        PoolView(driver=DRIVER, pool=POOL, slices=POOLS, claims=CLAIMS),
        old={}, now=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert status["summary"] == {
        "totalDevices": usage.total,
        "allocatedDevices": usage.allocated,
        "availableDevices": usage.available,
        "unavailableDevices": usage.unavailable,
        "partiallyAllocatedDevices": usage.partially_allocated,
    } == {
        "totalDevices": 7,
        "allocatedDevices": 4,  # nic-0, big, full, half
        "availableDevices": 1,  # gpu-0: observed, not consumed
        "unavailableDevices": 2,  # gpu-1 (tainted), whole (its counter is half used)
        "partiallyAllocatedDevices": 2,  # nic-0 (no capacity), big (room left)
    }
