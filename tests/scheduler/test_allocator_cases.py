"""Every scenario of tests/support/allocator_cases.yaml, run through the functional allocator.

The YAML uses a compact notation (see its header); ``tests/support/allocator_cases.py`` expands
it into the API objects the allocator takes (DeviceClass, ResourceSlice, ResourceClaim as
JSON-shaped dicts).
This module runs them and compares devices, node selectors, share IDs, consumed capacity, configs
and error messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from fakeapi.quantity import parse_quantity
from fakeapi.scheduler.plugins.dynamic_resources import (
    AllocationError,
    AllocatorFeatures,
    Node,
    allocate,
)

from ..support.allocator_cases import (
    device_class,
    load_allocator_cases,
    resource_claim,
    resource_slice,
)

CASES = load_allocator_cases()

NODES = {
    "node-1": Node("node-1", {"region": "region-1", "planet": "earth"}),
    "node-2": Node("node-2", {"region": "region-2", "planet": "earth"}),
}
FEATURE_GATES = {
    "AdminAccess": ["DRAAdminAccess"],
    "PrioritizedList": ["DRAPrioritizedList"],
    "PartitionableDevices": ["DRAPartitionableDevices"],
    "DeviceTaints": ["DRADeviceTaints"],
    "DeviceBindingAndStatus": ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"],
    "ConsumableCapacity": ["DRAConsumableCapacity"],
    "ListTypeAttributes": ["DRAListTypeAttributes"],
}
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


# -- running a case ----------------------------------------------------------------------------
def features_of(case: Mapping[str, Any]) -> AllocatorFeatures:
    """Listed features on, everything else off (upstream's test table: no list = none)."""
    gates = {gate: False for gates in FEATURE_GATES.values() for gate in gates}
    for name in case.get("features") or []:
        for gate in FEATURE_GATES[name]:
            gates[gate] = True
    return AllocatorFeatures.from_gates(gates)


def run_case(case: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    return allocate(
        claims=[resource_claim(c) for c in case["claims"]],
        node=NODES[case["node"]],
        classes=[device_class(c) for c in case.get("classes") or []],
        slices=[resource_slice(s) for s in case.get("slices") or []],
        allocated=case.get("allocated") or [],
        allocated_capacity={
            k: {n: str(v) for n, v in caps.items()}
            for k, caps in (case.get("allocatedCapacity") or {}).items()
        },
        features=features_of(case),
    )


# -- comparing ----------------------------------------------------------------------------------
def expected_node_selector(value: Any) -> dict[str, Any] | None:
    if value in (None, "none"):
        return None
    if isinstance(value, str):
        node = re.fullmatch(r"local\((.+)\)", value)
        assert node, value
        return {
            "nodeSelectorTerms": [
                {
                    "matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": [node.group(1)]}
                    ]
                }
            ]
        }
    return value if "nodeSelectorTerms" in value else {"nodeSelectorTerms": [value]}


def check_device(expected: str, actual: Mapping[str, Any]) -> None:
    request, device_id, *_ = expected.split(" ", 2)
    rest = expected[len(request) + len(device_id) + 2 :]
    assert actual["request"] == request
    assert f"{actual['driver']}/{actual['pool']}/{actual['device']}" == device_id
    assert actual.get("adminAccess", False) is ("adminAccess=true" in rest)
    wants_share = "shareID" in rest and "no shareID" not in rest
    if wants_share:
        assert UUID_RE.match(actual.get("shareID", "")), actual
    else:
        assert "shareID" not in actual
    capacity = re.search(r"consumedCapacity=(\{.*?\})", rest)
    if capacity:
        wanted = yaml.safe_load(capacity.group(1))
        got = actual.get("consumedCapacity") or {}
        assert set(got) == set(wanted)
        for name, value in wanted.items():
            assert parse_quantity(got[name]) == parse_quantity(str(value)), (name, got[name], value)
    else:
        assert "consumedCapacity" not in actual
    for key in ("tolerations", "bindingConditions", "bindingFailureConditions"):
        found = re.search(rf"{key}=(\[.*?\](?=\s|$))", rest)
        if found:
            assert actual.get(key) == yaml.safe_load(found.group(1))
        else:
            assert key not in actual


def check_config(expected: list[Mapping[str, Any]], actual: list[Mapping[str, Any]]) -> None:
    assert len(actual) == len(expected), actual
    for want, got in zip(expected, actual, strict=True):
        assert got["source"] == want["source"]
        assert got.get("requests") == want.get("requests")
        assert got["opaque"]["driver"] == want["driver"]
        if "param" in want:
            assert got["opaque"]["parameters"] == want["param"]


def sort_key(item: Any) -> tuple[str, str]:
    if isinstance(item, str):
        request, device_id = item.split(" ")[:2]
        return (request, device_id)
    return (item["request"], f"{item['driver']}/{item['pool']}/{item['device']}")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_allocator_case(case: Mapping[str, Any]) -> None:
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(AllocationError) as raised:
            run_case(case)
        assert expect["error"] in str(raised.value)
        return
    results = run_case(case)
    if expect.get("unschedulable"):
        assert results is None
        return
    assert results is not None, "expected an allocation"
    assert len(results) == len(expect["results"])
    for want, got in zip(expect["results"], results, strict=True):
        assert got.get("nodeSelector") == expected_node_selector(want.get("nodeSelector"))
        actual_devices = sorted(got["devices"]["results"], key=sort_key)
        wanted_devices = sorted(want["devices"], key=sort_key)
        assert len(actual_devices) == len(wanted_devices), actual_devices
        for wanted, actual in zip(wanted_devices, actual_devices, strict=True):
            check_device(wanted, actual)
        if "config" in want:
            check_config(want["config"], got["devices"].get("config") or [])
        else:
            assert not got["devices"].get("config")


def test_every_case_has_a_unique_name() -> None:
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
