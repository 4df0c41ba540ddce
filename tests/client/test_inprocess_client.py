"""The client's behaviour, pinned once and run through both transports.

Tests taking ``client`` run in-process and over HTTP against the same kind of registry: they are
the "identical semantics" contract (the same objects, the same StatusErrors with the same text).
Tests taking ``inprocess_client`` pin what only the in-process transport does (copies at the
boundary, clock-driven watch timeouts, a watcher that falls behind).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import orjson
import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    RESOURCE_CLAIMS,
    Client,
    HttpTransport,
    Preconditions,
    Resource,
    StatusError,
    WatchEvent,
)
from fakeapi.clock import FakeClock
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.server.runner import ApiServer

GROUP = "example.fakeapi.dev"
WIDGETS = Resource(GROUP, "v1", "widgets", "Widget", namespaced=True)
GADGETS = Resource(GROUP, "v1", "gadgets", "Gadget", namespaced=False)
CONFLICT = (
    'Operation cannot be fulfilled on widgets.example.fakeapi.dev "w": the object has been '
    "modified; please apply your changes to the latest version and try again"
)


def widget(name: str, *, namespace: str = "default", labels: dict[str, str] | None = None,
           **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": meta, "spec": spec}


async def next_events(stream: Any, count: int) -> list[WatchEvent]:
    async def take() -> list[WatchEvent]:
        return [await stream.__anext__() for _ in range(count)]

    return await asyncio.wait_for(take(), 5)


# --- CRUD ------------------------------------------------------------------------------------


async def test_create_get_update_delete_round_trip(client: Client) -> None:
    created = await client.create(WIDGETS, body=widget("w", size=1))
    meta = created["metadata"]
    assert meta["namespace"] == "default"
    assert meta["uid"] and meta["resourceVersion"] and meta["creationTimestamp"]
    assert meta["generation"] == 1

    fetched = await client.get(WIDGETS, namespace="default", name="w")
    assert fetched == created

    fetched["spec"]["size"] = 2
    updated = await client.update(WIDGETS, body=fetched)
    assert updated["spec"]["size"] == 2
    assert updated["metadata"]["generation"] == 2
    assert int(updated["metadata"]["resourceVersion"]) > int(meta["resourceVersion"])

    assert await client.delete(WIDGETS, namespace="default", name="w") is None
    with pytest.raises(StatusError) as caught:
        await client.get(WIDGETS, namespace="default", name="w")
    assert caught.value.code == 404
    assert caught.value.reason == "NotFound"
    assert caught.value.message == 'widgets.example.fakeapi.dev "w" not found'


async def test_the_callers_body_is_never_modified(client: Client) -> None:
    body = widget("w", size=1)
    before = orjson.dumps(body)
    await client.create(WIDGETS, body=body)
    assert orjson.dumps(body) == before


async def test_namespace_comes_from_the_argument_or_the_body(client: Client) -> None:
    in_body = await client.create(WIDGETS, body=widget("a", namespace="team"))
    assert in_body["metadata"]["namespace"] == "team"
    body = widget("b")
    del body["metadata"]["namespace"]
    by_argument = await client.create(WIDGETS, body=body, namespace="team")
    assert by_argument["metadata"]["namespace"] == "team"
    with pytest.raises(ValueError, match="namespaced"):
        await client.create(WIDGETS, body=body)
    with pytest.raises(ValueError, match="namespaced"):
        await client.get(WIDGETS, name="b")


async def test_mismatched_namespaces_are_refused_by_the_server(client: Client) -> None:
    with pytest.raises(StatusError) as caught:
        await client.create(WIDGETS, body=widget("w", namespace="a"), namespace="b")
    assert caught.value.code == 400
    assert "does not match the namespace sent on the request" in caught.value.message


async def test_cluster_scoped_kinds_ignore_the_namespace(client: Client) -> None:
    body = {"metadata": {"name": "g"}, "spec": {"note": "hi"}}
    created = await client.create(GADGETS, body=body, namespace="ignored")
    assert "namespace" not in created["metadata"]
    assert (await client.get(GADGETS, name="g"))["spec"] == {"note": "hi"}
    listed = await client.list(GADGETS, namespace="ignored")
    assert [o["metadata"]["name"] for o in listed.items] == ["g"]


async def test_dry_run_create_stores_nothing(client: Client) -> None:
    created = await client.create(WIDGETS, body=widget("w"), dry_run=True)
    assert created["metadata"]["name"] == "w"
    assert (await client.list(WIDGETS)).items == []


# --- errors ----------------------------------------------------------------------------------


async def test_a_stale_update_is_a_409_conflict(client: Client) -> None:
    first = await client.create(WIDGETS, body=widget("w", size=1))
    await client.patch(WIDGETS, namespace="default", name="w", patch={"spec": {"size": 2}})
    first["spec"]["size"] = 3
    with pytest.raises(StatusError) as caught:
        await client.update(WIDGETS, body=first)
    error = caught.value
    assert (error.code, error.reason, error.message) == (409, "Conflict", CONFLICT)
    assert error.details == {"name": "w", "group": GROUP, "kind": "widgets"}


async def test_creating_twice_is_a_409_already_exists(client: Client) -> None:
    await client.create(WIDGETS, body=widget("w"))
    with pytest.raises(StatusError) as caught:
        await client.create(WIDGETS, body=widget("w"))
    assert (caught.value.code, caught.value.reason) == (409, "AlreadyExists")
    assert caught.value.message == 'widgets.example.fakeapi.dev "w" already exists'


async def test_validation_errors_are_422_with_field_causes(client: Client) -> None:
    with pytest.raises(StatusError) as caught:
        await client.create(WIDGETS, body=widget("w", size=-1))
    error = caught.value
    assert (error.code, error.reason) == (422, "Invalid")
    assert error.message == (
        'Widget.example.fakeapi.dev "w" is invalid: spec.size: Invalid value: -1: '
        "must be greater than or equal to 0"
    )
    assert error.details is not None
    assert error.details["causes"] == [
        {"reason": "FieldValueInvalid", "message": "Invalid value: -1: must be greater than or "
         "equal to 0", "field": "spec.size"}
    ]


async def test_unknown_fields_warn_by_default_and_fail_when_strict(client: Client) -> None:
    warnings: list[str] = []
    warned = Client(client.transport, field_manager="t", on_warning=warnings.append)
    body = widget("w")
    body["spec"]["bogus"] = 1
    created = await warned.create(WIDGETS, body=body)
    assert "bogus" not in created["spec"]
    assert warnings == ['unknown field "spec.bogus"']
    with pytest.raises(StatusError) as caught:
        await warned.create(WIDGETS, body={**body, "metadata": {"name": "x"}}, namespace="default",
                            field_validation="Strict")
    assert caught.value.code == 400
    assert 'strict decoding error: unknown field "spec.bogus"' in caught.value.message


async def test_a_bad_selector_is_a_400(client: Client) -> None:
    with pytest.raises(StatusError) as caught:
        await client.list(WIDGETS, field_selector="spec.size=1")
    assert (caught.value.code, caught.value.message) == (
        400, "field label not supported for example.fakeapi.dev/v1, Kind=Widget: spec.size"
    )


# --- status, patch, subresources -----------------------------------------------------------


async def test_update_keeps_status_and_update_status_keeps_spec(client: Client) -> None:
    created = await client.create(WIDGETS, body=widget("w", size=1))
    created["status"] = {"phase": "Ready"}
    with_status = await client.update_status(WIDGETS, body=created)
    assert with_status["status"] == {"phase": "Ready"}
    assert with_status["metadata"]["generation"] == 1

    with_status["status"] = {"phase": "Ignored"}
    with_status["spec"]["size"] = 5
    updated = await client.update(WIDGETS, body=with_status)
    assert updated["status"] == {"phase": "Ready"}
    assert updated["spec"]["size"] == 5

    updated["spec"]["size"] = 9
    updated["status"] = {"phase": "Done"}
    status_only = await client.update_status(WIDGETS, body=updated)
    assert status_only["spec"]["size"] == 5
    assert status_only["status"] == {"phase": "Done"}


async def test_merge_and_json_patches(client: Client) -> None:
    await client.create(WIDGETS, body=widget("w", size=1, color="red"))
    merged = await client.patch(
        WIDGETS, namespace="default", name="w", patch={"spec": {"color": None, "size": 4}}
    )
    assert merged["spec"] == {"size": 4}
    patched = await client.patch(
        WIDGETS, namespace="default", name="w", patch_type="json",
        patch=[{"op": "add", "path": "/spec/color", "value": "blue"}],
    )
    assert patched["spec"] == {"size": 4, "color": "blue"}
    status = await client.patch(
        WIDGETS, namespace="default", name="w", subresource="status",
        patch={"status": {"phase": "Ready"}, "spec": {"size": 100}},
    )
    assert status["status"] == {"phase": "Ready"}
    assert status["spec"]["size"] == 4


async def test_strategic_merge_unions_set_lists_where_merge_patch_replaces(
    client: Client,
) -> None:
    body = widget("w")
    body["metadata"]["finalizers"] = ["example.com/a"]
    await client.create(WIDGETS, body=body)
    strategic = await client.patch(
        WIDGETS, namespace="default", name="w", patch_type="strategic",
        patch={"metadata": {"finalizers": ["example.com/b"]}},
    )
    assert sorted(strategic["metadata"]["finalizers"]) == ["example.com/a", "example.com/b"]
    merged = await client.patch(
        WIDGETS, namespace="default", name="w",
        patch={"metadata": {"finalizers": ["example.com/c"]}},
    )
    assert merged["metadata"]["finalizers"] == ["example.com/c"]


async def test_writes_are_recorded_under_the_clients_field_manager(client: Client) -> None:
    created = await client.create(WIDGETS, body=widget("w", size=1))
    managers = [(e["manager"], e["operation"]) for e in created["metadata"]["managedFields"]]
    assert managers == [("test-client", "Update")]
    patched = await client.patch(
        WIDGETS, namespace="default", name="w", patch={"spec": {"color": "red"}},
        field_manager="painter",
    )
    assert {e["manager"] for e in patched["metadata"]["managedFields"]} == {
        "test-client", "painter"
    }


async def test_server_side_apply_conflicts_unless_forced(client: Client) -> None:
    pytest.importorskip("fakeapi.server.applying")
    applied = await client.apply(WIDGETS, body=widget("w", size=1))
    assert applied["spec"] == {"size": 1}
    assert [(e["manager"], e["operation"]) for e in applied["metadata"]["managedFields"]] == [
        ("test-client", "Apply")
    ]
    with pytest.raises(StatusError) as caught:
        await client.apply(WIDGETS, body=widget("w", size=2), field_manager="other")
    assert caught.value.code == 409
    forced = await client.apply(WIDGETS, body=widget("w", size=2), field_manager="other",
                                force=True)
    assert forced["spec"] == {"size": 2}


async def test_a_patch_carrying_a_stale_resource_version_conflicts(client: Client) -> None:
    created = await client.create(WIDGETS, body=widget("w", size=1))
    stale = created["metadata"]["resourceVersion"]
    await client.patch(WIDGETS, namespace="default", name="w", patch={"spec": {"size": 2}})
    with pytest.raises(StatusError) as caught:
        await client.patch(
            WIDGETS, namespace="default", name="w",
            patch={"metadata": {"resourceVersion": stale}, "spec": {"size": 3}},
        )
    assert (caught.value.code, caught.value.message) == (409, CONFLICT)


async def test_patching_a_missing_object_is_404(client: Client) -> None:
    with pytest.raises(StatusError) as caught:
        await client.patch(WIDGETS, namespace="default", name="nope", patch={"spec": {}})
    assert caught.value.code == 404


async def test_post_to_a_custom_subresource(client: Client) -> None:
    await client.create(WIDGETS, body=widget("w", color="red"))
    answer = await client.create_subresource(
        WIDGETS, namespace="default", name="w", subresource="paint", body={"color": "green"}
    )
    assert answer["kind"] == "Status" and answer["status"] == "Success"
    assert (await client.get(WIDGETS, namespace="default", name="w"))["spec"]["color"] == "green"
    with pytest.raises(StatusError) as caught:
        await client.create_subresource(
            WIDGETS, namespace="default", name="w", subresource="polish", body={}
        )
    assert caught.value.code == 404


# --- delete ------------------------------------------------------------------------------------


async def test_delete_with_finalizers_returns_the_pending_object(client: Client) -> None:
    body = widget("w")
    body["metadata"]["finalizers"] = ["example.com/hold"]
    await client.create(WIDGETS, body=body)
    pending = await client.delete(WIDGETS, namespace="default", name="w")
    assert pending is not None
    assert pending["metadata"]["deletionTimestamp"]
    await client.patch(
        WIDGETS, namespace="default", name="w", patch={"metadata": {"finalizers": None}}
    )
    with pytest.raises(StatusError) as caught:
        await client.get(WIDGETS, namespace="default", name="w")
    assert caught.value.code == 404


async def test_delete_preconditions(client: Client) -> None:
    created = await client.create(WIDGETS, body=widget("w"))
    with pytest.raises(StatusError) as caught:
        await client.delete(
            WIDGETS, namespace="default", name="w",
            preconditions=Preconditions(uid="not-the-uid"),
        )
    assert caught.value.code == 409
    assert "the UID in the precondition (not-the-uid) does not match" in caught.value.message
    await client.delete(
        WIDGETS, namespace="default", name="w",
        preconditions=Preconditions(
            uid=created["metadata"]["uid"],
            resource_version=created["metadata"]["resourceVersion"],
        ),
    )
    assert (await client.list(WIDGETS)).items == []


async def test_delete_collection_by_label(client: Client) -> None:
    await client.create(WIDGETS, body=widget("a", labels={"app": "x"}))
    await client.create(WIDGETS, body=widget("b", labels={"app": "y"}))
    deleted = await client.delete_collection(WIDGETS, namespace="default",
                                             label_selector="app=x")
    assert [o["metadata"]["name"] for o in deleted] == ["a"]
    remaining = await client.list(WIDGETS)
    assert [o["metadata"]["name"] for o in remaining.items] == ["b"]


# --- list --------------------------------------------------------------------------------------


async def test_list_filters_by_namespace_and_selectors(client: Client) -> None:
    await client.create(WIDGETS, body=widget("a", labels={"app": "x"}, color="red"))
    await client.create(WIDGETS, body=widget("b", labels={"app": "y"}, color="blue"))
    await client.create(WIDGETS, body=widget("c", namespace="other", labels={"app": "x"}))

    def names(listed: Any) -> list[str]:
        return [o["metadata"]["name"] for o in listed.items]

    assert names(await client.list(WIDGETS)) == ["a", "b", "c"]
    assert names(await client.list(WIDGETS, namespace="default")) == ["a", "b"]
    assert names(await client.list(WIDGETS, label_selector="app=x")) == ["a", "c"]
    assert names(await client.list(WIDGETS, field_selector="spec.color=blue")) == ["b"]
    listed = await client.list(WIDGETS)
    assert all(o["kind"] == "Widget" and o["apiVersion"] == f"{GROUP}/v1" for o in listed.items)


async def test_paging_is_a_consistent_snapshot(client: Client) -> None:
    for i in range(5):
        await client.create(WIDGETS, body=widget(f"w{i}"))
    first = await client.list(WIDGETS, limit=2)
    assert len(first.items) == 2 and first.continue_token
    assert first.remaining_item_count == 3
    await client.create(WIDGETS, body=widget("w9"))  # after the snapshot: not in later pages
    everything = [o["metadata"]["name"] for o in first.items]
    token = first.continue_token
    while token:
        page = await client.list(WIDGETS, limit=2, continue_token=token)
        assert page.resource_version == first.resource_version
        everything += [o["metadata"]["name"] for o in page.items]
        token = page.continue_token
    assert everything == ["w0", "w1", "w2", "w3", "w4"]

    all_at_once = await client.list_all(WIDGETS, page_size=2)
    assert [o["metadata"]["name"] for o in all_at_once.items] == [
        "w0", "w1", "w2", "w3", "w4", "w9"
    ]
    assert all_at_once.continue_token == ""


# --- watch -------------------------------------------------------------------------------------


async def test_watch_from_a_list_delivers_every_later_change_in_order(client: Client) -> None:
    await client.create(WIDGETS, body=widget("before"))
    listed = await client.list(WIDGETS)
    async with client.watch(WIDGETS, namespace="default",
                            resource_version=listed.resource_version) as stream:
        created = await client.create(WIDGETS, body=widget("w", size=1))
        await client.patch(WIDGETS, namespace="default", name="w", patch={"spec": {"size": 2}})
        await client.create(WIDGETS, body=widget("elsewhere", namespace="other"))
        await client.delete(WIDGETS, namespace="default", name="w")
        events = await next_events(stream, 3)
    assert [(e.type, e.object["metadata"]["name"]) for e in events] == [
        ("ADDED", "w"), ("MODIFIED", "w"), ("DELETED", "w")
    ]
    assert events[0].object == created
    assert events[1].object["spec"]["size"] == 2
    versions = [int(e.resource_version) for e in events]
    assert versions == sorted(versions) and len(set(versions)) == 3


async def test_watch_without_a_version_starts_with_the_current_state(client: Client) -> None:
    await client.create(WIDGETS, body=widget("a"))
    await client.create(WIDGETS, body=widget("b"))
    async with client.watch(WIDGETS) as stream:
        events = await next_events(stream, 2)
    assert [(e.type, e.object["metadata"]["name"]) for e in events] == [
        ("ADDED", "a"), ("ADDED", "b")
    ]


async def test_watch_list_ends_its_initial_state_with_a_bookmark(client: Client) -> None:
    await client.create(WIDGETS, body=widget("a"))
    async with client.watch(WIDGETS, send_initial_events=True, allow_bookmarks=True) as stream:
        added, bookmark = await next_events(stream, 2)
    assert added.type == "ADDED"
    assert bookmark.type == "BOOKMARK"
    assert bookmark.object["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


async def test_watch_selectors_turn_transitions_into_adds_and_deletes(client: Client) -> None:
    await client.create(WIDGETS, body=widget("w", color="red"))
    listed = await client.list(WIDGETS)
    async with client.watch(WIDGETS, field_selector="spec.color=blue",
                            resource_version=listed.resource_version) as stream:
        for step, color in enumerate(("blue", "blue", "red")):
            body = {"spec": {"color": color}, "metadata": {"labels": {"step": str(step)}}}
            await client.patch(WIDGETS, namespace="default", name="w", patch=body)
        events = await next_events(stream, 3)
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]


async def test_watch_from_a_compacted_version_raises_410(
    make_registry: Any,
) -> None:
    registry: GenericStore = make_registry(history_size=2)
    inprocess = Client(InProcessTransport(registry))
    first = await inprocess.create(WIDGETS, body=widget("w", size=0))
    for size in range(1, 8):
        await inprocess.patch(WIDGETS, namespace="default", name="w",
                              patch={"spec": {"size": size}})
    async with ApiServer(registry=registry) as server, Client(HttpTransport(server.url)) as remote:
        for client in (inprocess, remote):
            with pytest.raises(StatusError) as caught:
                async with client.watch(
                    WIDGETS, resource_version=first["metadata"]["resourceVersion"]
                ) as stream:
                    await next_events(stream, 1)
            assert (caught.value.code, caught.value.reason) == (410, "Expired")
            assert caught.value.message.startswith("too old resource version")


# --- in-process only ---------------------------------------------------------------------------


async def test_results_are_private_copies(inprocess_client: Client, registry: GenericStore) -> None:
    created = await inprocess_client.create(WIDGETS, body=widget("w", size=1))
    created["spec"]["size"] = 99
    fetched = await inprocess_client.get(WIDGETS, namespace="default", name="w")
    assert fetched["spec"]["size"] == 1
    fetched["spec"]["size"] = 98
    listed = await inprocess_client.list(WIDGETS)
    assert listed.items[0]["spec"]["size"] == 1


async def test_free_form_parts_of_a_body_are_not_shared_with_the_stored_object() -> None:
    """Opaque driver parameters are free-form JSON the registry does not walk: changing them in
    the caller's body after a create or an update must not reach the stored claim."""
    client = Client(InProcessTransport(new_registry(clock=FakeClock())), field_manager="test")
    parameters = {"profile": {"mode": "shared"}, "sizes": [1, 2]}
    body = {
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}],
                "config": [{"opaque": {"driver": "gpu.example.com", "parameters": parameters}}],
            }
        },
    }
    before = orjson.dumps(body)
    created = await client.create(RESOURCE_CLAIMS, body=body)
    assert orjson.dumps(body) == before
    parameters["profile"]["mode"] = "changed by the caller"
    parameters["sizes"].append(3)
    stored = await client.get(RESOURCE_CLAIMS, namespace="default", name="c")
    assert stored["spec"] == created["spec"]
    assert stored["spec"]["devices"]["config"][0]["opaque"]["parameters"] == {
        "profile": {"mode": "shared"},
        "sizes": [1, 2],
    }

    stored["metadata"]["labels"] = {"updated": "yes"}
    await client.update(RESOURCE_CLAIMS, body=stored)
    stored["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sizes"].clear()
    again = await client.get(RESOURCE_CLAIMS, namespace="default", name="c")
    assert again["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sizes"] == [1, 2]


async def test_an_unserved_resource_is_404(inprocess_client: Client) -> None:
    unserved = Resource("example.fakeapi.dev", "v9", "widgets", "Widget", namespaced=True)
    with pytest.raises(StatusError) as caught:
        await inprocess_client.list(unserved)
    assert (caught.value.code, caught.value.message) == (
        404, "the server could not find the requested resource"
    )


async def test_watch_timeout_follows_the_injected_clock(registry: GenericStore) -> None:
    clock = FakeClock()
    client = Client(InProcessTransport(registry, clock=clock))
    received: list[str] = []

    async def consume() -> None:
        async for event in client.watch(WIDGETS, resource_version="1", timeout_seconds=10):
            received.append(event.object["metadata"]["name"])

    task = asyncio.create_task(consume())
    await client.create(WIDGETS, body=widget("a"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert received == ["a"] and not task.done()
    clock.advance(9)
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done()
    clock.advance(1)
    await asyncio.wait_for(task, 5)


async def test_a_watcher_that_falls_behind_gets_its_events_then_an_end(
    make_registry: Any,
) -> None:
    registry: GenericStore = make_registry(watch_queue=3)
    client = Client(InProcessTransport(registry))
    stream = client.watch(WIDGETS, resource_version=str(registry.resource_version))
    first = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0)  # the watch is open
    served = registry.resources.lookup(GROUP, "v1", "widgets")
    assert served is not None
    for i in range(6):  # written without awaiting: the watcher's queue overflows
        registry.create(served, "default", widget(f"w{i}"), WriteOptions())
    names = [(await first).object["metadata"]["name"]]
    with contextlib.suppress(StopAsyncIteration):
        while True:
            names.append((await stream.__anext__()).object["metadata"]["name"])
    # the events queued before the overflow arrive, then the stream ends; resuming from the
    # last delivered version picks up the rest
    assert names == ["w0", "w1", "w2", "w3"]
    last = str(registry.resource_version - 2)
    async with client.watch(WIDGETS, resource_version=last) as resumed:
        rest = await next_events(resumed, 2)
    assert [e.object["metadata"]["name"] for e in rest] == ["w4", "w5"]
