"""The informer keeps its cache equal to the server's state and tells handlers every change.

Writes go through an in-process client; the informer under test reads through the client the
test picks. The recovery tests force the two ways a watch can lose its place: a resourceVersion
that left the (deliberately tiny) history, answered 410 and repaired by a re-list, and a watcher
that fell behind and was closed, repaired by resuming from the last version seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fakeapi.client import (
    NAMESPACE_INDEX,
    Client,
    Informer,
    InformerFactory,
    Resource,
    namespace_index,
    object_key,
    strip_managed_fields,
)
from fakeapi.clock import FakeClock
from fakeapi.registry.store import GenericStore
from fakeapi.server.inprocess import InProcessTransport

GROUP = "example.fakeapi.dev"
WIDGETS = Resource(GROUP, "v1", "widgets", "Widget", namespaced=True)
Eventually = Callable[..., Any]


def widget(name: str, *, namespace: str = "default", labels: dict[str, str] | None = None,
           **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"metadata": meta, "spec": spec}


class Recorder:
    """Handler calls as (event, key, size) tuples."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []

    def attach(self, informer: Informer) -> None:
        informer.add_handler(on_add=self.add, on_update=self.update, on_delete=self.delete)

    @staticmethod
    def _describe(obj: dict[str, Any]) -> tuple[str, Any]:
        meta = obj["metadata"]
        return f"{meta['namespace']}/{meta['name']}", (obj.get("spec") or {}).get("size")

    def add(self, obj: dict[str, Any]) -> None:
        self.calls.append(("add", *self._describe(obj)))

    def update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        assert old["metadata"]["name"] == new["metadata"]["name"]
        self.calls.append(("update", *self._describe(new)))

    def delete(self, obj: dict[str, Any]) -> None:
        self.calls.append(("delete", *self._describe(obj)))


def sizes(informer: Informer) -> dict[str, Any]:
    return {object_key(obj): (obj.get("spec") or {}).get("size") for obj in informer.list()}


@pytest.fixture
def writer(registry: GenericStore) -> Client:
    return Client(InProcessTransport(registry), field_manager="writer")


async def test_cache_follows_adds_updates_and_deletes(
    client: Client, writer: Client, eventually: Eventually
) -> None:
    await writer.create(WIDGETS, body=widget("a", size=1))
    informer = Informer(client, WIDGETS, clock=FakeClock())
    recorder = Recorder()
    recorder.attach(informer)
    async with informer:
        await informer.wait_synced()
        assert informer.has_synced
        assert sizes(informer) == {"default/a": 1}

        await writer.create(WIDGETS, body=widget("b", size=2))
        await writer.patch(WIDGETS, namespace="default", name="a", patch={"spec": {"size": 5}})
        await writer.delete(WIDGETS, namespace="default", name="b")
        await writer.create(WIDGETS, body=widget("c", namespace="other", size=3))
        await eventually(lambda: "other/c" in informer)

    assert sizes(informer) == {"default/a": 5, "other/c": 3}
    assert recorder.calls == [
        ("add", "default/a", 1),
        ("add", "default/b", 2),
        ("update", "default/a", 5),
        ("delete", "default/b", 2),
        ("add", "other/c", 3),
    ]
    assert informer.list_count == 1
    cached = informer.get("default/a")
    assert cached is not None
    assert int(informer.last_resource_version) >= int(cached["metadata"]["resourceVersion"])


async def test_namespace_and_label_selector_limit_the_cache(
    client: Client, writer: Client, eventually: Eventually
) -> None:
    informer = Informer(client, WIDGETS, namespace="default", label_selector="app=web",
                        clock=FakeClock())
    recorder = Recorder()
    recorder.attach(informer)
    async with informer:
        await informer.wait_synced()
        await writer.create(WIDGETS, body=widget("x", namespace="other", labels={"app": "web"}))
        await writer.create(WIDGETS, body=widget("y", labels={"app": "db"}))
        await writer.create(WIDGETS, body=widget("z", labels={"app": "web"}))
        await eventually(lambda: "default/z" in informer)
        # a label change that leaves the selection is a delete for this informer
        await writer.patch(WIDGETS, namespace="default", name="z",
                           patch={"metadata": {"labels": {"app": "db"}}})
        await eventually(lambda: len(informer) == 0)
    assert [call[:2] for call in recorder.calls] == [("add", "default/z"), ("delete", "default/z")]


async def test_indexes_track_changes(writer: Client, eventually: Eventually) -> None:
    informer = Informer(writer, WIDGETS, clock=FakeClock())
    informer.add_index(NAMESPACE_INDEX, namespace_index)
    await writer.create(WIDGETS, body=widget("a", color="red"))
    async with informer:
        await informer.wait_synced()
        informer.add_index("color", lambda o: [o["spec"]["color"]] if o["spec"].get("color")
                           else [])
        assert [o["metadata"]["name"] for o in informer.by_index("color", "red")] == ["a"]
        await writer.create(WIDGETS, body=widget("b", namespace="other", color="red"))
        await writer.patch(WIDGETS, namespace="default", name="a",
                           patch={"spec": {"color": "blue"}})
        await eventually(lambda: informer.index_keys("color", "blue") == ["default/a"])
        assert informer.index_keys("color", "red") == ["other/b"]
        assert informer.index_keys(NAMESPACE_INDEX, "other") == ["other/b"]
        await writer.delete(WIDGETS, namespace="other", name="b")
        await eventually(lambda: "other/b" not in informer)
    assert informer.by_index("color", "red") == []
    assert informer.by_index(NAMESPACE_INDEX, "other") == []
    with pytest.raises(KeyError):
        informer.by_index("nope", "x")
    with pytest.raises(ValueError):
        informer.add_index("color", namespace_index)


async def test_a_late_handler_first_hears_the_cached_state(writer: Client) -> None:
    await writer.create(WIDGETS, body=widget("a", size=1))
    informer = Informer(writer, WIDGETS, clock=FakeClock())
    async with informer:
        await informer.wait_synced()
        recorder = Recorder()
        recorder.attach(informer)
    assert recorder.calls == [("add", "default/a", 1)]


async def test_a_failing_handler_does_not_stop_the_informer(
    writer: Client, eventually: Eventually
) -> None:
    informer = Informer(writer, WIDGETS, clock=FakeClock())

    def explode(_: dict[str, Any]) -> None:
        raise RuntimeError("boom")

    informer.add_handler(on_add=explode)
    async with informer:
        await informer.wait_synced()
        await writer.create(WIDGETS, body=widget("a"))
        await writer.create(WIDGETS, body=widget("b"))
        await eventually(lambda: len(informer) == 2)


async def test_relists_after_410_and_reports_what_changed_meanwhile(
    make_registry: Callable[..., GenericStore], eventually: Eventually
) -> None:
    registry = make_registry(history_size=3)
    writer = Client(InProcessTransport(registry))
    for name in ("keep", "change", "remove"):
        await writer.create(WIDGETS, body=widget(name, size=0))
    informer = Informer(writer, WIDGETS, clock=FakeClock())
    recorder = Recorder()
    recorder.attach(informer)
    async with informer:
        await informer.wait_synced()
    stopped_at = informer.last_resource_version

    # while the informer is stopped, more changes than the history keeps
    for size in range(1, 10):
        await writer.patch(WIDGETS, namespace="default", name="change",
                           patch={"spec": {"size": size}})
    await writer.delete(WIDGETS, namespace="default", name="remove")
    await writer.create(WIDGETS, body=widget("new", size=7))
    assert registry.storage.resource(f"widgets.{GROUP}").compacted_rv > int(stopped_at)

    recorder.calls.clear()
    async with informer:  # resumes from stopped_at, gets 410 Expired, re-lists
        await eventually(lambda: informer.list_count == 2)
        await writer.patch(WIDGETS, namespace="default", name="keep",
                           patch={"spec": {"size": 1}})
        await eventually(lambda: sizes(informer).get("default/keep") == 1)
    assert sizes(informer) == {"default/change": 9, "default/keep": 1, "default/new": 7}
    assert recorder.calls == [
        ("delete", "default/remove", 0),
        ("update", "default/change", 9),
        ("add", "default/new", 7),
        ("update", "default/keep", 1),
    ]


async def test_resumes_without_relisting_when_a_watch_stream_ends(
    make_registry: Callable[..., GenericStore], eventually: Eventually
) -> None:
    registry = make_registry(watch_queue=2)
    writer = Client(InProcessTransport(registry))
    informer = Informer(writer, WIDGETS, clock=FakeClock())
    recorder = Recorder()
    recorder.attach(informer)
    async with informer:
        await informer.wait_synced()
        served = registry.resources.lookup(GROUP, "v1", "widgets")
        assert served is not None
        from fakeapi.registry.options import WriteOptions

        for i in range(8):  # a burst with no await between writes overflows the watcher
            registry.create(served, "default", widget(f"w{i}", size=i), WriteOptions())
        await eventually(lambda: len(informer) == 8)
    assert informer.list_count == 1
    assert [call[1] for call in recorder.calls] == [f"default/w{i}" for i in range(8)]


async def test_a_watch_timeout_resumes_without_relisting(
    registry: GenericStore, eventually: Eventually
) -> None:
    watch_clock = FakeClock()
    reader = Client(InProcessTransport(registry, clock=watch_clock))
    writer = Client(InProcessTransport(registry))
    informer = Informer(reader, WIDGETS, clock=FakeClock(), watch_timeout_seconds=60)
    async with informer:
        await informer.wait_synced()
        await writer.create(WIDGETS, body=widget("a", size=1))
        await eventually(lambda: "default/a" in informer)
        for _ in range(3):  # each timeout ends the stream; the informer watches again
            await eventually(lambda: watch_clock.sleepers == 1)
            watch_clock.advance(60)
        await writer.create(WIDGETS, body=widget("b", size=2))
        await eventually(lambda: "default/b" in informer)
    assert informer.list_count == 1


class CountingTransport(InProcessTransport):
    lists = 0

    async def list(self, resource: Resource, **kwargs: Any) -> Any:
        self.lists += 1
        return await super().list(resource, **kwargs)


async def test_backs_off_on_the_clock_when_the_server_fails(
    registry: GenericStore, eventually: Eventually
) -> None:
    unserved = Resource(GROUP, "v9", "widgets", "Widget", namespaced=True)
    clock = FakeClock()
    transport = CountingTransport(registry)
    informer = Informer(Client(transport), unserved, clock=clock)
    async with informer:
        for attempt, backoff in ((1, 0.8), (2, 1.6), (3, 3.2)):
            await eventually(lambda: clock.sleepers == 1)
            assert transport.lists == attempt
            clock.advance(backoff - 0.01)
            await eventually(lambda: clock.sleepers == 1)
            assert transport.lists == attempt
            clock.advance(0.02)  # past the deadline despite float rounding
            await eventually(lambda a=attempt: transport.lists == a + 1)
        assert not informer.has_synced
    assert not informer.running


async def test_a_transform_shapes_what_is_cached_from_lists_watches_and_own_writes(
    client: Client, writer: Client, eventually: Eventually
) -> None:
    await writer.create(WIDGETS, body=widget("listed", size=1))
    factory = InformerFactory(writer, clock=FakeClock(), transform=strip_managed_fields)
    informer = factory.informer(WIDGETS)
    added: list[dict[str, Any]] = []
    informer.add_handler(on_add=added.append)
    factory.start()
    await factory.wait_for_sync(timeout=5)
    await client.create(WIDGETS, body=widget("watched", size=2))  # reaches it by the watch
    reply = await writer.create(WIDGETS, body=widget("own", size=3))  # observed at once
    await eventually(lambda: len(informer) == 3)
    try:
        assert reply["metadata"]["managedFields"], "the writer's reply keeps its managedFields"
        for obj in [*informer.list(), *added]:
            assert "managedFields" not in obj["metadata"], obj["metadata"]["name"]
            assert obj["metadata"]["resourceVersion"]
        assert sorted(o["metadata"]["name"] for o in added) == ["listed", "own", "watched"]
    finally:
        await factory.stop()



async def test_a_watched_object_cached_without_managed_fields_is_the_stored_one_less_them(
    client: Client, writer: Client, eventually: Eventually
) -> None:
    factory = InformerFactory(writer, clock=FakeClock(), transform=strip_managed_fields)
    informer = factory.informer(WIDGETS)
    factory.start()
    await factory.wait_for_sync(timeout=5)
    body = widget("watched", size=2, ratio=0.5, big=2**62, flags=[True, None], nested={"a": {}})
    await client.create(WIDGETS, body=body)  # another client's write: reaches it by the watch
    await eventually(lambda: len(informer) == 1)
    try:
        cached = informer.get("default/watched")
        stored = await client.get(WIDGETS, name="watched", namespace="default")
        assert stored["metadata"]["managedFields"]
        assert cached is not None
        assert list(cached["metadata"]) == [k for k in stored["metadata"] if k != "managedFields"]
        assert cached == strip_managed_fields(stored)
        cached["spec"]["size"] = 99  # a careless reader's change stays in its copy
        assert (await client.get(WIDGETS, name="watched", namespace="default")) == stored
    finally:
        await factory.stop()
