"""A driver profile of one's own is checked field by field: the error names the field's path and
what was expected, before anything starts."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.cluster import PROFILE_NAMES, load_profile
from fakeapi.kubelet import DriverProfile
from fakeapi.kubelet.dra.profiles import ProfileError


def _profile(**fields: Any) -> dict[str, Any]:
    return {"name": "nic", "driver": "nic.example.com",
            "pools": [{"devices": [{"name": "nic-{index}", "count": 2}]}], **fields}


def _device(**fields: Any) -> dict[str, Any]:
    return _profile(pools=[{"devices": [{"name": "nic-{index}", **fields}]}])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("nic", "a driver profile must be a mapping, got 'nic'"),
        ({"name": "nic", "pools": []},
         "driver: required (the DRA driver's name, e.g. nic.example.com)"),
        (_profile(drivr="x"), "drivr: unknown field; known: name, description, driver, scope, "
                              "command, cdi, health, attach, nodeLabels, behavior, pools"),
        (_profile(pools=[]), "pools: must be a list of at least one pool, got []"),
        (_profile(cdi="gpu"), "cdi: must be a mapping, got 'gpu'"),
        (_profile(health={"intervalSeconds": "5s"}),
         "health.intervalSeconds: must be a number >= 0.001, got '5s'"),
        (_profile(health={"enabled": "no"}), "health.enabled: must be true or false, got 'no'"),
        (_profile(pools=[{"devices": [{"count": 2}]}]),
         'pools[0].devices[0].name: required (a template such as "gpu-{index}")'),
        (_device(count="two"), "pools[0].devices[0].count: must be an integer >= 1, got 'two'"),
        (_device(colour="red"), "pools[0].devices[0].colour: unknown field; known: name, count"),
        (_device(attributes={"speed": 10}),
         "pools[0].devices[0].attributes.speed: must be a mapping with one of int, bool, "
         "string, version, got 10"),
        (_device(attributes={"speed": {"int": "fast"}}),
         "pools[0].devices[0].attributes.speed.int: must be an integer (or a template of one), "
         "got 'fast'"),
        (_device(attributes={"id": {"string": "nic-{slot}"}}),
         "pools[0].devices[0].attributes.id.string: unknown placeholder {slot} in 'nic-{slot}'; "
         "known: {group}, {index}, {node}, {partition}, {uuid}"),
        (_device(capacity={"bandwidth": "100G"}),
         "pools[0].devices[0].capacity.bandwidth: must be a mapping, got '100G'"),
        (_device(capacity={"bandwidth": {"size": "100G"}}),
         "pools[0].devices[0].capacity.bandwidth.size: unknown field; known: value, "
         "requestPolicy"),
        (_device(taints=[{"key": "dead", "effect": "NoRun"}]),
         "pools[0].devices[0].taints[0].effect: must be one of NoSchedule, NoExecute, None, "
         "got 'NoRun'"),
        (_profile(pools=[{"name": "{index}", "devices": []}]),
         "pools[0].name: unknown placeholder {index} in '{index}'; known: {node}"),
    ],
)
def test_a_bad_profile_names_the_field_and_what_was_expected(data: Any, message: str) -> None:
    with pytest.raises(ProfileError) as failure:
        DriverProfile.from_mapping(data)
    assert str(failure.value).startswith(message)


@pytest.mark.parametrize("name", PROFILE_NAMES)
def test_every_shipped_profile_passes_the_check(name: str) -> None:
    assert load_profile(name).driver
