"""The long-lived DeviceInventory stays right across slice, class, taint-rule and
allocate/free sequences, and the Allocator built on it reuses its caches."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.scheduler.plugins.dynamic_resources import (
    Allocator,
    DeviceInventory,
    FailedAllocationOnNodeError,
    Node,
)

DRIVER = "gpu.example.com"
NODE = Node("node-1", {"zone": "a"})


def make_slice(
    node: str = "node-1", devices: int = 3, *, generation: int = 1, **device_extra: Any
) -> dict[str, Any]:
    return {
        "metadata": {"name": f"{node}-gpu"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": node, "generation": generation, "resourceSliceCount": 1},
            "nodeName": node,
            "devices": [{"name": f"gpu-{i}", **device_extra} for i in range(devices)],
        },
    }


def make_class(expression: str = f'device.driver == "{DRIVER}"') -> dict[str, Any]:
    return {
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


def make_claim(name: str = "c", count: int = 1, **exactly: Any) -> dict[str, Any]:
    request = {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count, **exactly}
    return {
        "metadata": {"namespace": "ns", "name": name},
        "spec": {"devices": {"requests": [{"name": "req", "exactly": request}]}},
    }


def devices_of(results: list[dict[str, Any]] | None) -> list[str]:
    assert results is not None
    return [r["device"] for result in results for r in result["devices"]["results"]]


@pytest.fixture
def inventory() -> DeviceInventory:
    inv = DeviceInventory()
    inv.upsert_slice(make_slice())
    inv.upsert_class(make_class())
    return inv


def test_allocations_and_frees_keep_the_allocated_index_consistent(
    inventory: DeviceInventory,
) -> None:
    allocator = Allocator(inventory=inventory)
    taken: list[str] = []
    for i in range(3):
        results = allocator.allocate(claims=[make_claim(f"c{i}")], node=NODE)
        taken += devices_of(results)
        assert results is not None
        inventory.mark_allocated(claim_key=f"c{i}", allocation=results[0])
    assert taken == ["gpu-0", "gpu-1", "gpu-2"]
    assert inventory.allocated_by_pool[(DRIVER, "node-1")] == {"gpu-0", "gpu-1", "gpu-2"}

    assert allocator.allocate(claims=[make_claim("full")], node=NODE) is None
    assert allocator.stats.early_rejected

    inventory.mark_freed(claim_key="c1")
    assert inventory.allocated_devices == {f"{DRIVER}/node-1/gpu-0", f"{DRIVER}/node-1/gpu-2"}
    assert devices_of(allocator.allocate(claims=[make_claim("again")], node=NODE)) == ["gpu-1"]

    for key in ("c0", "c2"):
        inventory.mark_freed(claim_key=key)
    assert not inventory.allocated_devices
    assert not inventory.allocated_by_pool


def test_marking_the_same_claim_twice_replaces_its_record(inventory: DeviceInventory) -> None:
    inventory.mark_devices_allocated(claim_key="c", device_ids=[f"{DRIVER}/node-1/gpu-0"])
    inventory.mark_devices_allocated(claim_key="c", device_ids=[f"{DRIVER}/node-1/gpu-1"])
    assert inventory.allocated_devices == {f"{DRIVER}/node-1/gpu-1"}


def test_a_device_held_by_two_records_stays_allocated_until_both_are_freed(
    inventory: DeviceInventory,
) -> None:
    device = f"{DRIVER}/node-1/gpu-0"
    inventory.mark_devices_allocated(claim_key="allocated", device_ids=[device])
    inventory.mark_devices_allocated(claim_key="in-flight", device_ids=[device])
    inventory.mark_freed(claim_key="in-flight")
    assert device in inventory.allocated_devices
    inventory.mark_freed(claim_key="allocated")
    assert device not in inventory.allocated_devices


def test_admin_access_results_do_not_count_as_allocated(inventory: DeviceInventory) -> None:
    allocation = {
        "devices": {
            "results": [
                {
                    "request": "r",
                    "driver": DRIVER,
                    "pool": "node-1",
                    "device": "gpu-0",
                    "adminAccess": True,
                }
            ]
        }
    }
    inventory.mark_allocated(claim_key="admin", allocation=allocation)
    assert not inventory.allocated_devices


def test_shared_allocations_aggregate_consumed_capacity_and_free_exactly() -> None:
    inventory = DeviceInventory()
    inventory.upsert_slice(
        make_slice(devices=1, allowMultipleAllocations=True, capacity={"memory": {"value": "4Gi"}})
    )
    inventory.upsert_class(make_class())
    allocator = Allocator(inventory=inventory)
    claim = make_claim(capacity={"requests": {"memory": "2Gi"}})
    for key in ("a", "b"):
        results = allocator.allocate(claims=[claim], node=NODE)
        assert results is not None
        result = results[0]["devices"]["results"][0]
        assert result["consumedCapacity"] == {"memory": "2Gi"}
        inventory.mark_allocated(claim_key=key, allocation=results[0])
    device = f"{DRIVER}/node-1/gpu-0"
    assert str(inventory.aggregated_capacity[device]["memory"]) == "4Gi"
    assert allocator.allocate(claims=[claim], node=NODE) is None

    inventory.mark_freed(claim_key="a")
    assert str(inventory.aggregated_capacity[device]["memory"]) == "2Gi"
    assert allocator.allocate(claims=[claim], node=NODE) is not None
    inventory.mark_freed(claim_key="b")
    assert device not in inventory.aggregated_capacity
    assert not inventory.shared_ids


def test_unchanged_slice_upsert_keeps_device_views_and_their_memo(
    inventory: DeviceInventory,
) -> None:
    before = inventory.node_view(NODE)
    inventory.upsert_slice(make_slice())
    assert inventory.node_view(NODE) is before

    inventory.upsert_slice(make_slice(devices=2))
    after = inventory.node_view(NODE)
    assert after is not before
    assert [d.name for d in after.candidates] == ["gpu-0", "gpu-1"]


def test_selector_results_survive_across_allocations_until_the_slice_changes(
    inventory: DeviceInventory,
) -> None:
    allocator = Allocator(inventory=inventory)
    allocator.allocate(claims=[make_claim()], node=NODE)
    view = inventory.node_view(NODE).candidates[0].view
    assert list(view.results.values()) == [True]
    allocator.allocate(claims=[make_claim()], node=NODE)
    assert inventory.node_view(NODE).candidates[0].view is view


def test_removing_a_slice_removes_its_devices(inventory: DeviceInventory) -> None:
    inventory.remove_slice(key="node-1-gpu")
    assert inventory.node_view(NODE).candidates == ()
    assert Allocator(inventory=inventory).allocate(claims=[make_claim()], node=NODE) is None


def test_node_label_changes_invalidate_the_cached_pools() -> None:
    inventory = DeviceInventory()
    inventory.upsert_class(make_class())
    inventory.upsert_slice(
        {
            "metadata": {"name": "zonal"},
            "spec": {
                "driver": DRIVER,
                "pool": {"name": "zonal", "generation": 1, "resourceSliceCount": 1},
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                    ]
                },
                "devices": [{"name": "nic-0"}],
            },
        }
    )
    allocator = Allocator(inventory=inventory)
    results = allocator.allocate(claims=[make_claim()], node=Node("n", {"zone": "a"}))
    assert results is not None
    assert (
        results[0]["nodeSelector"]["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == "zone"
    )
    assert allocator.allocate(claims=[make_claim()], node=Node("n", {"zone": "b"})) is None


def test_taint_rules_apply_and_lift_without_touching_slices(inventory: DeviceInventory) -> None:
    allocator = Allocator(inventory=inventory)
    rule = {
        "metadata": {"name": "maintenance"},
        "spec": {
            "deviceSelector": {"driver": DRIVER},
            "taint": {"key": "m", "effect": "NoSchedule"},
        },
    }
    inventory.upsert_taint_rule(rule)
    assert allocator.allocate(claims=[make_claim()], node=NODE) is None
    tolerating = make_claim(tolerations=[{"key": "m", "operator": "Exists"}])
    assert devices_of(allocator.allocate(claims=[tolerating], node=NODE)) == ["gpu-0"]
    inventory.remove_taint_rule(name="maintenance")
    assert devices_of(allocator.allocate(claims=[make_claim()], node=NODE)) == ["gpu-0"]


def test_class_updates_take_effect_for_the_next_prepare(inventory: DeviceInventory) -> None:
    allocator = Allocator(inventory=inventory)
    inventory.upsert_class(make_class('device.driver == "other.example.com"'))
    assert allocator.allocate(claims=[make_claim()], node=NODE) is None
    inventory.upsert_class(make_class())
    assert allocator.allocate(claims=[make_claim()], node=NODE) is not None


def test_prepared_claims_are_reused_across_nodes() -> None:
    inventory = DeviceInventory()
    inventory.upsert_class(make_class())
    for i in range(4):
        inventory.upsert_slice(make_slice(f"node-{i}", devices=1))
    inventory.mark_devices_allocated(claim_key="x", device_ids=[f"{DRIVER}/node-0/gpu-0"])
    allocator = Allocator(inventory=inventory)
    prepared = allocator.prepare(claims=[make_claim()])
    fits = [
        allocator.allocate(claims=prepared, node=Node(f"node-{i}")) is not None for i in range(4)
    ]
    assert fits == [False, True, True, True]


def test_invalid_pool_without_solution_is_a_node_local_failure() -> None:
    inventory = DeviceInventory()
    inventory.upsert_class(make_class())
    broken = make_slice(devices=1)
    broken["spec"]["devices"].append({"name": "gpu-0"})
    inventory.upsert_slice(broken)
    with pytest.raises(
        FailedAllocationOnNodeError, match="invalid resource pools were encountered"
    ):
        Allocator(inventory=inventory).allocate(claims=[make_claim()], node=NODE)
