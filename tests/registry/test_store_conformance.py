"""The store conformance suite: what the generic store promises, checked for every served kind.

A kind added to the resource table runs all of these for free once it has a sample object in
``fixtures.samples``; the first test fails for a served kind without one.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType, default_resources
from fakeapi.selectors import parse_field_selector, parse_label_selector
from fakeapi.server.printing import render_table

from ..support.samples import SAMPLE_FIELD_MANAGERS, SAMPLE_KINDS, sample

RESOURCES = default_resources()
KINDS = list(RESOURCES)
#: the kinds whose objects are stored (reviews are answered instead: test_reviews.py)
STORED = [rt for rt in KINDS if not rt.strategy.create_only]
#: events about cluster-scoped objects must live in "default", as upstream validates
NS = "default"


def _id(rt: ResourceType) -> str:
    return rt.qualified_plural


@pytest.fixture
def registry() -> GenericStore:
    registry = GenericStore(resources=RESOURCES, clock=FakeClock())
    namespaces = RESOURCES.lookup("", "v1", "namespaces")
    assert namespaces is not None
    registry.create(namespaces, None, {"metadata": {"name": NS}}, WriteOptions())
    return registry


def _options(rt: ResourceType, **kw: Any) -> WriteOptions:
    manager = SAMPLE_FIELD_MANAGERS.get((rt.api_version, rt.kind), "conformance")
    return WriteOptions(field_manager=manager, **kw)


def _ns(rt: ResourceType) -> str | None:
    return NS if rt.namespaced else None


def _create(registry: GenericStore, rt: ResourceType, **kw: Any) -> dict[str, Any]:
    body = sample(rt.api_version, rt.kind)
    if rt.kind == "Namespace":
        body["metadata"]["name"] = "sample-ns"
    return registry.create(rt, _ns(rt), body, _options(rt, **kw)).obj


def test_every_served_kind_has_a_sample() -> None:
    missing = [rt.qualified_plural for rt in KINDS if (rt.api_version, rt.kind) not in SAMPLE_KINDS]
    assert missing == []


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_create_then_get_returns_the_stored_object(
    registry: GenericStore, rt: ResourceType
) -> None:
    created = _create(registry, rt)
    meta = created["metadata"]
    assert created["kind"] == rt.kind and created["apiVersion"] == rt.api_version
    assert meta["uid"] and meta["creationTimestamp"] and meta["resourceVersion"]
    assert ("namespace" in meta) == rt.namespaced
    fetched = registry.get(rt, _ns(rt), meta["name"]).obj
    assert fetched == created


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_list_and_selectors_find_the_object(registry: GenericStore, rt: ResourceType) -> None:
    name = _create(registry, rt)["metadata"]["name"]
    listed = registry.list(rt, _ns(rt), ListOptions())
    assert name in [s.obj["metadata"]["name"] for s in listed.items]
    by_name = registry.list(
        rt, _ns(rt), ListOptions(field_selector=parse_field_selector(f"metadata.name={name}"))
    )
    assert [s.obj["metadata"]["name"] for s in by_name.items] == [name]
    nothing = registry.list(
        rt, _ns(rt), ListOptions(label_selector=parse_label_selector("no-such-label"))
    )
    assert nothing.items == []


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_stale_update_is_a_conflict(registry: GenericStore, rt: ResourceType) -> None:
    created = _create(registry, rt)
    name = created["metadata"]["name"]
    labelled = {**created, "metadata": {**created["metadata"], "labels": {"round": "1"}}}
    registry.update(rt, _ns(rt), name, labelled, _options(rt))
    stale = {**created, "metadata": {**created["metadata"], "labels": {"round": "2"}}}
    with pytest.raises(StatusError) as err:
        registry.update(rt, _ns(rt), name, stale, _options(rt))
    assert err.value.code == 409 and err.value.reason == "Conflict"
    assert registry.get(rt, _ns(rt), name).obj["metadata"]["labels"]["round"] == "1"


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_strict_field_validation_rejects_unknown_fields(
    registry: GenericStore, rt: ResourceType
) -> None:
    body = sample(rt.api_version, rt.kind)
    body["bogusField"] = 1
    with pytest.raises(StatusError) as err:
        registry.create(rt, _ns(rt), body, _options(rt, field_validation="Strict"))
    assert err.value.code == 400
    assert 'strict decoding error: unknown field "bogusField"' in err.value.message


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_dry_run_create_stores_nothing(registry: GenericStore, rt: ResourceType) -> None:
    before = registry.resource_version
    body = sample(rt.api_version, rt.kind)
    registry.create(rt, _ns(rt), body, _options(rt, dry_run=True))
    assert registry.resource_version == before
    with pytest.raises(StatusError) as err:
        registry.get(rt, _ns(rt), body["metadata"]["name"])
    assert err.value.code == 404


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_delete_removes_the_object_or_marks_it_deleting(
    registry: GenericStore, rt: ResourceType
) -> None:
    name = _create(registry, rt)["metadata"]["name"]
    result = registry.delete(rt, _ns(rt), name, DeleteOptions())
    if result.deleted:
        with pytest.raises(StatusError) as err:
            registry.get(rt, _ns(rt), name)
        assert err.value.code == 404
    else:
        assert registry.get(rt, _ns(rt), name).obj["metadata"]["deletionTimestamp"]


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_watch_sees_every_change_in_order(registry: GenericStore, rt: ResourceType) -> None:
    since = str(registry.resource_version)
    watcher = registry.watch(rt, _ns(rt), WatchOptions(resource_version=since))
    created = _create(registry, rt)
    name = created["metadata"]["name"]
    labelled = {**created, "metadata": {**created["metadata"], "labels": {"seen": "yes"}}}
    registry.update(rt, _ns(rt), name, labelled, _options(rt))
    events = watcher.drain()
    assert [e[0] for e in events] == ["ADDED", "MODIFIED"]
    assert events[1][1]["metadata"]["labels"]["seen"] == "yes"


@pytest.mark.parametrize("rt", [k for k in STORED if "status" in k.subresources], ids=_id)
def test_status_subresource_is_split_from_the_main_resource(
    registry: GenericStore, rt: ResourceType
) -> None:
    created = _create(registry, rt)
    name = created["metadata"]["name"]
    relabelled = {
        **created,
        "metadata": {**created["metadata"], "labels": {"main": "write"}},
        "status": {"bogusButIgnored": True},
    }
    after_main = registry.update(
        rt, _ns(rt), name, relabelled, _options(rt, field_validation="Ignore")
    ).obj
    assert after_main.get("status") == created.get("status")
    status_write = {**after_main, "metadata": {**after_main["metadata"], "labels": {}}}
    after_status = registry.update(
        rt, _ns(rt), name, status_write, _options(rt), subresource="status"
    ).obj
    # a status write keeps the stored labels, except for a kind whose status strategy lets it
    # change them (pods, as upstream's)
    if "labels" in rt.strategy.status_writes_metadata:
        assert "main" not in after_status["metadata"].get("labels", {})
    else:
        assert after_status["metadata"]["labels"]["main"] == "write"


@pytest.mark.parametrize("rt", STORED, ids=_id)
def test_table_has_one_cell_per_column(registry: GenericStore, rt: ResourceType) -> None:
    created = _create(registry, rt)
    body = render_table(rt, [created], now=registry.clock.now(), include="Metadata")
    assert len(body["rows"][0]["cells"]) == len(body["columnDefinitions"])
    assert body["columnDefinitions"][0]["name"] in ("Name", "Last Seen")
    for column in rt.strategy.columns:  # no cell function fails on a real object
        column.cell(created, registry.clock.now())
