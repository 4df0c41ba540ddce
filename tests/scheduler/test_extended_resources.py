"""Extended resources backed by DRA (KEP-5004): a container's ``example.com/gpu: 1`` served from
ResourceSlices through a claim the scheduler makes, or by the node's device plugin where the node
advertises the resource."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakeapi.client import DEVICE_CLASSES, NODES, RESOURCE_CLAIMS, RESOURCE_SLICES
from fakeapi.rules.claims import EXTENDED_RESOURCE_ANNOTATION
from fakeapi.scheduler.plugins.dynamic_resources.extended import (
    DeviceClassResolver,
    is_dra_extended_resource_name,
    requests_and_mappings,
)

from .conftest import DRIVER, Cluster

Eventually = Callable[..., Any]
GPU = "example.com/gpu"


def _container(name: str, limits: dict[str, str], **extra: Any) -> dict[str, Any]:
    """A container with these limits (the API server makes them its requests too)."""
    return {"name": name, "image": "registry.example/app:1", "resources": {"limits": limits},
            **extra}


def _spec_container(name: str, requests: dict[str, str], **extra: Any) -> dict[str, Any]:
    """A container as stored: requests filled in."""
    return {"name": name, "resources": {"requests": requests, "limits": requests}, **extra}


async def _mapped_class(cluster: Cluster, name: str = DRIVER) -> None:
    await cluster.client.create(DEVICE_CLASSES, body={
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}],
                 "extendedResourceName": GPU},
    })


async def _claims(cluster: Cluster) -> list[dict[str, Any]]:
    return (await cluster.client.list(RESOURCE_CLAIMS, namespace="default")).items


async def _claims_are(cluster: Cluster, names: list[str]) -> bool:
    return [c["metadata"]["name"] for c in await _claims(cluster)] == names


async def test_a_mapped_extended_resource_is_allocated_through_a_claim_of_the_schedulers(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    await _mapped_class(cluster)
    await cluster.slice("node-2", 2)
    pod = await cluster.pod("app", containers=[_container("app", {GPU: "2"})])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("app")) == "node-2"
    [claim] = await _claims(cluster)
    meta = claim["metadata"]
    assert meta["name"].startswith("app-extended-resources-")
    assert meta["annotations"] == {EXTENDED_RESOURCE_ANNOTATION: "true"}
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "app",
                                        "uid": pod["metadata"]["uid"], "controller": True,
                                        "blockOwnerDeletion": True}]
    assert meta["finalizers"] == ["resource.kubernetes.io/delete-protection"]
    assert claim["spec"]["devices"]["requests"] == [{"name": "container-0-request-0", "exactly": {
        "deviceClassName": DRIVER, "allocationMode": "ExactCount", "count": 2}}]
    results = claim["status"]["allocation"]["devices"]["results"]
    assert sorted(r["device"] for r in results) == ["gpu-0", "gpu-1"]
    assert claim["status"]["reservedFor"] == [
        {"resource": "pods", "name": "app", "uid": pod["metadata"]["uid"]}]
    status = (await cluster.get_pod("app"))["status"]["extendedResourceClaimStatus"]
    assert status == {
        "requestMappings": [{"containerName": "app", "resourceName": GPU,
                             "requestName": "container-0-request-0"}],
        "resourceClaimName": meta["name"],
    }
    created = cluster.metrics.get_sample_value(
        "dynamic_resource_allocation_resourceclaim_creates_total",
        {"status": "success", "admin_access": "false"},
    )
    assert created == 1.0


async def test_a_node_advertising_the_resource_serves_it_by_device_plugin_without_a_claim(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.client.create(
        NODES,
        body={"metadata": {"name": "plugin-node"},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110", GPU: "1"}}},
    )
    await _mapped_class(cluster)
    await cluster.pod("app", containers=[_container("app", {GPU: "1"})])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("app")) == "plugin-node"
    assert await _claims(cluster) == []
    assert "extendedResourceClaimStatus" not in (await cluster.get_pod("app"))["status"]
    # the device plugin's one unit is now taken: a second pod does not fit
    await cluster.pod("second", containers=[_container("app", {GPU: "1"})])
    events = await eventually(lambda: cluster.events_about("second", reason="FailedScheduling"))
    assert events[0]["note"].startswith(f"0/1 nodes are available: 1 Insufficient {GPU}.")


async def test_an_unmapped_extended_resource_no_node_advertises_is_insufficient(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()  # no extendedResourceName: only its implicit name maps
    await cluster.slice("node-1", 2)
    await cluster.pod("app", containers=[_container("app", {GPU: "1"})])
    await cluster.start_scheduler()

    events = await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    assert events[0]["note"].startswith(f"0/1 nodes are available: 1 Insufficient {GPU}.")
    assert await _claims(cluster) == []


async def test_the_implicit_device_class_name_needs_no_mapping(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.device_class()
    await cluster.slice("node-1", 1)
    await cluster.pod("app", containers=[
        _container("app", {f"deviceclass.resource.kubernetes.io/{DRIVER}": "1"})])
    await cluster.start_scheduler()

    assert await eventually(lambda: cluster.node_of("app")) == "node-1"
    [claim] = await _claims(cluster)
    assert claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == DRIVER


async def test_two_pods_never_get_the_same_device_through_extended_resources(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await _mapped_class(cluster)
    await cluster.slice("node-1", 1)
    for name in ("a", "b"):
        await cluster.pod(name, containers=[_container("app", {GPU: "1"})])
    await cluster.start_scheduler()

    async def one_bound_one_waiting() -> tuple[list[str], list[dict[str, Any]]] | None:
        bound = [name for name in ("a", "b") if await cluster.node_of(name)]
        waiting = [e for name in ("a", "b") if name not in bound
                   for e in await cluster.events_about(name, reason="FailedScheduling")]
        return (bound, waiting) if bound and waiting else None

    bound, waiting = await eventually(one_bound_one_waiting)
    assert len(bound) == 1
    assert waiting[0]["note"].startswith("0/1 nodes are available: 1 cannot allocate all claims.")
    [claim] = await _claims(cluster)
    assert claim["metadata"]["ownerReferences"][0]["name"] == bound[0]


async def test_a_claim_left_by_an_earlier_attempt_is_deleted_and_the_pod_scheduled_afresh(
    cluster: Cluster, eventually: Eventually
) -> None:
    # the steps below watch the pod between attempts: no early pop from backoffQ
    cluster.feature_gates["SchedulerPopFromBackoffQ"] = False
    await cluster.node("node-1")
    await _mapped_class(cluster)
    await cluster.slice("node-1", 1)
    pod = await cluster.pod("app", containers=[_container("app", {GPU: "1"})])
    stale = await cluster.client.create(RESOURCE_CLAIMS, namespace="default", body={
        "metadata": {
            "name": "app-extended-resources-old",
            "annotations": {EXTENDED_RESOURCE_ANNOTATION: "true"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "app",
                                 "uid": pod["metadata"]["uid"], "controller": True}],
        },
        "spec": {"devices": {"requests": [{"name": "container-0-request-0", "exactly": {
            "deviceClassName": DRIVER, "count": 1}}]}},
    })
    await cluster.start_scheduler()

    # every node answers "cannot schedule extended resource claim"; PostFilter deletes it,
    # and its deletion brings the pod back after the backoff
    await eventually(lambda: _claims_are(cluster, []))
    cluster.clock.advance(1.0)
    assert await eventually(lambda: cluster.node_of("app")) == "node-1"
    [claim] = await _claims(cluster)
    assert claim["metadata"]["uid"] != stale["metadata"]["uid"]
    assert claim["status"]["allocation"]


def test_request_names_count_init_containers_first_and_sorted_resource_names() -> None:
    resolver = _resolver({DRIVER: GPU})
    pod = {"spec": {
        "initContainers": [_spec_container("setup", {GPU: "2"})],
        "containers": [_spec_container("app", {"cpu": "1", GPU: "1"}),
                       _spec_container("side", {"cpu": "1"})],
    }}
    made = requests_and_mappings(pod, [GPU], resolver)
    # the init container runs before "app" starts: it borrows app's device, asks for one more
    assert [(r["name"], r["exactly"]["count"]) for r in made.requests] == [
        ("container-0-request-0", 1), ("container-1-request-1", 1)]
    assert [(m["containerName"], m["requestName"]) for m in made.mappings] == [
        ("app", "container-1-request-1"),
        ("setup", "container-1-request-1"),
        ("setup", "container-0-request-0"),
    ]


def test_init_containers_share_the_largest_request_and_sidecars_keep_their_own() -> None:
    resolver = _resolver({DRIVER: GPU})
    pod = {"spec": {
        "initContainers": [
            _spec_container("first", {GPU: "1"}),
            _spec_container("second", {GPU: "3"}),
            _spec_container("sidecar", {GPU: "1"}, restartPolicy="Always"),
        ],
        "containers": [_spec_container("app", {GPU: "1"})],
    }}
    made = requests_and_mappings(pod, [GPU], resolver)
    # "second" borrows the sidecar's and app's devices and needs one more; "first" fits in those
    assert [(r["name"], r["exactly"]["count"]) for r in made.requests] == [
        ("container-1-request-0", 1), ("container-2-request-0", 1), ("container-3-request-0", 1)]
    assert ("first", "container-2-request-0") in [
        (m["containerName"], m["requestName"]) for m in made.mappings]


def test_extended_resource_names_as_upstream() -> None:
    assert is_dra_extended_resource_name(GPU)
    assert is_dra_extended_resource_name("deviceclass.resource.kubernetes.io/gpu")
    assert not is_dra_extended_resource_name("cpu")
    assert not is_dra_extended_resource_name("hugepages-2Mi")
    assert not is_dra_extended_resource_name("kubernetes.io/something")
    assert not is_dra_extended_resource_name("requests.example.com/gpu")


def test_the_newest_class_declaring_a_name_serves_it_and_a_deleted_one_stops() -> None:
    informer = _FakeInformer()
    resolver = DeviceClassResolver(informer)  # type: ignore[arg-type]
    older = _class("older", GPU, "2026-01-01T00:00:00Z")
    newer = _class("newer", GPU, "2026-01-02T00:00:00Z")
    informer.add(older)
    informer.add(newer)
    assert resolver.class_for(GPU) == "newer"
    assert resolver.class_for("deviceclass.resource.kubernetes.io/older") == "older"
    informer.delete(newer)
    assert resolver.class_for(GPU) == "older"
    assert resolver.class_for("deviceclass.resource.kubernetes.io/newer") is None


def _class(name: str, extended: str, created: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "creationTimestamp": created},
            "spec": {"extendedResourceName": extended}}


class _FakeInformer:
    """Just enough of an informer to feed handlers."""

    def __init__(self) -> None:
        self.handlers: list[dict[str, Any]] = []

    def add_handler(self, **handlers: Any) -> None:
        self.handlers.append(handlers)

    def add(self, obj: dict[str, Any]) -> None:
        for h in self.handlers:
            h["on_add"](obj)

    def delete(self, obj: dict[str, Any]) -> None:
        for h in self.handlers:
            h["on_delete"](obj)


def _resolver(mapping: dict[str, str]) -> DeviceClassResolver:
    informer = _FakeInformer()
    resolver = DeviceClassResolver(informer)  # type: ignore[arg-type]
    for name, extended in mapping.items():
        informer.add(_class(name, extended, "2026-01-01T00:00:00Z"))
    return resolver



async def test_a_pod_with_a_claim_and_an_extended_resource_gets_both_on_one_node(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.node("node-2")
    await _mapped_class(cluster)
    await cluster.slice("node-1", 1)
    await cluster.slice("node-2", 2)
    await cluster.claim("mine")
    container = _container("app", {GPU: "1"})
    container["resources"]["claims"] = [{"name": "mine"}]
    await cluster.pod("app", containers=[container],
                      resourceClaims=[{"name": "mine", "resourceClaimName": "mine"}])
    await cluster.start_scheduler()

    # node-1 has one device for two: only node-2 fits both claims
    assert await eventually(lambda: cluster.node_of("app")) == "node-2"
    claims = {c["metadata"]["name"]: c for c in await _claims(cluster)}
    assert len(claims) == 2
    devices = [r["device"] for c in claims.values()
               for r in c["status"]["allocation"]["devices"]["results"]]
    assert sorted(devices) == ["gpu-0", "gpu-1"]


async def test_a_failed_binding_deletes_the_extended_resource_claim(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await _mapped_class(cluster)
    await cluster.client.create(RESOURCE_SLICES, body={
        "metadata": {"name": "attached"},
        "spec": {
            "driver": DRIVER, "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", "bindingConditions": ["Attached"],
                         "bindingFailureConditions": ["AttachFailed"]}],
        },
    })
    await cluster.pod("app", containers=[_container("app", {GPU: "1"})])
    await cluster.start_scheduler()

    async def allocated() -> dict[str, Any] | None:
        claims = await _claims(cluster)
        return claims[0] if claims and claims[0].get("status", {}).get("allocation") else None

    claim = await eventually(allocated)
    claim["status"]["devices"] = [{
        "driver": DRIVER, "pool": "node-1", "device": "gpu-0",
        "conditions": [{"type": "AttachFailed", "status": "True", "reason": "NoPath",
                        "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    }]
    await cluster.client.update_status(RESOURCE_CLAIMS, body=claim)

    await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))
    # Unreserve deleted the claim PreBind made (the next attempt makes another)
    uid = claim["metadata"]["uid"]
    await eventually(lambda: _uid_gone(cluster, uid))
    assert await cluster.node_of("app") is None


async def _uid_gone(cluster: Cluster, uid: str) -> bool:
    return all(c["metadata"]["uid"] != uid for c in await _claims(cluster))


async def test_a_device_class_mapping_the_resource_wakes_the_waiting_pod(
    cluster: Cluster, eventually: Eventually
) -> None:
    await cluster.node("node-1")
    await cluster.slice("node-1", 1)
    await cluster.pod("app", containers=[_container("app", {GPU: "1"})])
    await cluster.start_scheduler()
    await eventually(lambda: cluster.events_about("app", reason="FailedScheduling"))

    await _mapped_class(cluster)
    cluster.clock.advance(1.0)  # past the backoff
    assert await eventually(lambda: cluster.node_of("app")) == "node-1"
