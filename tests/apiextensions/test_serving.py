"""Established definitions are served: their resources go through the one store like any kind.

What a definition serves is derived from the stored definitions (rows of the one resource table),
so these tests drive the registry directly and run the definition controllers to a fixed point
(:func:`~tests.apiextensions.crds.establish`), without HTTP or timing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.apiextensions.controllers import ApiExtensionsControllers
from fakeapi.apiextensions.serving import CustomResourceRows
from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import DeleteOptions, ListOptions, WriteOptions
from fakeapi.registry.scale import read_scale, write_scale
from fakeapi.registry.store import GenericStore
from fakeapi.resources import default_resources
from fakeapi.selectors import parse_field_selector
from fakeapi.server.printing import render_table
from fakeapi.storage.durable import DurableStorage

from .crds import crd, crds_of, establish, new_crd_registry, reconcile_all, row

GROUP = "stable.example.com"
NAME = "crontabs.stable.example.com"


def _conditions(definition: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"])
            for c in definition["status"].get("conditions", [])}


def _cron(name: str = "a", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "CronTab", "metadata": {"name": name},
            "spec": spec or {"cronSpec": "* * * * */5", "image": "cron:1"}}


@pytest.fixture
def registry() -> GenericStore:
    return new_crd_registry()


def test_a_definition_is_established_by_the_controllers(registry: GenericStore) -> None:
    assert registry.resources.lookup(GROUP, "v1", "crontabs") is None
    stored = establish(registry, crd(shortNames=["ct"], categories=["all"]))
    assert _conditions(stored) == {
        "NamesAccepted": ("True", "NoConflicts", "no conflicts found"),
        "Established": ("True", "InitialNamesAccepted", "the initial names have been accepted"),
    }
    assert stored["status"]["acceptedNames"] == {
        "plural": "crontabs", "singular": "crontab", "kind": "CronTab",
        "listKind": "CronTabList", "shortNames": ["ct"], "categories": ["all"],
    }
    rt = row(registry, GROUP, "v1", "crontabs")
    assert (rt.kind, rt.namespaced, rt.short_names, rt.categories) == (
        "CronTab", True, ("ct",), ("all",))


def test_names_another_definition_accepted_are_refused_until_it_goes(
    registry: GenericStore,
) -> None:
    establish(registry, crd())
    second = crd(plural="crons", kind="CronTab")
    stored = establish(registry, second)
    # each name is checked in turn and the last conflict found names the condition (upstream)
    assert _conditions(stored)["NamesAccepted"] == (
        "False", "ListKindConflict", '"CronTabList" is already in use')
    assert _conditions(stored)["Established"] == (
        "False", "NotAccepted", "not all names are accepted")
    assert registry.resources.lookup(GROUP, "v1", "crons") is None
    third = establish(registry, crd(plural="cronjobs", kind="CronJob", shortNames=["crontabs"]))
    assert _conditions(third)["NamesAccepted"] == (
        "False", "ShortNamesConflict", '"crontabs" is already in use')
    registry.delete(crds_of(registry), None, NAME, DeleteOptions())
    reconcile_all(registry, NAME)
    second_now = registry.get(crds_of(registry), None, "crons.stable.example.com").obj
    assert _conditions(second_now)["NamesAccepted"][0] == "True"
    assert _conditions(second_now)["Established"][0] == "True"
    assert row(registry, GROUP, "v1", "crons").kind == "CronTab"


def test_objects_are_defaulted_pruned_and_versioned(registry: GenericStore) -> None:
    establish(registry, crd())
    rt = row(registry, GROUP, "v1", "crontabs")
    body = _cron(cronSpec="* * * * */5", image="cron:1", extra="x")
    result = registry.create(rt, "ns", body, WriteOptions(field_validation="Warn"))
    assert result.obj["spec"] == {"cronSpec": "* * * * */5", "image": "cron:1", "replicas": 1}
    assert result.warnings == ['unknown field "spec.extra"']
    assert result.obj["metadata"]["generation"] == 1
    with pytest.raises(StatusError) as raised:
        registry.create(rt, "ns", _cron("b", extra="x"), WriteOptions(field_validation="Strict"))
    assert raised.value.status()["message"] == (
        'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: '
        'unknown field "spec.extra"'
    )
    changed = copy.deepcopy(result.obj)
    changed["spec"]["image"] = "cron:2"
    updated = registry.update(rt, "ns", "a", changed, WriteOptions()).obj
    assert updated["metadata"]["generation"] == 2


def test_an_update_needs_a_resource_version(registry: GenericStore) -> None:
    establish(registry, crd())
    rt = row(registry, GROUP, "v1", "crontabs")
    registry.create(rt, "ns", _cron(), WriteOptions())
    with pytest.raises(StatusError) as raised:
        registry.update(rt, "ns", "a", _cron(), WriteOptions())
    assert raised.value.status()["details"]["causes"][0]["field"] == "metadata.resourceVersion"


def test_the_status_subresource_splits_spec_and_status(registry: GenericStore) -> None:
    definition = crd()
    definition["spec"]["versions"][0]["subresources"] = {"status": {}}
    establish(registry, definition)
    rt = row(registry, GROUP, "v1", "crontabs")
    body = _cron()
    body["status"] = {"replicas": 3}
    created = registry.create(rt, "ns", body, WriteOptions()).obj
    assert "status" not in created
    with_status = copy.deepcopy(created)
    with_status["status"] = {"replicas": 3}
    with_status["spec"]["image"] = "ignored"
    written = registry.update(rt, "ns", "a", with_status, WriteOptions(), subresource="status")
    assert written.obj["status"] == {"replicas": 3}
    assert written.obj["spec"]["image"] == "cron:1"
    assert written.obj["metadata"]["generation"] == 1
    bad = copy.deepcopy(written.obj)
    bad["status"] = {"replicas": "three"}
    with pytest.raises(StatusError) as raised:
        registry.update(rt, "ns", "a", bad, WriteOptions(), subresource="status")
    assert [c["field"] for c in raised.value.status()["details"]["causes"]] == ["status.replicas"]


def test_the_scale_subresource_reads_and_writes_the_replica_paths(registry: GenericStore) -> None:
    definition = crd()
    definition["spec"]["versions"][0]["subresources"] = {"status": {}, "scale": {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
        "labelSelectorPath": ".status.selector"}}
    definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"] = {
        "type": "object", "properties": {
            "replicas": {"type": "integer"}, "selector": {"type": "string"}}}
    establish(registry, definition)
    rt = row(registry, GROUP, "v1", "crontabs")
    created = registry.create(rt, "ns", _cron(), WriteOptions()).obj
    scale = read_scale(registry, rt, "ns", "a")
    assert scale["spec"] == {"replicas": 1} and scale["status"] == {"replicas": 0}
    assert scale["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    status = {**registry.get(rt, "ns", "a").obj, "status": {"replicas": 2, "selector": "a=b"}}
    registry.update(rt, "ns", "a", status, WriteOptions(), subresource="status")
    assert read_scale(registry, rt, "ns", "a")["status"] == {"replicas": 2, "selector": "a=b"}

    answered = write_scale(registry, rt, "ns", "a", {"spec": {"replicas": 4}}, WriteOptions())
    assert answered["spec"]["replicas"] == 4
    assert registry.get(rt, "ns", "a").obj["spec"]["replicas"] == 4
    with pytest.raises(StatusError) as raised:  # the schema's maximum still applies
        write_scale(registry, rt, "ns", "a", {"spec": {"replicas": 11}}, WriteOptions())
    assert raised.value.status()["details"]["causes"][0]["message"] == (
        "Invalid value: 11: spec.replicas in body should be less than or equal to 10")
    with pytest.raises(StatusError) as raised:  # a stale resourceVersion is a conflict
        write_scale(registry, rt, "ns", "a", scale, WriteOptions())
    assert raised.value.code == 409


def test_printer_columns_and_selectable_fields(registry: GenericStore) -> None:
    definition = crd()
    version = definition["spec"]["versions"][0]
    version["additionalPrinterColumns"] = [
        {"name": "Image", "type": "string", "jsonPath": ".spec.image"},
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1},
    ]
    version["selectableFields"] = [{"jsonPath": ".spec.image"}]
    establish(registry, definition)
    rt = row(registry, GROUP, "v1", "crontabs")
    registry.create(rt, "ns", _cron("a", image="x"), WriteOptions())
    registry.create(rt, "ns", _cron("b", image="y"), WriteOptions())
    listed = registry.list(rt, "ns", ListOptions(field_selector=parse_field_selector(
        "spec.image=y")))
    assert [s.obj["metadata"]["name"] for s in listed.items] == ["b"]
    table = render_table(rt, [s.obj for s in listed.items], now=registry.clock.now(),
                         include="None")
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Image", "Replicas"]
    assert table["columnDefinitions"][2]["priority"] == 1
    assert table["rows"][0]["cells"] == ["b", "y", 1]
    with pytest.raises(StatusError) as raised:
        registry.list(rt, "ns", ListOptions(field_selector=parse_field_selector("spec.x=y")))
    assert raised.value.code == 400
    assert raised.value.message == "field label not supported: spec.x"


def test_field_selectors_convert_as_custom_resources_do(registry: GenericStore) -> None:
    # upstream's crConverter: metadata.name always, metadata.namespace when namespaced, nothing
    # else without selectable fields, and one message for every refused label
    establish(registry, crd())
    establish(registry, crd(plural="clocks", kind="Clock", scope="Cluster"))
    namespaced = row(registry, GROUP, "v1", "crontabs")
    cluster = row(registry, GROUP, "v1", "clocks")
    registry.list(namespaced, "ns", ListOptions(field_selector=parse_field_selector(
        "metadata.name=a,metadata.namespace=ns")))
    registry.list(cluster, None, ListOptions(field_selector=parse_field_selector(
        "metadata.name=a")))
    for rt, selector in ((namespaced, "spec.image=x"), (cluster, "metadata.namespace=ns")):
        with pytest.raises(StatusError) as raised:
            registry.list(rt, None, ListOptions(field_selector=parse_field_selector(selector)))
        label = selector.split("=")[0]
        assert raised.value.message == f"field label not supported: {label}"


def test_versions_are_served_from_one_stored_copy_and_deprecated_ones_warn(
    registry: GenericStore,
) -> None:
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"image": {"type": "string"}}}}}}
    versions = [
        {"name": "v1beta1", "served": True, "storage": False, "deprecated": True,
         "schema": copy.deepcopy(schema)},
        {"name": "v1", "served": True, "storage": True, "schema": copy.deepcopy(schema)},
    ]
    establish(registry, crd(versions=versions))
    beta = row(registry, GROUP, "v1beta1", "crontabs")
    ga = row(registry, GROUP, "v1", "crontabs")
    assert beta.request_warnings == (
        "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab",)
    assert ga.request_warnings == ()
    body = _cron()
    body["apiVersion"] = f"{GROUP}/v1beta1"
    created = registry.create(beta, "ns", body, WriteOptions()).obj
    assert created["apiVersion"] == f"{GROUP}/v1beta1"
    assert registry.get(ga, "ns", "a").obj["apiVersion"] == f"{GROUP}/v1"
    stored = registry.storage.resource(NAME).get("ns/a")
    assert stored is not None and stored.obj["apiVersion"] == f"{GROUP}/v1"
    # a version stops being served as soon as its definition says so
    definition = registry.get(crds_of(registry), None, NAME).obj
    changed = copy.deepcopy(definition)
    changed["spec"]["versions"][0]["served"] = False
    registry.update(crds_of(registry), None, NAME, changed, WriteOptions())
    assert registry.resources.lookup(GROUP, "v1beta1", "crontabs") is None
    assert registry.resources.lookup(GROUP, "v1", "crontabs") is not None


def test_a_schema_change_takes_effect_at_once_also_on_reads(registry: GenericStore) -> None:
    establish(registry, crd())
    rt = row(registry, GROUP, "v1", "crontabs")
    registry.create(rt, "ns", _cron(), WriteOptions())
    definition = registry.get(crds_of(registry), None, NAME).obj
    changed = copy.deepcopy(definition)
    spec_schema = changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec_schema["properties"]["suspend"] = {"type": "boolean", "default": False}
    del spec_schema["properties"]["image"]
    registry.update(crds_of(registry), None, NAME, changed, WriteOptions())
    rt = row(registry, GROUP, "v1", "crontabs")
    read = registry.get(rt, "ns", "a").obj
    assert read["spec"] == {"cronSpec": "* * * * */5", "replicas": 1, "suspend": False}
    assert [s.obj["spec"] for s in registry.list(rt, "ns", ListOptions()).items] == [read["spec"]]


def test_deleting_a_definition_deletes_its_objects_first(registry: GenericStore) -> None:
    establish(registry, crd())
    rt = row(registry, GROUP, "v1", "crontabs")
    kept = _cron("kept")
    kept["metadata"]["finalizers"] = ["example.com/keep"]
    registry.create(rt, "ns", kept, WriteOptions())
    registry.create(rt, "ns", _cron("b"), WriteOptions())
    deleting = registry.delete(crds_of(registry), None, NAME, DeleteOptions()).obj
    assert deleting["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
    assert _conditions(deleting)["Terminating"] == (
        "True", "InstanceDeletionPending",
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon")
    rt = row(registry, GROUP, "v1", "crontabs")  # still served, now terminating
    with pytest.raises(StatusError) as raised:
        registry.create(rt, "ns", _cron("new"), WriteOptions())
    assert raised.value.status()["message"] == (
        'crontabs.stable.example.com "new" is forbidden: create not allowed while custom '
        "resource definition is terminating")
    reconcile_all(registry, NAME)
    waiting = registry.get(crds_of(registry), None, NAME).obj
    assert _conditions(waiting)["Terminating"] == (
        "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress")
    assert [s.obj["metadata"]["name"] for s in registry.list(rt, "ns", ListOptions()).items] == [
        "kept"]
    last = copy.deepcopy(registry.get(rt, "ns", "kept").obj)
    last["metadata"]["finalizers"] = []
    registry.update(rt, "ns", "kept", last, WriteOptions())
    reconcile_all(registry, NAME)
    assert registry.find(crds_of(registry), None, NAME) is None
    assert registry.resources.lookup(GROUP, "v1", "crontabs") is None


def test_a_definition_never_established_goes_at_once(registry: GenericStore) -> None:
    registry.create(crds_of(registry), None, crd(), WriteOptions())
    registry.delete(crds_of(registry), None, NAME, DeleteOptions())
    reconcile_all(registry, NAME)
    assert registry.find(crds_of(registry), None, NAME) is None


def test_definitions_already_in_storage_are_served_from_the_start(registry: GenericStore) -> None:
    establish(registry, crd())
    rt = row(registry, GROUP, "v1", "crontabs")
    registry.create(rt, "ns", _cron(), WriteOptions())
    # a server started on storage that holds them (e.g. read back from disk)
    resources = default_resources()
    resources.add_source(CustomResourceRows(registry.storage))
    restored = GenericStore(resources=resources, storage=registry.storage)
    again = row(restored, GROUP, "v1", "crontabs")
    assert restored.get(again, "ns", "a").obj["spec"]["image"] == "cron:1"


async def test_definitions_and_their_objects_come_back_from_a_data_directory(tmp_path) -> None:
    first = new_registry(clock=FakeClock(), storage=DurableStorage(tmp_path))
    namespaces = first.resources.lookup("", "v1", "namespaces")
    assert namespaces is not None
    first.create(namespaces, None, {"metadata": {"name": "ns"}}, WriteOptions())
    establish(first, crd())
    first.create(row(first, GROUP, "v1", "crontabs"), "ns", _cron(), WriteOptions())
    await first.storage.durable()
    assert isinstance(first.storage, DurableStorage)
    first.storage.close()

    # the rows come from the stored definition itself: nobody creates it again
    second = new_registry(clock=FakeClock(), storage=DurableStorage(tmp_path))
    try:
        rt = row(second, GROUP, "v1", "crontabs")
        assert second.get(rt, "ns", "a").obj["spec"]["image"] == "cron:1"
        second.create(rt, "ns", _cron("b"), WriteOptions())
    finally:
        assert isinstance(second.storage, DurableStorage)
        second.storage.close()


def test_protected_groups_get_the_api_approval_condition(registry: GenericStore) -> None:
    definition = crd(group="things.k8s.io", plural="widgets", kind="Widget")
    definition["metadata"]["annotations"] = {
        "api-approved.kubernetes.io": "unapproved, experimental"}
    stored = establish(registry, definition)
    assert _conditions(stored)["KubernetesAPIApprovalPolicyConformant"] == (
        "False", "UnapprovedAnnotation", 'not approved: "unapproved, experimental"')


def test_custom_resources_refuse_strategic_merge_patches(registry: GenericStore) -> None:
    from fakeapi.server.patching import apply_patch_request
    from fakeapi.server.routing import Target

    establish(registry, crd())
    rt = row(registry, GROUP, "v1", "crontabs")
    registry.create(rt, "ns", _cron(), WriteOptions())
    with pytest.raises(StatusError) as raised:
        apply_patch_request(registry, Target(rt, "ns", "a", ""),
                            content_type="application/strategic-merge-patch+json",
                            patch={"spec": {"image": "x"}}, options=WriteOptions())
    assert (raised.value.code, raised.value.status()["message"]) == (415, (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/apply-patch+yaml"))
    merged = apply_patch_request(registry, Target(rt, "ns", "a", ""),
                                 content_type="application/merge-patch+json",
                                 patch={"spec": {"image": "x"}}, options=WriteOptions())
    assert merged.obj["spec"]["image"] == "x"


def test_discovery_and_openapi_describe_the_custom_resources(registry: GenericStore) -> None:
    from fakeapi.server.discovery import aggregated_discovery
    from fakeapi.server.openapi import openapi_document

    establish(registry, crd(shortNames=["ct"], categories=["all"]))
    groups = aggregated_discovery(registry.resources, core=False)["items"]
    group = next(g for g in groups if g["metadata"]["name"] == GROUP)
    resource = group["versions"][0]["resources"][0]
    assert (resource["resource"], resource["shortNames"], resource["categories"]) == (
        "crontabs", ["ct"], ["all"])
    document = openapi_document(registry.resources, GROUP, "v1")
    assert document is not None
    schemas = document["components"]["schemas"]
    kind = schemas["com.example.stable.v1.CronTab"]
    assert kind["x-kubernetes-group-version-kind"] == [
        {"group": GROUP, "kind": "CronTab", "version": "v1"}]
    assert kind["properties"]["spec"]["properties"]["replicas"]["maximum"] == 10
    assert schemas["com.example.stable.v1.CronTabList"]["properties"]["items"]["items"][
        "allOf"] == [{"$ref": "#/components/schemas/com.example.stable.v1.CronTab"}]
    patch = document["paths"]["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/"
                               "{name}"]["patch"]
    assert "application/strategic-merge-patch+json" not in patch["requestBody"]["content"]


async def test_the_controllers_run_beside_the_server() -> None:
    registry = new_crd_registry()
    controllers = registry.post_start_hooks[0]
    assert isinstance(controllers, ApiExtensionsControllers)
    await registry.start_hooks()
    try:
        store = registry.storage.resource("customresourcedefinitions.apiextensions.k8s.io")
        watcher = store.watch(prefix="", predicate=None)
        registry.create(crds_of(registry), None, crd(), WriteOptions())
        established = False
        while not established:
            assert await watcher.wait(timeout=10)
            for _, obj, _ in watcher.drain():
                established = _conditions(obj).get("Established", ("",))[0] == "True"
        watcher.close()
        assert registry.resources.lookup(GROUP, "v1", "crontabs") is not None
    finally:
        await registry.stop_hooks()
