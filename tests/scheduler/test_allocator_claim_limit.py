"""A claim asking for more devices than one allocation result can hold fails with upstream's
error before any device is searched, whatever the node offers."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.scheduler.plugins.dynamic_resources import AllocationError, allocate

DRIVER = "gpu.example.com"
GPU_CLASS = {
    "metadata": {"name": "gpu"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
}


def gpu_slice(devices: int) -> dict[str, Any]:
    return {
        "metadata": {"name": "node-1-gpu"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [{"name": f"gpu-{i}"} for i in range(devices)],
        },
    }


def exact(name: str, count: int) -> dict[str, Any]:
    return {
        "name": name,
        "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count},
    }


def claim(*requests: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"namespace": "ns", "name": "big"},
        "spec": {"devices": {"requests": list(requests)}},
    }


LIMIT_ERROR = "claim ns/big: number of requested devices 33 exceeds the claim limit of 32"


@pytest.mark.parametrize("devices", [0, 3, 40], ids=["no-devices", "few-devices", "many-devices"])
def test_requests_adding_up_past_the_result_limit_fail_with_the_claim_limit_error(
    devices: int,
) -> None:
    slices = [gpu_slice(devices)] if devices else []
    with pytest.raises(AllocationError) as err:
        allocate(
            claims=[claim(exact("a", 20), exact("b", 13))],
            node="node-1",
            classes=[GPU_CLASS],
            slices=slices,
        )
    assert str(err.value) == LIMIT_ERROR


def test_the_limit_error_comes_even_when_every_device_is_already_allocated() -> None:
    with pytest.raises(AllocationError) as err:
        allocate(
            claims=[claim(exact("a", 33))],
            node="node-1",
            classes=[GPU_CLASS],
            slices=[gpu_slice(2)],
            allocated=[f"{DRIVER}/node-1/gpu-0", f"{DRIVER}/node-1/gpu-1"],
        )
    assert str(err.value) == LIMIT_ERROR


def test_a_prioritized_list_counts_its_smallest_subrequest() -> None:
    first_available = {
        "name": "flex",
        "firstAvailable": [
            {"name": "many", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 30},
            {"name": "few", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2},
        ],
    }
    results = allocate(
        claims=[claim(exact("a", 30), first_available)],
        node="node-1",
        classes=[GPU_CLASS],
        slices=[gpu_slice(40)],
    )
    assert results is not None
    assert len(results[0]["devices"]["results"]) == 32


def test_exactly_the_limit_is_allowed() -> None:
    results = allocate(
        claims=[claim(exact("a", 20), exact("b", 12))],
        node="node-1",
        classes=[GPU_CLASS],
        slices=[gpu_slice(32)],
    )
    assert results is not None
    assert len(results[0]["devices"]["results"]) == 32


def test_a_selector_failing_at_runtime_names_the_claim_and_selector_as_upstream() -> None:
    asking = claim(exact("a", 1))
    asking["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [
        {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "x"'}}
    ]
    with pytest.raises(AllocationError) as err:
        allocate(claims=[asking], node="node-1", classes=[GPU_CLASS], slices=[gpu_slice(1)])
    message = str(err.value)
    assert message.startswith("claim ns/big: selector #0: CEL runtime error: no such key: model")
