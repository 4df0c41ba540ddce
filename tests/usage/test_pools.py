"""KEP-5677's usage view: device states and pool counts from slices and readable claims."""

from __future__ import annotations

from typing import Any

from fakeapi.usage import (
    ALLOCATED,
    AVAILABLE,
    PARTIALLY_ALLOCATED,
    UNAVAILABLE,
    UNKNOWN,
    pool_usage,
    resource_pool_name,
)

DRIVER = "gpu.example.com"


def _slice(
    devices: list[dict[str, Any]],
    *,
    pool: str = "node-1",
    generation: int = 1,
    name: str = "s1",
    counters: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "driver": DRIVER,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": 1},
        "nodeName": pool,
        "devices": devices,
    }
    if counters:
        spec["sharedCounters"] = counters
    return {"metadata": {"name": name}, "spec": spec}


def _claim(name: str, *devices: str, pool: str = "node-1", namespace: str = "default",
           consumed: dict[str, str] | None = None) -> dict[str, Any]:
    results = []
    for device in devices:
        result: dict[str, Any] = {"request": "r", "driver": DRIVER, "pool": pool, "device": device}
        if consumed:
            result["consumedCapacity"] = consumed
        results.append(result)
    return {
        "metadata": {"name": name, "namespace": namespace},
        "status": {"allocation": {"devices": {"results": results}}},
    }


def _states(usage: Any) -> dict[str, str]:
    return {d.name: d.state for d in usage.devices}


def test_devices_held_by_readable_claims_are_allocated_to_them() -> None:
    slices = [_slice([{"name": "gpu-0"}, {"name": "gpu-1"}, {"name": "gpu-2"}])]
    [usage] = pool_usage(slices=slices, claims=[_claim("a", "gpu-1"), _claim("b", "gpu-2",
                                                                           namespace="team")])
    assert _states(usage) == {"gpu-0": AVAILABLE, "gpu-1": ALLOCATED, "gpu-2": ALLOCATED}
    assert {d.name: d.claims for d in usage.devices}["gpu-2"] == ["team/b"]
    assert (usage.total, usage.allocated, usage.available, usage.unavailable) == (3, 2, 1, 0)
    assert usage.node == "node-1"
    assert usage.name == "gpu.example.com.node-1"


def test_claims_of_other_pools_do_not_count() -> None:
    slices = [_slice([{"name": "gpu-0"}], pool="node-1"),
              _slice([{"name": "gpu-0"}], pool="node-2", name="s2")]
    usages = pool_usage(slices=slices, claims=[_claim("a", "gpu-0", pool="node-2")])
    assert [(u.pool, u.allocated) for u in usages] == [("node-1", 0), ("node-2", 1)]


def test_a_tainted_free_device_is_unavailable_but_a_none_effect_taint_is_not() -> None:
    devices = [
        {"name": "gpu-0", "taints": [{"key": "broken", "value": "ecc", "effect": "NoSchedule"}]},
        {"name": "gpu-1", "taints": [{"key": "drain", "effect": "NoExecute"}]},
        {"name": "gpu-2", "taints": [{"key": "note", "effect": "None"}]},
    ]
    [usage] = pool_usage(slices=[_slice(devices)], claims=[])
    assert _states(usage) == {"gpu-0": UNAVAILABLE, "gpu-1": UNAVAILABLE, "gpu-2": AVAILABLE}
    assert "broken=ecc:NoSchedule" in usage.devices[0].reason
    assert (usage.available, usage.unavailable) == (1, 2)


def test_free_devices_a_taint_rule_selects_against_scheduling_are_unavailable() -> None:
    def rule(name: str, selector: dict[str, str], effect: str) -> dict[str, Any]:
        return {"metadata": {"name": name}, "spec": {
            "deviceSelector": selector, "taint": {"key": "maintenance", "effect": effect}}}

    devices = [{"name": f"gpu-{i}"} for i in range(4)]
    rules = [
        rule("drain", {"driver": DRIVER, "pool": "node-1", "device": "gpu-0"}, "NoExecute"),
        rule("note", {"device": "gpu-1"}, "None"),  # recorded only
        rule("elsewhere", {"pool": "node-2"}, "NoSchedule"),
        rule("held", {"device": "gpu-3"}, "NoSchedule"),  # allocated already: stays allocated
    ]
    [usage] = pool_usage(slices=[_slice(devices)], claims=[_claim("a", "gpu-3")],
                         taint_rules=rules)
    assert _states(usage) == {
        "gpu-0": UNAVAILABLE, "gpu-1": AVAILABLE, "gpu-2": AVAILABLE, "gpu-3": ALLOCATED}
    assert usage.devices[0].reason == "taint maintenance=:NoExecute (DeviceTaintRule drain)"
    assert (usage.allocated, usage.available, usage.unavailable) == (1, 2, 1)


def test_partitions_whose_shared_counters_are_used_up_are_unavailable() -> None:
    counters = [{"name": "gpu-0-mem", "counters": {"memory": {"value": "40Gi"}}}]

    def part(name: str, memory: str) -> dict[str, Any]:
        return {"name": name, "consumesCounters": [
            {"counterSet": "gpu-0-mem", "counters": {"memory": {"value": memory}}}]}

    devices = [part("whole", "40Gi"), part("half-a", "20Gi"), part("half-b", "20Gi")]
    [usage] = pool_usage(slices=[_slice(devices, counters=counters)],
                         claims=[_claim("a", "half-a")])
    assert _states(usage) == {"half-a": ALLOCATED, "half-b": AVAILABLE, "whole": UNAVAILABLE}
    assert "gpu-0-mem/memory" in {d.name: d for d in usage.devices}["whole"].reason
    assert usage.total == usage.allocated + usage.available + usage.unavailable


def test_a_shared_device_with_capacity_left_is_partially_allocated() -> None:
    device = {"name": "nic-0", "allowMultipleAllocations": True,
              "capacity": {"bandwidth": {"value": "10G"}}}
    [usage] = pool_usage(slices=[_slice([device])],
                         claims=[_claim("a", "nic-0", consumed={"bandwidth": "4G"})])
    assert _states(usage) == {"nic-0": PARTIALLY_ALLOCATED}
    assert (usage.allocated, usage.partially_allocated) == (1, 1)

    [full] = pool_usage(slices=[_slice([device])],
                        claims=[_claim("a", "nic-0", consumed={"bandwidth": "4G"}),
                                _claim("b", "nic-0", consumed={"bandwidth": "6G"})])
    assert _states(full) == {"nic-0": ALLOCATED}
    assert full.devices[0].claims == ["default/a", "default/b"]


def test_only_the_newest_pool_generation_counts() -> None:
    old = _slice([{"name": "gpu-old"}], generation=1, name="old")
    new = _slice([{"name": "gpu-new"}], generation=2, name="new")
    [usage] = pool_usage(slices=[new, old], claims=[])
    assert [d.name for d in usage.devices] == ["gpu-new"]


def test_allocations_the_reader_cannot_see_are_allocated_without_a_reference() -> None:
    slices = [_slice([{"name": "gpu-0"}, {"name": "gpu-1"}, {"name": "gpu-2"}])]
    resource_pool = {
        "metadata": {"name": resource_pool_name(driver=DRIVER, pool="node-1")},
        "spec": {"driver": DRIVER, "poolName": "node-1"},
        "status": {"summary": {"totalDevices": 3, "allocatedDevices": 2}},
    }
    [usage] = pool_usage(slices=slices, claims=[_claim("mine", "gpu-0")],
                         resource_pools=[resource_pool])
    assert usage.allocated_without_reference == 1
    assert (usage.allocated, usage.available) == (2, 1)
    assert _states(usage) == {"gpu-0": ALLOCATED, "gpu-1": UNKNOWN, "gpu-2": UNKNOWN}
    assert "allocated without a reference" in usage.devices[1].reason


def test_a_status_that_agrees_with_the_claims_changes_nothing() -> None:
    slices = [_slice([{"name": "gpu-0"}, {"name": "gpu-1"}])]
    resource_pool = {"spec": {"driver": DRIVER, "poolName": "node-1"},
                     "status": {"summary": {"allocatedDevices": 1}}}
    [usage] = pool_usage(slices=slices, claims=[_claim("a", "gpu-0")],
                         resource_pools=[resource_pool])
    assert usage.allocated_without_reference == 0
    assert _states(usage) == {"gpu-0": ALLOCATED, "gpu-1": AVAILABLE}


def test_a_pool_is_named_as_the_controller_names_its_resource_pool() -> None:
    [usage] = pool_usage(slices=[_slice([{"name": "gpu-0"}], pool="rack1/n3")], claims=[])
    assert usage.name == resource_pool_name(driver=DRIVER, pool="rack1/n3")
    assert "/" not in usage.name


def test_json_form_carries_counts_and_devices() -> None:
    [usage] = pool_usage(slices=[_slice([{"name": "gpu-0"}])], claims=[_claim("a", "gpu-0")])
    doc = usage.to_dict()
    assert doc["allocatedDevices"] == 1 and doc["availableDevices"] == 0
    assert doc["devices"] == [{"name": "gpu-0", "state": "Allocated", "claims": ["default/a"]}]


def test_every_taint_in_force_is_listed_whatever_its_effect_or_source() -> None:
    slices = [_slice([
        {"name": "gpu-0", "taints": [{"key": "ecc", "value": "degraded", "effect": "None"}]},
        {"name": "gpu-1"},
        {"name": "gpu-2", "taints": [{"key": "dead", "effect": "NoExecute"}]},
    ])]
    rule = {"metadata": {"name": "drain"},
            "spec": {"deviceSelector": {"driver": DRIVER, "device": "gpu-1"},
                     "taint": {"key": "maintenance", "effect": "NoSchedule"}}}
    [usage] = pool_usage(slices=slices, claims=[_claim("a", "gpu-0")], taint_rules=[rule])
    assert {d.name: (d.state, d.taints) for d in usage.devices} == {
        "gpu-0": (ALLOCATED, ["ecc=degraded:None"]),
        "gpu-1": (UNAVAILABLE, ["maintenance:NoSchedule"]),
        "gpu-2": (UNAVAILABLE, ["dead:NoExecute"]),
    }
    assert usage.devices[1].to_dict()["taints"] == ["maintenance:NoSchedule"]
