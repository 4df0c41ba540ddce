"""ResourcePool status arithmetic on plain data (no cluster)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fakeapi.controllers.resourcepool_status import PoolView, compute_status
from fakeapi.rules.pools import resource_pool_name

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _slice(
    name: str, devices: list[dict[str, Any]], *, generation: int = 1, count: int = 1
) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "driver": "d",
            "pool": {"name": "p", "generation": generation, "resourceSliceCount": count},
            "devices": devices,
        },
    }


def _claim(*held: tuple[str, dict[str, str]]) -> dict[str, Any]:
    """A claim whose allocation holds each (device, consumedCapacity) of pool d/p."""
    results = [
        {"request": "r", "driver": "d", "pool": "p", "device": device, "consumedCapacity": used}
        for device, used in held
    ]
    return {"metadata": {"namespace": "default", "name": "c"},
            "status": {"allocation": {"devices": {"results": results}}}}


def _shared(name: str, memory: str) -> dict[str, Any]:
    return {
        "name": name,
        "allowMultipleAllocations": True,
        "capacity": {"memory": {"value": memory}},
    }


def test_names_replace_slashes_and_fit_the_length_limit():
    assert resource_pool_name(driver="example.com/gpu", pool="node-1") == "example.com-gpu.node-1"
    assert len(resource_pool_name(driver="d" * 63, pool="p" * 253)) == 253
    # an object name is a lowercase DNS subdomain, whatever the driver and pool look like
    assert resource_pool_name(driver="GPU.Acme.Example", pool="rack1/n3") == (
        "gpu.acme.example.rack1-n3"
    )


def test_multi_allocatable_devices_count_as_partially_allocated_until_full():
    view = PoolView(
        driver="d",
        pool="p",
        slices=[
            _slice("s", [_shared("big", "8Gi"), _shared("full", "4Gi"), _shared("idle", "4Gi")])
        ],
    )
    view.claims = [
        _claim(("big", {"memory": "2Gi"})),
        _claim(("big", {"memory": "2Gi"}), ("full", {"memory": "4Gi"})),
    ]
    status = compute_status(view, old={}, now=NOW)
    assert status["summary"] == {
        "totalDevices": 3,
        "allocatedDevices": 2,
        "availableDevices": 1,
        "partiallyAllocatedDevices": 1,
    }


def test_only_the_newest_generation_counts_and_mixing_is_reported():
    view = PoolView(
        driver="d",
        pool="p",
        slices=[
            _slice("old", [{"name": "a"}, {"name": "b"}], generation=1),
            _slice("new", [{"name": "a"}], generation=2),
        ],
    )
    status = compute_status(view, old={}, now=NOW)
    assert status["summary"]["totalDevices"] == 1
    assert status["observedGeneration"] == 2
    assert status["validationErrors"] == ["ResourceSlices have inconsistent pool generations"]
    assert status["observedSliceCount"] == 1


def test_condition_times_are_kept_while_the_status_does_not_change():
    view = PoolView(driver="d", pool="p", slices=[_slice("s", [{"name": "a"}])])
    first = compute_status(view, old={}, now=NOW)
    later = compute_status(view, old=first, now=datetime(2026, 1, 2, tzinfo=UTC))
    assert later["conditions"] == first["conditions"]


def test_allocations_of_unknown_devices_are_ignored():
    view = PoolView(
        driver="d", pool="p", slices=[_slice("s", [{"name": "a"}])], claims=[_claim(("ghost", {}))]
    )
    assert compute_status(view, old={}, now=NOW)["summary"] == {
        "totalDevices": 1,
        "allocatedDevices": 0,
        "availableDevices": 1,
    }


def test_unallocated_devices_tainted_against_scheduling_are_unavailable():
    def tainted(name: str, effect: str) -> dict[str, Any]:
        return {"name": name, "taints": [{"key": "example.com/fault", "effect": effect}]}

    view = PoolView(
        driver="d",
        pool="p",
        slices=[
            _slice(
                "s",
                [
                    tainted("no-schedule", "NoSchedule"),
                    tainted("no-execute", "NoExecute"),
                    tainted("noted", "None"),  # recorded only: allocations still land there
                    tainted("in-use", "NoExecute"),  # allocated already: counted as allocated
                    {"name": "clean"},
                ],
            )
        ],
        claims=[_claim(("in-use", {}))],
    )
    assert compute_status(view, old={}, now=NOW)["summary"] == {
        "totalDevices": 5,
        "allocatedDevices": 1,
        "availableDevices": 2,
        "unavailableDevices": 2,
    }


def test_devices_a_taint_rule_selects_against_scheduling_are_unavailable():
    def rule(selector: dict[str, str] | None, effect: str) -> dict[str, Any]:
        spec: dict[str, Any] = {"taint": {"key": "example.com/maintenance", "effect": effect}}
        if selector is not None:
            spec["deviceSelector"] = selector
        return {"metadata": {"name": f"r-{effect}"}, "spec": spec}

    devices = [{"name": n} for n in ("a", "b", "c", "d")]
    view = PoolView(
        driver="d",
        pool="p",
        slices=[_slice("s", devices)],
        claims=[_claim(("d", {}))],
        taint_rules=[
            rule({"driver": "d", "pool": "p", "device": "a"}, "NoSchedule"),
            rule({"device": "b"}, "NoExecute"),  # unset fields match every driver and pool
            rule({"device": "c"}, "None"),  # recorded only: allocations still land there
            rule({"pool": "other", "device": "c"}, "NoSchedule"),  # another pool's device
            rule(None, "NoSchedule"),  # no selector: matches nothing
            rule({"device": "d"}, "NoExecute"),  # allocated already: counted as allocated
        ],
    )
    assert compute_status(view, old={}, now=NOW)["summary"] == {
        "totalDevices": 4,
        "allocatedDevices": 1,
        "availableDevices": 1,
        "unavailableDevices": 2,
    }
