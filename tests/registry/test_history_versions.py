"""Superseded versions keep only their bytes in the history, and still read back exactly.

Once an object changes, the storage releases the decoded form of its previous version; a watch
that resumes from an old resourceVersion or a list of an older state decodes it again. These
tests pin that what they see is each version's own content, not the current one.
"""

from __future__ import annotations

from typing import Any

from fakeapi.clock import FakeClock
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceTable
from fakeapi.selectors import parse_field_selector
from fakeapi.storage.memory import MemoryStorage

from ..support.testkinds import WIDGETS

W = WriteOptions()


def widget(name: str, size: int, color: str = "red") -> dict[str, Any]:
    return {
        "apiVersion": "example.fakeapi.dev/v1",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": {"size": size, "color": color},
    }


def new_registry() -> GenericStore:
    return GenericStore(
        resources=ResourceTable([WIDGETS]), storage=MemoryStorage(), clock=FakeClock()
    )


def test_a_resumed_watch_replays_every_version_with_its_own_content() -> None:
    registry = new_registry()
    start = str(registry.resource_version)
    for size in (1, 2, 3):
        if size == 1:
            registry.create(WIDGETS, "ns", widget("a", size), W)
        else:
            registry.update(WIDGETS, "ns", "a", widget("a", size), W)
    registry.delete(WIDGETS, "ns", "a", DeleteOptions())
    events = registry.watch(WIDGETS, "ns", WatchOptions(resource_version=start)).drain()
    assert [(etype, obj["spec"]["size"]) for etype, obj, _ in events] == [
        ("ADDED", 1), ("MODIFIED", 2), ("MODIFIED", 3), ("DELETED", 3)
    ]
    for _, obj, raw in events:
        assert raw.count(f'"resourceVersion":"{obj["metadata"]["resourceVersion"]}"'.encode())


def test_a_resumed_selective_watch_sees_the_old_state_leave_its_selection() -> None:
    registry = new_registry()
    registry.create(WIDGETS, "ns", widget("a", 1, color="red"), W)
    start = str(registry.resource_version)
    registry.update(WIDGETS, "ns", "a", widget("a", 2, color="blue"), W)
    events = registry.watch(WIDGETS, "ns", WatchOptions(
        resource_version=start, field_selector=parse_field_selector("spec.color=red"),
    )).drain()
    # the object left the selection: DELETED with its last matching state, re-versioned
    assert [(etype, obj["spec"]) for etype, obj, _ in events] == [
        ("DELETED", {"size": 1, "color": "red"})
    ]


def test_a_list_at_an_older_version_shows_the_older_content() -> None:
    registry = new_registry()
    registry.create(WIDGETS, "ns", widget("a", 1), W)
    registry.create(WIDGETS, "ns", widget("b", 1), W)
    then = str(registry.resource_version)
    registry.update(WIDGETS, "ns", "a", widget("a", 2), W)
    registry.delete(WIDGETS, "ns", "b", DeleteOptions())
    listed = registry.list(WIDGETS, "ns", ListOptions(
        resource_version=then, resource_version_match="Exact",
    ))
    assert [(s.obj["metadata"]["name"], s.obj["spec"]["size"]) for s in listed.items] == [
        ("a", 1), ("b", 1)
    ]
    assert registry.get(WIDGETS, "ns", "a").obj["spec"]["size"] == 2
