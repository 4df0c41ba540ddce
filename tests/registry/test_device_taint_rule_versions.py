"""DeviceTaintRule is served at resource.k8s.io/v1 (as 1.37 does) and at v1beta2 (for 1.36 clients).

Both versions are one set of objects: whatever is written through one version is read, listed,
watched, updated and deleted through the other, with ``apiVersion`` set to the version asked for,
one resourceVersion sequence and one history. Discovery prefers v1.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType
from fakeapi.server import discovery

W = WriteOptions(field_manager="tests")


@pytest.fixture
def registry() -> GenericStore:
    return new_registry(clock=FakeClock())


def _versions(registry: GenericStore) -> tuple[ResourceType, ResourceType]:
    v1 = registry.resources.lookup("resource.k8s.io", "v1", "devicetaintrules")
    v1beta2 = registry.resources.lookup("resource.k8s.io", "v1beta2", "devicetaintrules")
    assert v1 is not None and v1beta2 is not None
    return v1, v1beta2


def _rule(name: str, effect: str = "NoSchedule") -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com"},
            "taint": {"key": "example.com/maintenance", "effect": effect},
        },
    }


def test_a_rule_written_at_v1beta2_reads_at_v1_with_its_apiversion(registry: GenericStore) -> None:
    v1, v1beta2 = _versions(registry)
    created = registry.create(v1beta2, None, _rule("r1"), W).obj
    assert created["apiVersion"] == "resource.k8s.io/v1beta2"
    read = registry.get(v1, None, "r1").obj
    assert read["apiVersion"] == "resource.k8s.io/v1"
    assert read["spec"] == created["spec"]
    assert read["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_both_versions_list_the_same_objects(registry: GenericStore) -> None:
    v1, v1beta2 = _versions(registry)
    registry.create(v1, None, _rule("a"), W)
    registry.create(v1beta2, None, _rule("b"), W)
    names = {
        rt.version: [(s.obj["metadata"]["name"], s.rv, s.obj["apiVersion"]) for s in items]
        for rt in (v1, v1beta2)
        for items in [registry.list(rt, None, ListOptions()).items]
    }
    assert [(n, rv) for n, rv, _ in names["v1"]] == [(n, rv) for n, rv, _ in names["v1beta2"]]
    assert {av for _, _, av in names["v1"]} == {"resource.k8s.io/v1"}
    assert {av for _, _, av in names["v1beta2"]} == {"resource.k8s.io/v1beta2"}


def test_an_update_through_one_version_conflicts_with_a_stale_read_of_the_other(
    registry: GenericStore,
) -> None:
    v1, v1beta2 = _versions(registry)
    registry.create(v1, None, _rule("r1"), W)
    stale = registry.get(v1beta2, None, "r1").obj
    fresh = registry.get(v1, None, "r1").obj
    registry.update(v1, None, "r1", {**fresh, "spec": _rule("r1", "NoExecute")["spec"]}, W)
    with pytest.raises(StatusError, match="the object has been modified") as info:
        registry.update(v1beta2, None, "r1", stale, W)
    assert info.value.code == 409


def test_a_watch_at_either_version_sees_writes_through_the_other(registry: GenericStore) -> None:
    v1, v1beta2 = _versions(registry)
    since = str(registry.resource_version)
    watch_v1 = registry.watch(v1, None, WatchOptions(resource_version=since))
    watch_v1beta2 = registry.watch(v1beta2, None, WatchOptions(resource_version=since))
    registry.create(v1beta2, None, _rule("r1"), W)
    registry.delete(v1, None, "r1", DeleteOptions())
    seen_v1 = [(t, o["metadata"]["name"], o["apiVersion"]) for t, o, _ in watch_v1.drain()]
    seen_v1beta2 = [
        (t, o["metadata"]["name"], o["apiVersion"]) for t, o, _ in watch_v1beta2.drain()
    ]
    assert seen_v1 == [
        ("ADDED", "r1", "resource.k8s.io/v1"),
        ("DELETED", "r1", "resource.k8s.io/v1"),
    ]
    assert seen_v1beta2 == [
        ("ADDED", "r1", "resource.k8s.io/v1beta2"),
        ("DELETED", "r1", "resource.k8s.io/v1beta2"),
    ]


def test_discovery_serves_both_versions_and_prefers_v1(registry: GenericStore) -> None:
    doc = discovery.aggregated_discovery(registry.resources, core=False)
    (group,) = [g for g in doc["items"] if g["metadata"]["name"] == "resource.k8s.io"]
    versions = [v["version"] for v in group["versions"]]
    assert versions[0] == "v1"
    serving = {
        v["version"] for v in group["versions"]
        for r in v["resources"] if r["resource"] == "devicetaintrules"
    }  # fmt: skip
    assert serving == {"v1", "v1beta2"}
