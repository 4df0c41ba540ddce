"""Event validation as upstream's: the legacy rules for every write, stricter ones through
events.k8s.io/v1 (required reporting fields, types, series, unset deprecated fields, immutable
fields on update)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType

W = WriteOptions(field_manager="tests")
Obj = dict[str, Any]


@pytest.fixture
def registry() -> GenericStore:
    return new_registry(clock=FakeClock())


def _kind(registry: GenericStore, group: str) -> ResourceType:
    found = registry.resources.lookup(group, "v1", "events")
    assert found is not None
    return found


def _new_event(**changes: Any) -> Obj:
    event: Obj = {
        "metadata": {"name": "e"},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingController": "example.com/driver",
        "reportingInstance": "driver-1",
        "action": "Prepare",
        "reason": "Prepared",
        "type": "Normal",
        "note": "devices prepared",
        "regarding": {"kind": "Pod", "name": "p1", "namespace": "default", "uid": "u1"},
    }
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
    registry: GenericStore, changes: Obj, detail: str
) -> None:
    kind = _kind(registry, "events.k8s.io")
    message = _refusal(lambda: registry.create(kind, "default", _new_event(**changes), W))
    assert detail in message


def test_an_event_may_be_about_an_object_of_another_namespace(registry: GenericStore) -> None:
    kind = _kind(registry, "events.k8s.io")
    about = {"kind": "Pod", "name": "p1", "namespace": "other", "uid": "u1"}
    assert registry.create(kind, "default", _new_event(regarding=about), W)


def test_core_events_with_an_event_time_name_their_reporting_component(
    registry: GenericStore,
) -> None:
    kind = _kind(registry, "")
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
    kind = _kind(registry, "")
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
    kind = _kind(registry, "events.k8s.io")
    stored = registry.create(kind, "default", _new_event(), W).obj
    series = {"count": 2, "lastObservedTime": "2026-01-01T00:01:00.000000Z"}
    counted = registry.update(kind, "default", "e", {**stored, "series": series}, W).obj
    assert counted["series"]["count"] == 2
    renamed = {**counted, "reportingController": "example.com/other"}
    message = _refusal(lambda: registry.update(kind, "default", "e", renamed, W))
    assert 'reportingController: Invalid value: "example.com/other": field is immutable' in (
        message
    )
