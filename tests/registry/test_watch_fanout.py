"""Watch fan-out with many selective watchers: each sees exactly what its selector picks.

Watchers whose field selector pins a field to a value are filed under that value by the storage,
and field values are computed once per write for all watchers; these tests pin that the narrowing
changes nothing a watcher observes: transitions between values, deletions, label selectors on top,
``!=`` terms and closed watchers.
"""

from __future__ import annotations

from typing import Any

from fakeapi.clock import FakeClock
from fakeapi.registry.options import DeleteOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceTable
from fakeapi.selectors import parse_field_selector, parse_label_selector
from fakeapi.storage.memory import MemoryStorage
from fakeapi.storage.watch import Watcher

from ..support.testkinds import WIDGETS

W = WriteOptions()
COLORS = ("red", "green", "blue")


def widget(name: str, color: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "example.fakeapi.dev/v1",
        "kind": "Widget",
        "metadata": {"name": name, "labels": labels},
        "spec": {"color": color},
    }


def new_registry() -> GenericStore:
    return GenericStore(
        resources=ResourceTable([WIDGETS]), storage=MemoryStorage(), clock=FakeClock()
    )


def watch(registry: GenericStore, fields: str, labels: str = "") -> Watcher:
    return registry.watch(
        WIDGETS,
        "ns",
        WatchOptions(
            resource_version=str(registry.resource_version),
            field_selector=parse_field_selector(fields),
            label_selector=parse_label_selector(labels) if labels else None,
        ),
    )


def seen(watcher: Watcher) -> list[tuple[str, str, str]]:
    return [(etype, obj["metadata"]["name"], obj["spec"]["color"])
            for etype, obj, _ in watcher.drain()]


def test_each_value_watcher_sees_only_its_value_and_the_moves_in_and_out() -> None:
    registry = new_registry()
    watchers = {color: [watch(registry, f"spec.color={color}") for _ in range(3)]
                for color in COLORS}
    registry.create(WIDGETS, "ns", widget("a", "red"), W)
    registry.create(WIDGETS, "ns", widget("b", "blue"), W)
    registry.update(WIDGETS, "ns", "a", widget("a", "green"), W)
    registry.delete(WIDGETS, "ns", "b", DeleteOptions())
    expected = {
        "red": [("ADDED", "a", "red"), ("DELETED", "a", "red")],
        "green": [("ADDED", "a", "green")],
        "blue": [("ADDED", "b", "blue"), ("DELETED", "b", "blue")],
    }
    for color, group in watchers.items():
        for watcher in group:
            assert seen(watcher) == expected[color]


def test_label_selector_still_filters_a_value_watcher() -> None:
    registry = new_registry()
    watcher = watch(registry, "spec.color=red", "tier=web")
    registry.create(WIDGETS, "ns", widget("plain", "red"), W)
    registry.create(WIDGETS, "ns", widget("web", "red", tier="web"), W)
    registry.create(WIDGETS, "ns", widget("blue-web", "blue", tier="web"), W)
    assert seen(watcher) == [("ADDED", "web", "red")]


def test_not_equal_and_value_watchers_side_by_side() -> None:
    registry = new_registry()
    not_red = watch(registry, "spec.color!=red")
    red_named_a = watch(registry, "metadata.name=a,spec.color=red")
    registry.create(WIDGETS, "ns", widget("a", "red"), W)
    registry.create(WIDGETS, "ns", widget("b", "red"), W)
    registry.update(WIDGETS, "ns", "b", widget("b", "green"), W)
    assert seen(not_red) == [("ADDED", "b", "green")]
    assert seen(red_named_a) == [("ADDED", "a", "red")]


def test_closed_value_watcher_gets_nothing_and_the_others_carry_on() -> None:
    registry = new_registry()
    closed, open_ = watch(registry, "spec.color=red"), watch(registry, "spec.color=red")
    closed.close()
    registry.create(WIDGETS, "ns", widget("a", "red"), W)
    assert closed.drain() == []
    assert seen(open_) == [("ADDED", "a", "red")]
    open_.close()
    later = watch(registry, "spec.color=red")
    registry.update(WIDGETS, "ns", "a", widget("a", "red", v="2"), W)
    assert [e[0] for e in later.drain()] == ["MODIFIED"]


def test_value_watchers_of_another_namespace_see_nothing() -> None:
    registry = new_registry()
    elsewhere = registry.watch(WIDGETS, "other", WatchOptions(
        resource_version=str(registry.resource_version),
        field_selector=parse_field_selector("spec.color=red"),
    ))
    registry.create(WIDGETS, "ns", widget("a", "red"), W)
    assert elsewhere.drain() == []
