"""Claim constraints in the allocator: ``distinctAttribute`` holds across every device chosen,
those of one request included (upstream's fix of kubernetes#140438)."""

from __future__ import annotations

from typing import Any

from fakeapi.scheduler.plugins.dynamic_resources import allocate

DRIVER = "nic.example.com"
NIC_CLASS = {
    "metadata": {"name": "nic"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
}


def nic_slice(numas: list[int]) -> dict[str, Any]:
    return {
        "metadata": {"name": "node-1-nics"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [
                {"name": f"nic-{i}", "attributes": {"numa": {"int": numa}}}
                for i, numa in enumerate(numas)
            ],
        },
    }


def test_one_request_gets_devices_with_distinct_values() -> None:
    claim = {
        "metadata": {"namespace": "ns", "name": "spread"},
        "spec": {"devices": {
            "requests": [{"name": "nics", "exactly": {
                "deviceClassName": "nic", "allocationMode": "ExactCount", "count": 3}}],
            "constraints": [{"requests": ["nics"], "distinctAttribute": f"{DRIVER}/numa"}],
        }},
    }
    [result] = allocate(
        claims=[claim], node="node-1", classes=[NIC_CLASS], slices=[nic_slice([1, 2, 1, 3])]
    )
    devices = [r["device"] for r in result["devices"]["results"]]
    assert devices == ["nic-0", "nic-1", "nic-3"]  # numa 1, 2, 3: nic-2 repeats numa 1
