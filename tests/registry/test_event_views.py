"""core/v1 and events.k8s.io/v1 Events are one set of objects served in two shapes, validated as
upstream's.

An event recorded through either API is listed, fetched, watched and field-selected through the
other, with its fields renamed as upstream converts them (regarding ↔ involvedObject, note ↔
message, reportingController ↔ reportingComponent, deprecated* ↔ the core names).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
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


# --- validation, as upstream's: legacy rules for every write, stricter ones through events.k8s.io

def _changed(event: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``event`` with fields replaced, or removed where the new value is None."""
    for key, value in changes.items():
        if value is None:
            event.pop(key, None)
        else:
            event[key] = value
    return event


def _refusal(write: Callable[[], Any]) -> str:
    with pytest.raises(StatusError) as refused:
        write()
    assert refused.value.code == 422
    return refused.value.message


@pytest.mark.parametrize(
    ("changes", "detail"),
    [
        ({"reportingController": None}, "reportingController: Required value"),
        ({"reportingInstance": None}, "reportingInstance: Required value"),
        ({"action": None}, "action: Required value"),
        ({"reason": None}, "reason: Required value"),
        ({"type": "Weird"}, 'type: Invalid value: "": has invalid value: Weird'),
        ({"reportingController": "not a name!"},
         'reportingController: Invalid value: "not a name!"'),
        ({"reason": "r" * 129}, 'reason: Invalid value: "": can have at most 128 characters'),
        ({"note": "n" * 1025}, 'note: Invalid value: "": can have at most 1024 characters'),
        ({"deprecatedCount": 3}, 'deprecatedCount: Invalid value: "": needs to be unset'),
        ({"deprecatedSource": {"component": "x"}},
         'deprecatedSource: Invalid value: "": needs to be unset'),
        ({"series": {"count": 1, "lastObservedTime": "2026-01-01T00:00:00.000000Z"}},
         'series.count: Invalid value: "": should be at least 2'),
    ],
)
def test_events_k8s_io_refuses_an_incomplete_event(
    registry: GenericStore, changes: dict[str, Any], detail: str
) -> None:
    kind = _kinds(registry)[1]
    event = _changed(_new_event("e"), **changes)
    message = _refusal(lambda: registry.create(kind, "default", event, W))
    assert detail in message


def test_an_event_may_be_about_an_object_of_another_namespace(registry: GenericStore) -> None:
    kind = _kinds(registry)[1]
    about = {"kind": "Pod", "name": "p1", "namespace": "other", "uid": "u1"}
    assert registry.create(kind, "default", _changed(_new_event("e"), regarding=about), W)


def test_core_events_with_an_event_time_name_their_reporting_component(
    registry: GenericStore,
) -> None:
    kind = _kinds(registry)[0]
    event = {
        "metadata": {"name": "c"},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Started",
        "type": "Normal",
    }
    message = _refusal(lambda: registry.create(kind, "default", event, W))
    assert "reportingComponent: Required value" in message
    assert "reportingInstance: Required value" in message
    assert "action: Required value" in message


def test_an_old_style_event_lives_in_its_objects_namespace(registry: GenericStore) -> None:
    kind = _kinds(registry)[0]
    event = {
        "metadata": {"name": "c"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "other"},
        "reason": "Started",
        "type": "Normal",
        "count": 1,
    }
    message = _refusal(lambda: registry.create(kind, "default", event, W))
    assert 'involvedObject.namespace: Invalid value: "other": does not match event.namespace' in (
        message
    )


def test_through_events_k8s_io_only_the_series_of_an_event_may_change(
    registry: GenericStore,
) -> None:
    kind = _kinds(registry)[1]
    stored = registry.create(kind, "default", _new_event("e"), W).obj
    series = {"count": 2, "lastObservedTime": "2026-01-01T00:01:00.000000Z"}
    counted = registry.update(kind, "default", "e", {**stored, "series": series}, W).obj
    assert counted["series"]["count"] == 2
    renamed = {**counted, "reportingController": "example.com/other"}
    message = _refusal(lambda: registry.update(kind, "default", "e", renamed, W))
    assert 'reportingController: Invalid value: "example.com/other": field is immutable' in (
        message
    )
