"""Drivers publish their pools as ResourceSlices the API accepts, split and versioned right."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fakeapi.client import NODES, RESOURCE_SLICES
from fakeapi.cluster.profiles import PROFILE_NAMES, load_profile
from fakeapi.kubelet import ClusterDriver, DriverProfile, ProfileError

from .conftest import Cluster

Obj = dict[str, Any]


async def _slices(cluster: Cluster, **selector: str) -> list[Obj]:
    field_selector = ",".join(f"{k}={v}" for k, v in selector.items())
    listed = await cluster.client.list(RESOURCE_SLICES, field_selector=field_selector)
    return sorted(listed.items, key=lambda s: s["metadata"]["name"])


def _many_devices(count: int) -> DriverProfile:
    return DriverProfile.from_mapping(
        {
            "name": "many",
            "driver": "many.example.com",
            "pools": [
                {
                    "name": "{node}",
                    "devices": [
                        {
                            "name": "dev-{index}",
                            "count": count,
                            "attributes": {"index": {"int": "{index}"}},
                        }
                    ],
                }
            ],
        }
    )


async def test_more_than_128_devices_are_split_into_one_generation(cluster: Cluster) -> None:
    await cluster.kubelet("node-1", drivers=[_many_devices(300)])
    await cluster.advance(1)
    slices = await _slices(cluster, **{"spec.nodeName": "node-1"})
    assert [len(s["spec"]["devices"]) for s in slices] == [128, 128, 44]
    assert {(s["spec"]["pool"]["generation"], s["spec"]["pool"]["resourceSliceCount"])
            for s in slices} == {(1, 3)}
    names = [d["name"] for s in slices for d in s["spec"]["devices"]]
    assert len(set(names)) == 300


@pytest.mark.parametrize("name", [n for n in PROFILE_NAMES if n != "network-attached"])
async def test_every_node_profile_publishes_slices_the_api_accepts(
    cluster: Cluster, name: str
) -> None:
    profile = load_profile(name)
    await cluster.kubelet("node-1", drivers=[profile])
    await cluster.advance(1)
    slices = await _slices(cluster, **{"spec.driver": profile.driver})
    rendered = profile.render(node="node-1")
    assert sum(len(s["spec"].get("devices") or []) for s in slices) == sum(
        len(p.devices) for p in rendered
    )
    assert all(s["spec"]["nodeName"] == "node-1" for s in slices)
    assert {s["spec"]["pool"]["resourceSliceCount"] for s in slices} == {len(slices)}


async def test_devices_are_unique_per_node(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await cluster.kubelet("node-2")
    await cluster.advance(1)

    def uuids(slices: list[Obj]) -> set[str]:
        return {d["attributes"]["uuid"]["string"] for s in slices for d in s["spec"]["devices"]}

    one = uuids(await _slices(cluster, **{"spec.nodeName": "node-1"}))
    two = uuids(await _slices(cluster, **{"spec.nodeName": "node-2"}))
    assert len(one) == len(two) == 8 and not one & two


async def test_restarting_a_kubelet_removes_and_republishes_its_slices(cluster: Cluster) -> None:
    first = await cluster.kubelet("node-1")
    await cluster.advance(1)
    before = await _slices(cluster, **{"spec.nodeName": "node-1"})
    stray = {
        "metadata": {"name": "left-behind"},
        "spec": {"driver": "old.example.com", "pool": {"name": "p", "generation": 1,
                 "resourceSliceCount": 1}, "nodeName": "node-1", "devices": []},
    }
    await cluster.client.create(RESOURCE_SLICES, body=stray)
    await first.stop()
    cluster.kubelets.remove(first)
    await cluster.kubelet("node-1")
    await cluster.advance(1)
    after = await _slices(cluster, **{"spec.nodeName": "node-1"})
    assert [s["metadata"]["name"] for s in after] == [s["metadata"]["name"] for s in before]
    assert {s["metadata"]["uid"] for s in after}.isdisjoint(s["metadata"]["uid"] for s in before)


async def test_a_deleted_slice_is_republished_at_the_next_generation(cluster: Cluster) -> None:
    await cluster.kubelet("node-1", drivers=[_many_devices(200)])
    await cluster.advance(1)
    _first, second = await _slices(cluster, **{"spec.nodeName": "node-1"})
    await cluster.client.delete(RESOURCE_SLICES, name=second["metadata"]["name"])
    await cluster.advance(1)
    slices = await _slices(cluster, **{"spec.nodeName": "node-1"})
    assert len(slices) == 2
    assert {s["spec"]["pool"]["generation"] for s in slices} == {2}


async def test_a_nodes_slices_are_owned_by_its_node_and_follow_it(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await cluster.advance(1)
    node = await cluster.client.get(NODES, name="node-1")
    [published] = await _slices(cluster, **{"spec.nodeName": "node-1"})
    assert published["metadata"]["ownerReferences"] == [{
        "apiVersion": "v1", "kind": "Node", "name": "node-1",
        "uid": node["metadata"]["uid"], "controller": True}]
    # the Node goes, and the garbage collector takes its slices: none come back meanwhile
    await cluster.client.delete(NODES, name="node-1")
    await cluster.client.delete(RESOURCE_SLICES, name=published["metadata"]["name"])
    await cluster.advance(5)
    assert await _slices(cluster, **{"spec.nodeName": "node-1"}) == []
    # a Node of that name again: the slices are published anew, owned by it
    again = await cluster.client.create(NODES, body={"metadata": {"name": "node-1"}})
    await cluster.advance(1)
    [republished] = await _slices(cluster, **{"spec.nodeName": "node-1"})
    assert republished["metadata"]["ownerReferences"][0]["uid"] == again["metadata"]["uid"]


async def test_slices_left_from_a_replaced_node_are_taken_over_by_the_new_one(
    cluster: Cluster,
) -> None:
    await cluster.kubelet("node-1")
    await cluster.advance(1)
    # deleted and made again before any garbage collector ran: the slices are still there
    await cluster.client.delete(NODES, name="node-1")
    await cluster.advance(1)
    again = await cluster.client.create(NODES, body={"metadata": {"name": "node-1"}})
    await cluster.advance(1)
    [published] = await _slices(cluster, **{"spec.nodeName": "node-1"})
    assert published["metadata"]["ownerReferences"][0]["uid"] == again["metadata"]["uid"]


async def test_cluster_driver_publishes_the_network_attached_pool_once(cluster: Cluster) -> None:
    profile = load_profile("network-attached")
    driver = ClusterDriver(client=cluster.client, informers=cluster.informers,
                           clock=cluster.clock, profile=profile)
    await driver.start()
    await cluster.kubelet("node-1", drivers=[load_profile("gpu"), profile])
    await cluster.kubelet("node-2", drivers=[load_profile("gpu"), profile])
    await cluster.advance(1)
    slices = await _slices(cluster, **{"spec.driver": profile.driver})
    assert len(slices) == 1
    (only,) = slices
    assert "nodeName" not in only["spec"]
    assert only["spec"]["nodeSelector"]["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == (
        "fabric"
    )
    assert len(only["spec"]["devices"]) == 16
    await driver.stop(remove_slices=True)
    assert await _slices(cluster, **{"spec.driver": profile.driver}) == []


async def test_stopped_driver_annotation_unpublishes_until_removed(cluster: Cluster) -> None:
    await cluster.kubelet("node-1")
    await cluster.advance(1)
    assert len(await _slices(cluster, **{"spec.nodeName": "node-1"})) == 1
    annotation = "fakeapi.dev/fault-stopped-drivers"
    await cluster.client.patch(NODES, name="node-1",
                               patch={"metadata": {"annotations": {annotation: "gpu.example.com"}}})
    await cluster.advance(1)
    assert await _slices(cluster, **{"spec.nodeName": "node-1"}) == []
    await cluster.client.patch(NODES, name="node-1",
                               patch={"metadata": {"annotations": {annotation: None}}})
    await cluster.advance(1)
    assert len(await _slices(cluster, **{"spec.nodeName": "node-1"})) == 1


def test_devices_consuming_counters_are_cut_at_64_and_counters_get_own_slices() -> None:
    from fakeapi.kubelet.dra.profiles import RenderedPool
    from fakeapi.kubelet.dra.slices import pool_slices

    devices = [{"name": f"part-{i}", "consumesCounters": [
        {"counterSet": f"set-{i % 10}", "counters": {"memory": {"value": "1Gi"}}}]}
        for i in range(100)]
    counters = [{"name": f"set-{i}", "counters": {"memory": {"value": "10Gi"}}}
                for i in range(10)]
    pool = RenderedPool(name="node-1", devices=devices, shared_counters=counters,
                        node_name="node-1")
    slices = pool_slices(pool=pool, driver="mig.example.com", generation=3)
    shapes = [(len(s["spec"].get("sharedCounters") or []), len(s["spec"].get("devices") or []))
              for s in slices]
    assert shapes == [(8, 0), (2, 0), (0, 64), (0, 36)]
    assert {(s["spec"]["pool"]["generation"], s["spec"]["pool"]["resourceSliceCount"])
            for s in slices} == {(3, 4)}


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        ({"driver": "d", "command": ""}, "command: must be a command line"),
        ({"driver": "d", "command": "x", "scope": "cluster"}, "scope: a driver run by command"),
        ({"driver": "d", "command": "x", "pools": [{"devices": []}]},
         "pools: a driver run by command publishes its own devices"),
        ({"driver": "d", "command": "x", "behavior": "m:C"}, "leave out behavior"),
    ],
)
def test_a_real_drivers_profile_says_what_it_cannot_hold(
    profile: dict[str, Any], message: str
) -> None:
    with pytest.raises(ProfileError, match=re.escape(message)):
        DriverProfile.from_mapping(profile)


def test_a_real_drivers_profile_has_its_command_and_no_pools() -> None:
    parsed = DriverProfile.from_mapping({"driver": "d", "command": "run --node {node}"})
    assert (parsed.command, parsed.pools, parsed.scope) == ("run --node {node}", (), "node")
