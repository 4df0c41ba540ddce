"""One kind, several served versions: the rows, the views and the table the releases choose.

A version that is not the storage version is a row converted from it: list, watch, get and
writes at that version read the same objects in its shape; validation speaks the storage
shape's paths; the storage row is served as it always was. ``--emulated-version`` and
``--runtime-config`` choose the rows; discovery lists every version with the storage version's
hash and prefers the most stable.
"""

from __future__ import annotations

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.features import KubernetesVersion
from fakeapi.registry.options import ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import (
    ResourceType,
    RuntimeConfigError,
    default_resources,
    parse_runtime_config,
)
from fakeapi.server import discovery

W = WriteOptions(field_manager="tests")
CLAIM_V1 = {
    "metadata": {"name": "c"},
    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
}


@pytest.fixture
def registry() -> GenericStore:
    return new_registry(clock=FakeClock())


def _claims(registry: GenericStore, version: str) -> ResourceType:
    rt = registry.resources.lookup("resource.k8s.io", version, "resourceclaims")
    assert rt is not None
    return rt


def test_a_write_at_v1_is_listed_and_watched_at_v1beta1_in_its_shape(registry: GenericStore):
    v1, v1beta1 = _claims(registry, "v1"), _claims(registry, "v1beta1")
    watch = registry.watch(
        v1beta1, "default", WatchOptions(resource_version=str(registry.resource_version))
    )
    registry.create(v1, "default", CLAIM_V1, W)
    [(event, seen, _)] = watch.drain()
    [listed] = registry.list(v1beta1, "default", ListOptions()).items
    for obj in (seen, listed.obj):
        assert obj["apiVersion"] == "resource.k8s.io/v1beta1"
        [request] = obj["spec"]["devices"]["requests"]
        assert request["deviceClassName"] == "gpu" and "exactly" not in request
    assert event == "ADDED"


def test_the_storage_version_is_served_without_a_converter(registry: GenericStore):
    assert _claims(registry, "v1").converter is None
    assert _claims(registry, "v1beta1").converter is not None
    stored = registry.create(_claims(registry, "v1"), "default", CLAIM_V1, W).obj
    assert stored["spec"] == CLAIM_V1["spec"] | {
        "devices": {"requests": [{"name": "gpu", "exactly": {
            "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]}
    }


def test_a_v1beta1_request_is_validated_once_with_the_storage_shapes_path(
    registry: GenericStore,
):
    body = {"metadata": {"name": "c"},
            "spec": {"devices": {"requests": [{"name": "gpu", "count": 1}]}}}
    with pytest.raises(StatusError) as info:
        registry.create(_claims(registry, "v1beta1"), "default", body, W)
    assert "spec.devices.requests[0].exactly.deviceClassName: Required value" in str(info.value)


def test_an_unknown_field_of_v1beta1_is_refused_in_v1beta1_terms(registry: GenericStore):
    body = {"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}
    with pytest.raises(StatusError, match=r'unknown field "spec.devices.requests\[0\].exactly"'):
        registry.create(
            _claims(registry, "v1beta1"), "default", body,
            WriteOptions(field_manager="tests", field_validation="Strict"),
        )


@pytest.mark.parametrize(
    ("minor", "present", "absent"),
    [
        (37, {("scheduling.k8s.io", "v1beta1"), ("scheduling.k8s.io", "v1alpha3")},
         {("scheduling.k8s.io", "v1alpha2")}),
        (36, {("scheduling.k8s.io", "v1alpha2"), ("resource.k8s.io", "v1alpha3")},
         {("scheduling.k8s.io", "v1beta1"), ("scheduling.k8s.io", "v1alpha3")}),
    ],
)
def test_each_release_serves_its_own_group_versions(
    minor: int, present: set[tuple[str, str]], absent: set[tuple[str, str]]
):
    served = set(default_resources(emulated_version=KubernetesVersion(1, minor)).group_versions())
    assert present <= served
    assert not absent & served


@pytest.mark.parametrize(
    ("config", "gone", "kept"),
    [
        ("resource.k8s.io/v1beta1=false", {("resource.k8s.io", "v1beta1")},
         {("resource.k8s.io", "v1beta2")}),
        ("api/alpha=false", {("scheduling.k8s.io", "v1alpha1"), ("resource.k8s.io", "v1alpha3")},
         {("scheduling.k8s.io", "v1beta1")}),
        ("api/all=false,v1=true", {("resource.k8s.io", "v1")}, {("", "v1")}),
        ("api/alpha=false,scheduling.k8s.io/v1alpha1", {("resource.k8s.io", "v1alpha3")},
         {("scheduling.k8s.io", "v1alpha1")}),
    ],
)
def test_runtime_config_switches_group_versions_as_kube_apiserver(
    config: str, gone: set[tuple[str, str]], kept: set[tuple[str, str]]
):
    served = set(default_resources(runtime_config=parse_runtime_config(config)).group_versions())
    assert not gone & served
    assert kept <= served


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("resource.k8s.io/v1beta1=maybe", "invalid value maybe for key resource.k8s.io/v1beta1"),
        ("resource", "runtime-config invalid key resource"),
    ],
)
def test_runtime_config_refuses_what_kube_apiserver_refuses(text: str, message: str):
    with pytest.raises(RuntimeConfigError, match=message):
        parse_runtime_config(text)


def test_discovery_lists_every_version_with_the_storage_hash_and_prefers_v1():
    table = default_resources()
    group = discovery.legacy_group(table, "resource.k8s.io")
    assert group is not None
    assert group["preferredVersion"]["version"] == "v1"
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta2", "v1beta1", "v1alpha3"]
    hashes = set()
    for version in ("v1", "v1beta2", "v1beta1"):
        listing = discovery.legacy_resource_list(table, "resource.k8s.io", version)
        assert listing is not None
        [claims] = [r for r in listing["resources"] if r["name"] == "resourceclaims"]
        hashes.add(claims["storageVersionHash"])
    assert len(hashes) == 1
