"""core/v1 and events.k8s.io/v1 Events are one set of objects served in two shapes.

An event recorded through either API is listed, fetched, watched and field-selected through the
other, with its fields renamed as upstream converts them (regarding ↔ involvedObject, note ↔
message, reportingController ↔ reportingComponent, deprecated* ↔ the core names).
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType
from fakeapi.selectors import parse_field_selector

W = WriteOptions(field_manager="tests")


@pytest.fixture
def registry() -> GenericStore:
    return new_registry(clock=FakeClock())


def _kinds(registry: GenericStore) -> tuple[ResourceType, ResourceType]:
    core = registry.resources.lookup("", "v1", "events")
    new = registry.resources.lookup("events.k8s.io", "v1", "events")
    assert core is not None and new is not None
    return core, new


def _new_event(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingController": "example.com/driver",
        "reportingInstance": "driver-1",
        "action": "Prepare",
        "reason": "Prepared",
        "type": "Normal",
        "note": "devices prepared",
        "regarding": {"kind": "Pod", "name": "p1", "namespace": "default", "uid": "u1"},
    }


def _core_event(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "name": "p2", "namespace": "default"},
        "reason": "Scheduled",
        "message": "assigned to node-1",
        "type": "Normal",
        "source": {"component": "scheduler"},
        "count": 3,
    }


def test_event_recorded_through_events_api_reads_as_core_event(registry: GenericStore) -> None:
    core, new = _kinds(registry)
    registry.create(new, "default", _new_event("e1"), W)
    obj = registry.get(core, "default", "e1").obj
    assert obj["apiVersion"] == "v1" and obj["kind"] == "Event"
    assert obj["involvedObject"]["name"] == "p1"
    assert obj["message"] == "devices prepared"
    assert obj["reportingComponent"] == "example.com/driver"
    assert "regarding" not in obj and "note" not in obj


def test_core_event_reads_through_events_api_with_new_field_names(registry: GenericStore) -> None:
    core, new = _kinds(registry)
    registry.create(core, "default", _core_event("e2"), W)
    obj = registry.get(new, "default", "e2").obj
    assert obj["apiVersion"] == "events.k8s.io/v1"
    assert obj["regarding"]["name"] == "p2" and obj["note"] == "assigned to node-1"
    assert obj["deprecatedSource"] == {"component": "scheduler"} and obj["deprecatedCount"] == 3


def test_both_apis_list_the_same_objects_and_versions(registry: GenericStore) -> None:
    core, new = _kinds(registry)
    registry.create(new, "default", _new_event("e1"), W)
    registry.create(core, "default", _core_event("e2"), W)
    through_core = registry.list(core, "default", ListOptions())
    through_new = registry.list(new, "default", ListOptions())
    versions = [(s.obj["metadata"]["name"], s.rv) for s in through_core.items]
    assert versions == [(s.obj["metadata"]["name"], s.rv) for s in through_new.items]
    assert [name for name, _ in versions] == ["e1", "e2"]


def test_field_selectors_use_each_shape_s_own_labels(registry: GenericStore) -> None:
    core, new = _kinds(registry)
    registry.create(new, "default", _new_event("e1"), W)
    registry.create(core, "default", _core_event("e2"), W)
    by_core = registry.list(
        core, "default", ListOptions(field_selector=parse_field_selector("involvedObject.name=p1"))
    )
    assert [s.obj["metadata"]["name"] for s in by_core.items] == ["e1"]
    by_new = registry.list(
        new, "default", ListOptions(field_selector=parse_field_selector("regarding.name=p2"))
    )
    assert [s.obj["metadata"]["name"] for s in by_new.items] == ["e2"]


def test_a_watch_on_either_api_sees_writes_through_the_other(registry: GenericStore) -> None:
    core, new = _kinds(registry)
    since = str(registry.resource_version)
    core_watch = registry.watch(core, "default", WatchOptions(resource_version=since))
    new_watch = registry.watch(new, "default", WatchOptions(resource_version=since))
    registry.create(new, "default", _new_event("e1"), W)
    registry.create(core, "default", _core_event("e2"), W)
    registry.delete(core, "default", "e1", DeleteOptions())
    seen_core = [
        (t, o["metadata"]["name"], "involvedObject" in o) for t, o, _ in core_watch.drain()
    ]
    seen_new = [(t, o["metadata"]["name"], "regarding" in o) for t, o, _ in new_watch.drain()]
    expected = [("ADDED", "e1", True), ("ADDED", "e2", True), ("DELETED", "e1", True)]
    assert seen_core == expected and seen_new == expected


def test_update_through_one_api_is_a_conflict_for_a_stale_write_through_the_other(
    registry: GenericStore,
) -> None:
    core, new = _kinds(registry)
    created = registry.create(new, "default", _new_event("e1"), W).obj
    registry.update(
        core, "default", "e1", {**registry.get(core, "default", "e1").obj, "message": "changed"}, W
    )
    stale = {**created, "note": "stale"}
    with pytest.raises(Exception) as err:
        registry.update(new, "default", "e1", stale, W)
    assert getattr(err.value, "code", None) == 409
    assert registry.get(new, "default", "e1").obj["note"] == "changed"
