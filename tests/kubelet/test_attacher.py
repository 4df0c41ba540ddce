"""The driver's controller attaches devices that have binding conditions (KEP-5007)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.client import NODES, RESOURCE_CLAIMS
from fakeapi.cluster.profiles import load_profile
from fakeapi.kubelet import ClusterDriver, DriverProfile
from fakeapi.kubelet.attacher import ANNOTATION_ATTACH_FAILED
from fakeapi.kubelet.dra.profiles import ProfileError
from fakeapi.timefmt import format_time

from .conftest import Cluster

Obj = dict[str, Any]
FABRIC = "fabric.example.com"


async def _cluster_driver(cluster: Cluster) -> ClusterDriver:
    driver = ClusterDriver(client=cluster.client, informers=cluster.informers,
                           clock=cluster.clock, profile=load_profile("network-attached"))
    await driver.start()
    return driver


async def _allocated_claim(cluster: Cluster, name: str, **annotations: str) -> Obj:
    """A claim allocated one fabric device, as the scheduler writes it before PreBind waits."""
    claim = await cluster.client.create(RESOURCE_CLAIMS, namespace="default", body={
        "metadata": {"name": name, "annotations": annotations},
        "spec": {"devices": {"requests": [{"name": "nic",
                                           "exactly": {"deviceClassName": FABRIC}}]}},
    })
    claim["status"] = {"allocation": {
        "devices": {"results": [{
            "request": "nic", "driver": FABRIC, "pool": "fabric-a", "device": "fabric-dev-3",
            "bindingConditions": ["FabricAttached"],
            "bindingFailureConditions": ["FabricAttachFailed"],
        }]},
        "allocationTimestamp": format_time(cluster.clock.now()),
    }}
    return await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)


def _conditions(claim: Obj) -> dict[str, tuple[str, str]]:
    [entry] = claim["status"].get("devices") or [{}]
    return {c["type"]: (c["status"], c["reason"]) for c in entry.get("conditions") or ()}


async def test_the_network_attached_profile_asks_for_attachment() -> None:
    profile = load_profile("network-attached")
    [pool] = profile.render()
    assert {tuple(d["bindingConditions"]) for d in pool.devices} == {("FabricAttached",)}
    assert profile.attach_delay_seconds == 1.0
    assert profile.node_labels == {"fabric": "a"}  # its nodes are on the pool's fabric


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"attach": {"delaySeconds": -1}}, "attach.delaySeconds: must be a number >= 0"),
        ({"attach": {"delaySeconds": "1s"}}, "attach.delaySeconds: must be a number >= 0"),
        ({"nodeLabels": {"fabric": 1}}, "nodeLabels: must map label names to string values"),
        ({"nodeLabels": ["fabric=a"]}, "nodeLabels: must map label names to string values"),
    ],
)
def test_attach_and_node_label_settings_are_checked(extra: Obj, message: str) -> None:
    data = {"driver": FABRIC, "pools": [{"name": "p", "devices": [{"name": "d"}]}], **extra}
    with pytest.raises(ProfileError, match=message):
        DriverProfile.from_mapping(data)


async def test_a_kubelet_registers_its_node_with_its_profiles_labels(cluster: Cluster) -> None:
    await cluster.kubelet("node-1", drivers=[load_profile("gpu"), load_profile("network-attached")])
    node = await cluster.client.get(NODES, name="node-1")
    assert node["metadata"]["labels"]["fabric"] == "a"
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-1"


async def test_an_allocated_device_is_reported_attached_after_the_attach_delay(
    cluster: Cluster,
) -> None:
    driver = await _cluster_driver(cluster)
    await _allocated_claim(cluster, "nic")
    await cluster.advance(0.5)
    assert _conditions(await cluster.claim("nic")) == {}

    await cluster.advance(0.75)
    claim = await cluster.claim("nic")
    assert _conditions(claim) == {"FabricAttached": ("True", "Attached")}
    [entry] = claim["status"]["devices"]
    assert (entry["driver"], entry["pool"], entry["device"]) == (FABRIC, "fabric-a", "fabric-dev-3")
    version = claim["metadata"]["resourceVersion"]
    await cluster.advance(3)
    assert (await cluster.claim("nic"))["metadata"]["resourceVersion"] == version  # said once
    await driver.stop()


async def test_a_claim_marked_to_fail_gets_its_binding_failure_condition(
    cluster: Cluster,
) -> None:
    driver = await _cluster_driver(cluster)
    await _allocated_claim(cluster, "nic", **{ANNOTATION_ATTACH_FAILED: "true"})
    await cluster.advance(1.5)
    assert _conditions(await cluster.claim("nic")) == {
        "FabricAttachFailed": ("True", "AttachFailed")
    }
    await driver.stop()


async def test_a_claim_deallocated_before_the_attach_is_left_alone(cluster: Cluster) -> None:
    driver = await _cluster_driver(cluster)
    claim = await _allocated_claim(cluster, "nic")
    claim["status"] = {}
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)
    await cluster.advance(2)
    assert "devices" not in (await cluster.claim("nic")).get("status", {})
    await driver.stop()


async def test_preparing_keeps_the_attach_conditions_beside_ready(cluster: Cluster) -> None:
    driver = await _cluster_driver(cluster)
    await _allocated_claim(cluster, "nic")
    await cluster.advance(1.5)
    kubelet = await cluster.kubelet("node-1", drivers=[load_profile("network-attached")])
    simulated = kubelet.drivers[FABRIC]
    await simulated.prepare(await cluster.claim("nic"))
    assert _conditions(await cluster.claim("nic")) == {
        "FabricAttached": ("True", "Attached"),
        "Ready": ("True", "DevicePrepared"),
    }
    await driver.stop()


async def test_a_restarted_controller_attaches_what_was_allocated_while_it_was_stopped(
    cluster: Cluster,
) -> None:
    driver = await _cluster_driver(cluster)
    await _allocated_claim(cluster, "cut-short")
    await cluster.advance(0.5)
    await driver.stop()  # the attach in progress is cut short
    await _allocated_claim(cluster, "while-stopped")
    await cluster.advance(2)
    assert _conditions(await cluster.claim("cut-short")) == {}

    driver = await _cluster_driver(cluster)
    await cluster.advance(1.5)
    for name in ("cut-short", "while-stopped"):
        assert _conditions(await cluster.claim(name)) == {"FabricAttached": ("True", "Attached")}
    await driver.stop()
