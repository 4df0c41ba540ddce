"""The generic store's write semantics, pinned on a small test kind.

The kind (``fixtures.testkinds.Widget``) has a spec, a status subresource and generation
tracking, which is all the store's kind-independent behaviour needs: server-set metadata,
optimistic concurrency, the main/status split, finalizers, paging over consistent snapshots and
watch transitions.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.objects import deep_copy
from fakeapi.registry.options import (
    DeleteOptions,
    ListOptions,
    Preconditions,
    WatchOptions,
    WriteOptions,
)
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceTable
from fakeapi.selectors import parse_field_selector, parse_label_selector
from fakeapi.storage.memory import MemoryStorage
from fakeapi.timefmt import format_time

from ..support.testkinds import WIDGETS

W = WriteOptions()


def make_registry(**storage_args: Any) -> GenericStore:
    return GenericStore(
        resources=ResourceTable([WIDGETS]), storage=MemoryStorage(**storage_args), clock=FakeClock()
    )


def widget(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.fakeapi.dev/v1",
        "kind": "Widget",
        "metadata": {"name": name},
        "spec": spec,
    }


@pytest.fixture
def registry() -> GenericStore:
    return make_registry()


def test_create_sets_server_metadata(registry: GenericStore) -> None:
    obj = registry.create(WIDGETS, "ns", widget("a", size=1), W).obj
    meta = obj["metadata"]
    assert meta["namespace"] == "ns"
    assert meta["uid"] and meta["creationTimestamp"] == "2026-01-01T00:00:00Z"
    assert meta["generation"] == 1
    assert int(meta["resourceVersion"]) > 0


def test_resource_versions_strictly_increase_across_writes(registry: GenericStore) -> None:
    rvs = [
        int(registry.create(WIDGETS, "ns", widget(f"w{i}"), W).obj["metadata"]["resourceVersion"])
        for i in range(5)
    ]
    assert rvs == sorted(set(rvs))


def test_generate_name_appends_five_characters_and_retries_on_collision() -> None:
    suffixes = iter(["aaaaa", "aaaaa", "bbbbb"])
    registry = GenericStore(resources=ResourceTable([WIDGETS]), random=lambda n: next(suffixes))
    body = {"metadata": {"generateName": "w-"}}
    assert registry.create(WIDGETS, "ns", dict(body), W).obj["metadata"]["name"] == "w-aaaaa"
    assert registry.create(WIDGETS, "ns", dict(body), W).obj["metadata"]["name"] == "w-bbbbb"


def test_a_long_generate_name_is_cut_so_that_the_name_has_at_most_63_characters() -> None:
    registry = GenericStore(resources=ResourceTable([WIDGETS]), random=lambda n: "z" * n)
    body = {"metadata": {"generateName": "b" * 70}}
    assert registry.create(WIDGETS, "ns", body, W).obj["metadata"]["name"] == "b" * 58 + "zzzzz"


def test_duplicate_create_is_already_exists(registry: GenericStore) -> None:
    registry.create(WIDGETS, "ns", widget("a"), W)
    with pytest.raises(StatusError) as err:
        registry.create(WIDGETS, "ns", widget("a"), W)
    assert err.value.code == 409 and err.value.reason == "AlreadyExists"
    assert err.value.message == 'widgets.example.fakeapi.dev "a" already exists'


def test_stale_resource_version_is_a_conflict_and_changes_nothing(registry: GenericStore) -> None:
    created = registry.create(WIDGETS, "ns", widget("a", size=1), W).obj
    stale = created["metadata"]["resourceVersion"]
    registry.update(
        WIDGETS,
        "ns",
        "a",
        {**widget("a", size=2), "metadata": {"name": "a", "resourceVersion": stale}},
        W,
    )
    with pytest.raises(StatusError) as err:
        registry.update(
            WIDGETS,
            "ns",
            "a",
            {**widget("a", size=3), "metadata": {"name": "a", "resourceVersion": stale}},
            W,
        )
    assert err.value.code == 409 and err.value.reason == "Conflict"
    assert "the object has been modified" in err.value.message
    assert registry.get(WIDGETS, "ns", "a").obj["spec"]["size"] == 2


def test_generation_bumps_only_on_spec_change(registry: GenericStore) -> None:
    registry.create(WIDGETS, "ns", widget("a", size=1), W)
    labelled = widget("a", size=1)
    labelled["metadata"]["labels"] = {"x": "y"}
    assert registry.update(WIDGETS, "ns", "a", labelled, W).obj["metadata"]["generation"] == 1
    assert (
        registry.update(WIDGETS, "ns", "a", widget("a", size=5), W).obj["metadata"]["generation"]
        == 2
    )


def test_main_update_keeps_status_and_status_update_keeps_spec(registry: GenericStore) -> None:
    registry.create(WIDGETS, "ns", widget("a", size=1), W)
    with_status = {**widget("a", size=1), "status": {"phase": "Ready"}}
    registry.update(WIDGETS, "ns", "a", with_status, W, subresource="status")
    main = {**widget("a", size=9), "status": {"phase": "Ignored"}}
    obj = registry.update(WIDGETS, "ns", "a", main, W).obj
    assert obj["status"] == {"phase": "Ready"} and obj["spec"]["size"] == 9
    status_write = {**widget("a", size=100), "status": {"phase": "Done"}}
    obj = registry.update(WIDGETS, "ns", "a", status_write, W, subresource="status").obj
    assert obj["status"] == {"phase": "Done"} and obj["spec"]["size"] == 9


def test_a_status_write_keeps_the_stored_metadata(registry: GenericStore) -> None:
    labelled = widget("a", size=1)
    labelled["metadata"]["labels"] = {"app": "a"}
    registry.create(WIDGETS, "ns", labelled, W)
    status_write = {**widget("a", size=1), "status": {"phase": "Done"}}
    status_write["metadata"].update(labels={"app": "b"}, annotations={"x": "y"})
    obj = registry.update(WIDGETS, "ns", "a", status_write, W, subresource="status").obj
    assert obj["status"] == {"phase": "Done"}
    assert obj["metadata"]["labels"] == {"app": "a"} and "annotations" not in obj["metadata"]


class TestPodStatusWritesMetadata:
    """Upstream's pod status strategy resets only spec, deletionTimestamp and ownerReferences:
    labels, annotations and finalizers written through pods/status are kept."""

    @pytest.fixture
    def pods(self) -> tuple[GenericStore, Any]:
        registry = new_registry(clock=FakeClock())
        return registry, registry.resources.lookup("", "v1", "pods")

    def create(self, pods: tuple[GenericStore, Any], **meta: Any) -> dict[str, Any]:
        registry, rt = pods
        body = {
            "metadata": {"name": "p", **meta},
            "spec": {"containers": [{"name": "a", "image": "a:1"}]},
        }
        return registry.create(rt, "default", body, W).obj

    def test_labels_and_annotations_change_and_owner_references_stay(
        self, pods: tuple[GenericStore, Any]
    ) -> None:
        owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u-1"}
        stored = self.create(pods, labels={"app": "a"}, ownerReferences=[owner])
        registry, rt = pods
        body = deep_copy(stored)
        body["metadata"].update(labels={"app": "b"}, annotations={"note": "x"}, ownerReferences=[])
        body["status"]["phase"] = "Running"
        obj = registry.update(rt, "default", "p", body, W, subresource="status").obj
        assert obj["metadata"]["labels"] == {"app": "b"}
        assert obj["metadata"]["annotations"] == {"note": "x"}
        assert obj["metadata"]["ownerReferences"] == [owner]
        assert obj["status"]["phase"] == "Running"

    def test_removing_the_last_finalizer_of_a_deleted_pod_completes_its_deletion(
        self, pods: tuple[GenericStore, Any]
    ) -> None:
        self.create(pods, finalizers=["example.com/hold"])
        registry, rt = pods
        registry.delete(rt, "default", "p", DeleteOptions(grace_period_seconds=0))
        body = deep_copy(registry.get(rt, "default", "p").obj)
        del body["metadata"]["finalizers"]
        registry.update(rt, "default", "p", body, W, subresource="status")
        with pytest.raises(StatusError) as err:
            registry.get(rt, "default", "p")
        assert err.value.code == 404

    def test_metadata_written_through_status_is_validated(
        self, pods: tuple[GenericStore, Any]
    ) -> None:
        stored = self.create(pods)
        registry, rt = pods
        body = deep_copy(stored)
        body["metadata"]["labels"] = {"bad key!": "x"}
        with pytest.raises(StatusError) as err:
            registry.update(rt, "default", "p", body, W, subresource="status")
        assert err.value.code == 422
        assert "metadata.labels: Invalid value: \"bad key!\"" in err.value.message
        assert "labels" not in registry.get(rt, "default", "p").obj["metadata"]


class TestDeletionRules:
    @pytest.fixture
    def cluster(self) -> tuple[GenericStore, FakeClock]:
        clock = FakeClock()
        return new_registry(clock=clock), clock

    @pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
    def test_the_immortal_namespaces_may_not_be_deleted(
        self, cluster: tuple[GenericStore, FakeClock], name: str
    ) -> None:
        registry, _ = cluster
        namespaces = registry.resources.lookup("", "v1", "namespaces")
        for dry_run in (True, False):
            with pytest.raises(StatusError) as err:
                registry.delete(namespaces, None, name, DeleteOptions(dry_run=dry_run))
            assert err.value.code == 403
            assert err.value.message == (
                f'namespaces "{name}" is forbidden: this namespace may not be deleted'
            )
        assert registry.get(namespaces, None, name).obj["status"]["phase"] == "Active"

    def test_a_system_priority_class_may_not_be_deleted(
        self, cluster: tuple[GenericStore, FakeClock]
    ) -> None:
        registry, _ = cluster
        classes = registry.resources.lookup("scheduling.k8s.io", "v1", "priorityclasses")
        with pytest.raises(StatusError) as err:
            registry.delete(classes, None, "system-node-critical", DeleteOptions())
        assert err.value.message == (
            'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a '
            "system priority class and cannot be deleted"
        )

    def test_creating_in_a_terminating_namespace_names_the_cause(
        self, cluster: tuple[GenericStore, FakeClock]
    ) -> None:
        registry, _ = cluster
        namespaces = registry.resources.lookup("", "v1", "namespaces")
        registry.create(namespaces, None, {"metadata": {"name": "going"}}, W)
        registry.delete(namespaces, None, "going", DeleteOptions())
        configmaps = registry.resources.lookup("", "v1", "configmaps")
        with pytest.raises(StatusError) as err:
            registry.create(configmaps, "going", {"metadata": {"name": "late"}}, W)
        assert err.value.code == 403
        assert err.value.details is not None
        assert err.value.details["causes"] == [
            {
                "reason": "NamespaceTerminating",
                "message": "namespace going is being terminated",
                "field": "metadata.namespace",
            }
        ]

    def test_a_shortened_grace_period_keeps_the_deletion_start(
        self, cluster: tuple[GenericStore, FakeClock]
    ) -> None:
        registry, clock = cluster
        pods = registry.resources.lookup("", "v1", "pods")
        body = {
            "metadata": {"name": "p", "finalizers": ["example.com/hold"]},
            "spec": {"nodeName": "n1", "containers": [{"name": "a", "image": "a:1"}]},
        }
        registry.create(pods, "default", body, W)
        start = clock.now()

        def delete(grace: int) -> tuple[str, int]:
            meta = registry.delete(
                pods, "default", "p", DeleteOptions(grace_period_seconds=grace)
            ).obj["metadata"]
            return meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]

        def at(seconds: int) -> str:
            return format_time(start + timedelta(seconds=seconds))

        assert delete(100) == (at(100), 100)
        clock.advance(40)
        assert delete(10) == (at(10), 10)  # from the first request, not from now
        assert delete(50) == (at(10), 10)  # only ever hastened
        clock.advance(5)
        assert delete(0) == (at(0), 0)


def test_no_op_update_keeps_resource_version_and_sends_no_event(registry: GenericStore) -> None:
    rv = registry.create(WIDGETS, "ns", widget("a", size=1), W).obj["metadata"]["resourceVersion"]
    watcher = registry.watch(WIDGETS, "ns", WatchOptions(resource_version=rv))
    again = registry.update(WIDGETS, "ns", "a", widget("a", size=1), W).obj
    assert again["metadata"]["resourceVersion"] == rv
    assert watcher.drain() == []


def test_invalid_object_is_422_with_field_cause_and_nothing_stored(registry: GenericStore) -> None:
    with pytest.raises(StatusError) as err:
        registry.create(WIDGETS, "ns", widget("a", size=-1), W)
    assert err.value.code == 422
    assert err.value.details is not None
    assert err.value.details["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "field": "spec.size",
            "message": "Invalid value: -1: must be greater than or equal to 0",
        }
    ]
    assert registry.list(WIDGETS, "ns", ListOptions()).items == []


def test_wrong_type_is_a_bad_request(registry: GenericStore) -> None:
    with pytest.raises(StatusError) as err:
        registry.create(WIDGETS, "ns", widget("a", size="big"), W)
    assert err.value.code == 400
    assert err.value.message.startswith('Widget in version "v1" cannot be handled as a Widget')


@pytest.mark.parametrize(
    ("mode", "raises", "warnings"),
    [("Strict", True, []), ("Warn", False, ['unknown field "spec.bogus"']), ("Ignore", False, [])],
)
def test_unknown_fields_follow_field_validation(
    registry: GenericStore, mode: Any, raises: bool, warnings: list[str]
) -> None:
    body = widget("a", size=1, bogus=True)
    options = WriteOptions(field_validation=mode)
    if raises:
        with pytest.raises(StatusError) as err:
            registry.create(WIDGETS, "ns", body, options)
        assert err.value.message.endswith('strict decoding error: unknown field "spec.bogus"')
        return
    result = registry.create(WIDGETS, "ns", body, options)
    assert result.warnings == warnings
    assert "bogus" not in registry.get(WIDGETS, "ns", "a").obj["spec"]


def test_dry_run_create_stores_nothing_and_consumes_no_resource_version(
    registry: GenericStore,
) -> None:
    before = registry.resource_version
    result = registry.create(WIDGETS, "ns", widget("a"), WriteOptions(dry_run=True))
    assert result.obj["metadata"]["uid"]
    assert "resourceVersion" not in result.obj["metadata"]
    assert registry.resource_version == before
    with pytest.raises(StatusError):
        registry.get(WIDGETS, "ns", "a")


def test_finalizers_hold_deletion_until_removed(registry: GenericStore) -> None:
    body = widget("a")
    body["metadata"]["finalizers"] = ["example.com/hold"]
    registry.create(WIDGETS, "ns", body, W)
    result = registry.delete(WIDGETS, "ns", "a", DeleteOptions())
    assert not result.deleted
    assert result.obj["metadata"]["deletionTimestamp"]
    assert result.obj["metadata"]["deletionGracePeriodSeconds"] == 0
    current = registry.get(WIDGETS, "ns", "a").obj
    adding = {
        **current,
        "metadata": {**current["metadata"], "finalizers": ["example.com/hold", "example.com/new"]},
    }
    with pytest.raises(StatusError) as err:
        registry.update(WIDGETS, "ns", "a", adding, W)
    assert err.value.code == 422
    assert err.value.message.endswith(  # said once
        'is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the '
        'object is being deleted, found new finalizers []string{"example.com/new"}'
    )
    assert len(err.value.details["causes"]) == 1
    releasing = {**current, "metadata": {**current["metadata"], "finalizers": []}}
    registry.update(WIDGETS, "ns", "a", releasing, W)
    with pytest.raises(StatusError) as gone:
        registry.get(WIDGETS, "ns", "a")
    assert gone.value.code == 404


@pytest.mark.parametrize(
    ("policy", "finalizer"), [("Foreground", "foregroundDeletion"), ("Orphan", "orphan")]
)
def test_propagation_policy_records_its_finalizer(
    registry: GenericStore, policy: Any, finalizer: str
) -> None:
    registry.create(WIDGETS, "ns", widget("a"), W)
    result = registry.delete(WIDGETS, "ns", "a", DeleteOptions(propagation_policy=policy))
    assert result.obj["metadata"]["finalizers"] == [finalizer]


def test_delete_preconditions_are_conflicts(registry: GenericStore) -> None:
    registry.create(WIDGETS, "ns", widget("a"), W)
    with pytest.raises(StatusError) as err:
        registry.delete(WIDGETS, "ns", "a", DeleteOptions(preconditions=Preconditions(uid="x")))
    assert err.value.code == 409 and "the UID in the precondition (x) does not match" in str(
        err.value.message
    )


def test_paged_list_is_a_consistent_snapshot(registry: GenericStore) -> None:
    for i in range(5):
        registry.create(WIDGETS, "ns", widget(f"w{i}"), W)
    page = registry.list(WIDGETS, "ns", ListOptions(limit=2))
    assert [s.obj["metadata"]["name"] for s in page.items] == ["w0", "w1"]
    assert page.remaining == 3
    registry.delete(WIDGETS, "ns", "w3", DeleteOptions())
    registry.create(WIDGETS, "ns", widget("w9"), W)
    registry.update(WIDGETS, "ns", "w2", widget("w2", size=7), W)
    rest = registry.list(WIDGETS, "ns", ListOptions(continue_token=page.continue_token))
    names = [s.obj["metadata"]["name"] for s in rest.items]
    assert names == ["w2", "w3", "w4"]
    assert rest.items[0].obj["spec"] == {}
    assert rest.resource_version == page.resource_version


def test_continue_token_older_than_history_is_410() -> None:
    registry = make_registry(history_size=2)
    for i in range(3):
        registry.create(WIDGETS, "ns", widget(f"w{i}"), W)
    page = registry.list(WIDGETS, "ns", ListOptions(limit=1))
    for i in range(10):
        registry.update(WIDGETS, "ns", "w2", widget("w2", size=i), W)
    with pytest.raises(StatusError) as err:
        registry.list(WIDGETS, "ns", ListOptions(continue_token=page.continue_token))
    assert err.value.code == 410 and err.value.reason == "Expired"
    # upstream's inconsistent continue: the 410 carries a token for the rest of the list, read
    # at the newest version
    token = err.value.status()["metadata"]["continue"]
    rest = registry.list(WIDGETS, "ns", ListOptions(continue_token=token))
    assert [s.obj["metadata"]["name"] for s in rest.items] == ["w1", "w2"]
    assert rest.items[-1].obj["spec"]["size"] == 9


def test_list_filters_by_label_and_field_selectors(registry: GenericStore) -> None:
    for name, color, tier in [("a", "red", "x"), ("b", "blue", "x"), ("c", "red", "y")]:
        body = widget(name, color=color)
        body["metadata"]["labels"] = {"tier": tier}
        registry.create(WIDGETS, "ns", body, W)
    options = ListOptions(
        label_selector=parse_label_selector("tier=x"),
        field_selector=parse_field_selector("spec.color!=blue"),
    )
    assert [s.obj["metadata"]["name"] for s in registry.list(WIDGETS, None, options).items] == ["a"]


def test_unsupported_field_selector_is_400(registry: GenericStore) -> None:
    with pytest.raises(StatusError) as err:
        registry.list(WIDGETS, "ns", ListOptions(field_selector=parse_field_selector("spec.x=1")))
    # a kind with field labels of its own names itself outside the core group, as upstream's
    assert err.value.code == 400 and err.value.message == (
        "field label not supported for example.fakeapi.dev/v1, Kind=Widget: spec.x"
    )


def test_watch_resumes_from_resource_version_in_order(registry: GenericStore) -> None:
    rv = registry.create(WIDGETS, "ns", widget("a"), W).obj["metadata"]["resourceVersion"]
    registry.update(WIDGETS, "ns", "a", widget("a", size=1), W)
    registry.delete(WIDGETS, "ns", "a", DeleteOptions())
    watcher = registry.watch(WIDGETS, "ns", WatchOptions(resource_version=rv))
    events = watcher.drain()
    assert [e[0] for e in events] == ["MODIFIED", "DELETED"]
    rvs = [int(e[1]["metadata"]["resourceVersion"]) for e in events]
    assert rvs == sorted(rvs) and rvs[0] > int(rv)


def test_watch_from_expired_version_is_410() -> None:
    registry = make_registry(history_size=1)
    for i in range(5):
        registry.create(WIDGETS, "ns", widget(f"w{i}"), W)
    with pytest.raises(StatusError) as err:
        registry.watch(WIDGETS, "ns", WatchOptions(resource_version="2"))
    assert err.value.code == 410 and err.value.message.startswith("too old resource version: 2")


def test_list_at_an_expired_version_is_410_in_upstreams_words() -> None:
    registry = make_registry(history_size=1)
    for i in range(5):
        registry.create(WIDGETS, "ns", widget(f"w{i}"), W)
    with pytest.raises(StatusError) as err:
        registry.list(WIDGETS, "ns", ListOptions(resource_version="2",
                                                  resource_version_match="Exact"))
    assert (err.value.code, err.value.reason) == (410, "Expired")
    assert err.value.message == "The resourceVersion for the provided list is too old."


def test_watch_selector_transitions_send_added_and_deleted(registry: GenericStore) -> None:
    registry.create(WIDGETS, "ns", widget("a", color="blue"), W)
    watcher = registry.watch(
        WIDGETS,
        "ns",
        WatchOptions(
            resource_version=str(registry.resource_version),
            field_selector=parse_field_selector("spec.color=red"),
        ),
    )
    registry.update(WIDGETS, "ns", "a", widget("a", color="red"), W)
    registry.update(WIDGETS, "ns", "a", widget("a", color="red", size=2), W)
    registry.update(WIDGETS, "ns", "a", widget("a", color="green"), W)
    assert [e[0] for e in watcher.drain()] == ["ADDED", "MODIFIED", "DELETED"]


def test_watch_list_sends_initial_state_then_annotated_bookmark(registry: GenericStore) -> None:
    registry.create(WIDGETS, "ns", widget("a"), W)
    registry.create(WIDGETS, "ns", widget("b"), W)
    watcher = registry.watch(
        WIDGETS,
        "ns",
        WatchOptions(
            send_initial_events=True, resource_version_match="NotOlderThan", allow_bookmarks=True
        ),
    )
    events = watcher.drain()
    assert [e[0] for e in events] == ["ADDED", "ADDED", "BOOKMARK"]
    mark = events[-1][1]["metadata"]
    assert mark["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert int(mark["resourceVersion"]) >= max(
        int(e[1]["metadata"]["resourceVersion"]) for e in events[:2]
    )


def test_slow_watcher_is_closed_instead_of_stalling_writers() -> None:
    registry = make_registry(watch_queue=3)
    watcher = registry.watch(WIDGETS, "ns", WatchOptions(resource_version="1"))
    for i in range(10):
        registry.create(WIDGETS, "ns", widget(f"w{i}"), W)
    assert watcher.closed and watcher.overflowed
    assert len(registry.list(WIDGETS, "ns", ListOptions()).items) == 10


@pytest.mark.parametrize(
    "read",
    [
        lambda registry, rv: registry.list(
            WIDGETS, "ns", ListOptions(resource_version=rv, resource_version_match="NotOlderThan")
        ),
        lambda registry, rv: registry.get(WIDGETS, "ns", "a", resource_version=rv),
    ],
    ids=["list", "get"],
)
def test_a_resource_version_the_server_has_not_reached_is_a_retryable_timeout(
    registry: GenericStore, read: Any
) -> None:
    created = registry.create(WIDGETS, "ns", widget("a"), W).obj
    current = int(created["metadata"]["resourceVersion"])
    assert read(registry, str(current)) is not None
    with pytest.raises(StatusError) as err:
        read(registry, str(current + 1000))
    assert (err.value.code, err.value.reason) == (504, "Timeout")
    assert err.value.message == (
        f"Timeout: Too large resource version: {current + 1000}, current: {current}"
    )
    assert err.value.details == {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        "retryAfterSeconds": 1,
    }


def test_a_condition_without_a_message_is_accepted_as_upstream_validation_does() -> None:
    """metav1.Condition's message is required in upstream's OpenAPI but its validation
    accepts it missing; drivers write conditions without one."""
    registry = new_registry(clock=FakeClock())
    rules = registry.resources.lookup("resource.k8s.io", "v1", "devicetaintrules")
    rule = deep_copy(registry.create(rules, None, {
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                 "taint": {"key": "k", "effect": "None"}},
    }, W).obj)  # a client's copy: the stored object itself is never changed
    rule["status"] = {"conditions": [{
        "type": "EvictionInProgress", "status": "False", "reason": "NoEffect",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }]}
    written = registry.update(rules, None, "r", rule, W, subresource="status").obj
    # Go decodes the absent message as "" and writes it back so (clients expect the field)
    assert written["status"]["conditions"][0]["message"] == ""
    assert written["status"]["conditions"][0]["reason"] == "NoEffect"


def test_a_foreign_uid_is_a_precondition_on_put_and_immutable_on_other_writes(
    registry: GenericStore,
) -> None:
    stored = registry.create(WIDGETS, "ns", widget("a", size=1), W).obj
    foreign = {**widget("a", size=2)}
    foreign["metadata"]["uid"] = "not-the-uid"
    with pytest.raises(StatusError) as err:
        registry.update(WIDGETS, "ns", "a", foreign, W)
    assert err.value.code == 409
    assert "Precondition failed: UID in precondition: not-the-uid" in err.value.message

    def foreign_uid(obj: dict[str, Any]) -> dict[str, Any]:  # what a patch naming a uid makes
        obj["metadata"]["uid"] = "not-the-uid"
        return obj

    with pytest.raises(StatusError) as err:
        registry.guaranteed_update(WIDGETS, "ns", "a", foreign_uid, W)
    assert err.value.code == 422
    assert 'metadata.uid: Invalid value: "not-the-uid": field is immutable' in err.value.message
    same = {**widget("a", size=3)}
    same["metadata"]["uid"] = stored["metadata"]["uid"]
    assert registry.update(WIDGETS, "ns", "a", same, W).obj["spec"]["size"] == 3
