"""The official ``kubernetes`` Python client (37.x) against a running ``fakeapi serve``: typed CRUD
for core and DRA kinds, CustomObjectsApi for scheduling.k8s.io/v1alpha1, paging, watches that
resume from a resourceVersion, and 410 Expired from a server with a tiny watch history.

The client deserializes responses into generated pydantic models, so a response of the wrong shape
(e.g. a Status where the object is expected) fails here as a ValidationError.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator

import httpx
import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

pytestmark = pytest.mark.e2e

_ns_counter = itertools.count()


@pytest.fixture
def namespace(api_client) -> Iterator[str]:
    name = f"py-{next(_ns_counter)}"
    client.CoreV1Api(api_client).create_namespace({"metadata": {"name": name}})
    yield name


def _claim_body(name: str) -> dict[str, object]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    }


def test_configmap_crud_round_trip(api_client, namespace):
    core = client.CoreV1Api(api_client)
    created = core.create_namespaced_config_map(
        namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg"), data={"a": "1"}))
    assert isinstance(created, client.V1ConfigMap)
    assert created.metadata.uid and created.metadata.resource_version.isdigit()
    assert created.metadata.creation_timestamp is not None

    read = core.read_namespaced_config_map("cfg", namespace)
    assert read.data == {"a": "1"} and read.metadata.uid == created.metadata.uid

    read.data["b"] = "2"
    replaced = core.replace_namespaced_config_map("cfg", namespace, read)
    assert replaced.data == {"a": "1", "b": "2"}
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)

    patched = core.patch_namespaced_config_map(
        "cfg", namespace, {"metadata": {"labels": {"x": "y"}}})
    assert patched.metadata.labels == {"x": "y"} and patched.data == {"a": "1", "b": "2"}

    listed = core.list_namespaced_config_map(namespace, label_selector="x=y")
    assert [c.metadata.name for c in listed.items] == ["cfg"]

    deleted = core.delete_namespaced_config_map("cfg", namespace)
    assert deleted["status"] == "Success" and deleted["details"]["name"] == "cfg"
    with pytest.raises(ApiException) as err:
        core.read_namespaced_config_map("cfg", namespace)
    assert err.value.status == 404
    body = json.loads(err.value.body)
    assert body["reason"] == "NotFound" and body["message"] == 'configmaps "cfg" not found'


def test_pod_crud_with_status_subresource_and_delete_returning_pod(api_client, namespace):
    core = client.CoreV1Api(api_client)
    pod = client.V1Pod(
        metadata=client.V1ObjectMeta(name="worker", labels={"app": "w"}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="img")]),
    )
    created = core.create_namespaced_pod(namespace, pod)
    assert created.status.phase == "Pending"
    assert created.spec.restart_policy == "Always"  # defaulted by the server

    status = core.patch_namespaced_pod_status(
        "worker", namespace, {"status": {"conditions": [{"type": "Ready", "status": "True"}]}})
    assert [(c.type, c.status) for c in status.status.conditions] == [("Ready", "True")]
    assert core.read_namespaced_pod_status("worker", namespace).status.conditions[0].type == "Ready"

    listed = core.list_pod_for_all_namespaces(field_selector=f"metadata.namespace={namespace}")
    assert [p.metadata.name for p in listed.items] == ["worker"]

    deleted = core.delete_namespaced_pod("worker", namespace)
    assert isinstance(deleted, client.V1Pod) and deleted.metadata.name == "worker"
    assert core.list_namespaced_pod(namespace).items == []


def test_node_crud_and_delete_returns_status(api_client):
    core = client.CoreV1Api(api_client)
    created = core.create_node({"metadata": {"name": "py-node-1", "labels": {"pool": "a"}}})
    assert isinstance(created, client.V1Node)
    try:
        patched = core.patch_node("py-node-1", {"metadata": {"labels": {"pool": "b"}}})
        assert patched.metadata.labels == {"pool": "b"}
        assert [n.metadata.name for n in core.list_node(label_selector="pool=b").items] \
            == ["py-node-1"]
    finally:
        deleted = core.delete_node("py-node-1")
    assert deleted["kind"] == "Status" and deleted["status"] == "Success"
    assert deleted["details"] == {"name": "py-node-1", "kind": "nodes",
                                  "uid": created.metadata.uid}


def test_resource_claim_crud_and_delete_deserializes_into_claim(api_client, namespace):
    resource = client.ResourceV1Api(api_client)
    created = resource.create_namespaced_resource_claim(namespace, _claim_body("gpu-claim"))
    assert isinstance(created, client.ResourceV1ResourceClaim)
    assert created.spec.devices.requests[0].exactly.device_class_name == "gpu.example.com"
    assert created.spec.devices.requests[0].exactly.allocation_mode == "ExactCount"  # defaulted

    patched = resource.patch_namespaced_resource_claim(
        "gpu-claim", namespace, {"metadata": {"annotations": {"note": "x"}}})
    assert patched.metadata.annotations == {"note": "x"}
    listed = resource.list_namespaced_resource_claim(namespace)
    assert [c.metadata.name for c in listed.items] == ["gpu-claim"]

    # as upstream, a resourceclaim DELETE returns the object, which the client decodes into
    # ResourceV1ResourceClaim (a Status here would raise a pydantic ValidationError)
    deleted = resource.delete_namespaced_resource_claim("gpu-claim", namespace)
    assert isinstance(deleted, client.ResourceV1ResourceClaim)
    assert deleted.metadata.name == "gpu-claim" and deleted.metadata.uid == created.metadata.uid
    with pytest.raises(ApiException) as err:
        resource.read_namespaced_resource_claim("gpu-claim", namespace)
    assert err.value.status == 404
    assert json.loads(err.value.body)["details"] == {
        "name": "gpu-claim", "group": "resource.k8s.io", "kind": "resourceclaims"}


def test_resource_claim_with_finalizer_delete_returns_claim_being_deleted(api_client, namespace):
    resource = client.ResourceV1Api(api_client)
    body = _claim_body("held")
    body["metadata"] = {"name": "held", "finalizers": ["example.com/hold"]}
    resource.create_namespaced_resource_claim(namespace, body)
    pending = resource.delete_namespaced_resource_claim("held", namespace)
    assert isinstance(pending, client.ResourceV1ResourceClaim)
    assert pending.metadata.deletion_timestamp is not None
    assert resource.read_namespaced_resource_claim("held", namespace).metadata.finalizers \
        == ["example.com/hold"]
    resource.patch_namespaced_resource_claim("held", namespace, {"metadata": {"finalizers": None}})
    with pytest.raises(ApiException) as err:
        resource.read_namespaced_resource_claim("held", namespace)
    assert err.value.status == 404


def test_device_class_crud(api_client):
    resource = client.ResourceV1Api(api_client)
    name = "py-gpu.example.com"
    created = resource.create_device_class({
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    })
    assert isinstance(created, client.V1DeviceClass)
    created.spec.selectors[0].cel.expression = 'device.driver == "other.example.com"'
    replaced = resource.replace_device_class(name, created)
    assert replaced.spec.selectors[0].cel.expression == 'device.driver == "other.example.com"'
    assert replaced.metadata.generation == 2
    assert name in [d.metadata.name for d in resource.list_device_class().items]
    deleted = resource.delete_device_class(name)
    assert isinstance(deleted, client.V1DeviceClass) and deleted.metadata.name == name
    assert name not in [d.metadata.name for d in resource.list_device_class().items]


def test_workload_crud_through_custom_objects_api(api_client, namespace):
    custom = client.CustomObjectsApi(api_client)
    gvp = ("scheduling.k8s.io", "v1alpha1")
    body = {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "training"},
        "spec": {"podGroupTemplates": [{"name": "workers", "policy": {"gang": {"minCount": 4}}}]},
    }
    created = custom.create_namespaced_custom_object(*gvp, namespace, "workloads", body)
    assert created["kind"] == "Workload" and created["metadata"]["uid"]
    got = custom.get_namespaced_custom_object(*gvp, namespace, "workloads", "training")
    assert got["spec"]["podGroupTemplates"][0]["policy"] == {"gang": {"minCount": 4}}
    patched = custom.patch_namespaced_custom_object(
        *gvp, namespace, "workloads", "training", {"metadata": {"labels": {"team": "ml"}}})
    assert patched["metadata"]["labels"] == {"team": "ml"}
    patched = custom.patch_namespaced_custom_object(
        *gvp, namespace, "workloads", "training",
        [{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}],
        _content_type="application/json-patch+json")
    assert patched["metadata"]["annotations"] == {"a": "b"}
    listed = custom.list_namespaced_custom_object(*gvp, namespace, "workloads")
    assert listed["kind"] == "WorkloadList"
    assert [w["metadata"]["name"] for w in listed["items"]] == ["training"]
    deleted = custom.delete_namespaced_custom_object(*gvp, namespace, "workloads", "training")
    assert deleted["status"] == "Success"
    assert deleted["details"]["group"] == "scheduling.k8s.io"
    assert deleted["details"]["kind"] == "workloads"


def test_list_paging_with_limit_and_continue(api_client, namespace):
    core = client.CoreV1Api(api_client)
    names = [f"item-{i}" for i in range(7)]
    for name in names:
        core.create_namespaced_config_map(namespace, {"metadata": {"name": name}})
    seen: list[str] = []
    token = None
    pages = 0
    while True:
        page = core.list_namespaced_config_map(namespace, limit=3, _continue=token)
        pages += 1
        seen += [c.metadata.name for c in page.items]
        token = page.metadata._continue
        if not token:
            break
        assert page.metadata.remaining_item_count == len(names) - len(seen)
        if pages == 1:  # a write between pages does not show up: pages come from one snapshot
            core.create_namespaced_config_map(namespace, {"metadata": {"name": "item-9-late"}})
    assert pages == 3
    assert seen == names
    assert len(core.list_namespaced_config_map(namespace).items) == len(names) + 1


def test_watch_resumes_from_resource_version_with_only_later_events(api_client, namespace):
    core = client.CoreV1Api(api_client)
    first = core.create_namespaced_config_map(namespace, {"metadata": {"name": "first"}})
    resume_from = first.metadata.resource_version
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "second"}})
    core.patch_namespaced_config_map("second", namespace, {"data": {"k": "v"}})
    core.delete_namespaced_config_map("first", namespace)

    w = watch.Watch()
    seen: list[tuple[str, str, str]] = []
    rvs: list[int] = []
    for event in w.stream(core.list_namespaced_config_map, namespace,
                          resource_version=resume_from, timeout_seconds=10):
        obj = event["object"]
        assert isinstance(obj, client.V1ConfigMap)
        seen.append((event["type"], obj.metadata.name, json.dumps(obj.data)))
        rvs.append(int(obj.metadata.resource_version))
        if len(seen) == 3:  # history replayed; now a live change on the open stream
            core.create_namespaced_config_map(namespace, {"metadata": {"name": "third"}})
        if len(seen) == 4:
            w.stop()
    assert seen == [
        ("ADDED", "second", "null"),
        ("MODIFIED", "second", '{"k": "v"}'),
        ("DELETED", "first", "null"),
        ("ADDED", "third", "null"),
    ]
    assert rvs == sorted(rvs) and rvs[0] > int(resume_from)
    assert w.resource_version == str(rvs[-1])


def test_label_selector_watch_turns_transitions_into_added_and_deleted(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "a", "labels": {"x": "1"}}})
    start = core.list_namespaced_config_map(namespace).metadata.resource_version
    left = core.patch_namespaced_config_map("a", namespace, {"metadata": {"labels": {"x": "2"}}})
    core.patch_namespaced_config_map("a", namespace, {"data": {"k": "v"}})  # not matching: unsent
    back = core.patch_namespaced_config_map("a", namespace, {"metadata": {"labels": {"x": "1"}}})
    w = watch.Watch()
    events = []
    for event in w.stream(core.list_namespaced_config_map, namespace, label_selector="x=1",
                          resource_version=start, timeout_seconds=10):
        events.append(event)
        if len(events) == 2:
            w.stop()
    (gone, added) = events
    # leaving the selection is DELETED with the last matching state at the new resourceVersion
    assert gone["type"] == "DELETED"
    assert gone["object"].metadata.labels == {"x": "1"} and gone["object"].data is None
    assert gone["object"].metadata.resource_version == left.metadata.resource_version
    assert added["type"] == "ADDED"
    assert added["object"].data == {"k": "v"}
    assert added["object"].metadata.resource_version == back.metadata.resource_version


def test_watch_resource_claims_with_typed_return_type(api_client, namespace):
    resource = client.ResourceV1Api(api_client)
    listed = resource.list_namespaced_resource_claim(namespace)
    resource.create_namespaced_resource_claim(namespace, _claim_body("watched"))
    w = watch.Watch(return_type=client.ResourceV1ResourceClaim)
    events = []
    for event in w.stream(resource.list_namespaced_resource_claim, namespace,
                          resource_version=listed.metadata.resource_version, timeout_seconds=10):
        events.append(event)
        w.stop()
    assert events[0]["type"] == "ADDED"
    assert isinstance(events[0]["object"], client.ResourceV1ResourceClaim)
    assert events[0]["object"].metadata.name == "watched"


def test_watch_list_sends_initial_state_then_annotated_bookmark(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "one"}})
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "two"}})
    w = watch.Watch()
    events = []
    for event in w.stream(core.list_namespaced_config_map, namespace, send_initial_events=True,
                          resource_version_match="NotOlderThan", allow_watch_bookmarks=True,
                          timeout_seconds=10):
        events.append(event)
        if event["type"] == "BOOKMARK":
            w.stop()
    assert [(e["type"], e["raw_object"]["metadata"].get("name")) for e in events] == [
        ("ADDED", "one"), ("ADDED", "two"), ("BOOKMARK", None)]
    mark = events[-1]["raw_object"]
    assert mark["kind"] == "ConfigMap" and mark["apiVersion"] == "v1"
    assert mark["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    newest = max(int(e["object"].metadata.resource_version) for e in events[:-1])
    assert int(mark["metadata"]["resourceVersion"]) >= newest
    assert w.resource_version == mark["metadata"]["resourceVersion"]  # the client resumes here


# --- 410 Expired: a server that keeps only a few events per resource -----------------------


@pytest.fixture
def small_api(small_history_server) -> Iterator[client.ApiClient]:
    api = config.new_client_from_config(config_file=str(small_history_server.kubeconfig))
    yield api
    api.close()


def _churn(core: client.CoreV1Api, namespace: str, count: int) -> str:
    """Create ``count`` configmaps; return the resourceVersion of the first."""
    first = None
    for i in range(count):
        cm = core.create_namespaced_config_map(namespace, {"metadata": {"name": f"churn-{i}"}})
        first = first or cm.metadata.resource_version
    assert first is not None
    return first


#: comfortably more events than the small-history server retains per resource
CHURN = 12


def test_watch_from_compacted_resource_version_is_410_expired_then_list_and_watch_recovers(
    small_api, small_history_server
):
    core = client.CoreV1Api(small_api)
    namespace = "expiry-watch"
    core.create_namespace({"metadata": {"name": namespace}})
    first_rv = _churn(core, namespace, CHURN)
    url = f"{small_history_server.url}/api/v1/namespaces/{namespace}/configmaps"

    # on the wire: HTTP 200, then exactly one ERROR event carrying a 410 Expired Status
    with httpx.stream("GET", url, params={"watch": "true", "resourceVersion": first_rv},
                      timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        events = [json.loads(line) for line in response.iter_lines() if line]
    assert [e["type"] for e in events] == ["ERROR"]
    status = events[0]["object"]
    message = status.pop("message")
    assert status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "reason": "Expired", "code": 410}
    match = re.fullmatch(rf"too old resource version: {first_rv} \((\d+)\)", message)
    assert match and int(match.group(1)) > int(first_rv), message

    # the kubernetes client turns it into ApiException(410) (no retry with timeout_seconds)
    with pytest.raises(ApiException) as err:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, namespace,
                                      resource_version=first_rv, timeout_seconds=5):
            pytest.fail("no event may be delivered from an expired resourceVersion")
    assert err.value.status == 410
    assert err.value.reason.startswith(f"Expired: too old resource version: {first_rv} (")

    # recovery: a fresh list, then a watch from the list's resourceVersion
    listed = core.list_namespaced_config_map(namespace)
    assert len(listed.items) == CHURN
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "after-recovery"}})
    w = watch.Watch()
    seen = []
    for event in w.stream(core.list_namespaced_config_map, namespace,
                          resource_version=listed.metadata.resource_version, timeout_seconds=10):
        seen.append((event["type"], event["object"].metadata.name))
        w.stop()
    assert seen == [("ADDED", "after-recovery")]


def test_continue_token_older_than_history_is_410_expired(small_api):
    core = client.CoreV1Api(small_api)
    namespace = "expiry-list"
    core.create_namespace({"metadata": {"name": namespace}})
    _churn(core, namespace, 4)
    page = core.list_namespaced_config_map(namespace, limit=2)
    assert page.metadata._continue
    for i in range(CHURN):  # every retained event is now newer than the token's snapshot
        core.patch_namespaced_config_map("churn-0", namespace, {"data": {"n": str(i)}})
    with pytest.raises(ApiException) as err:
        core.list_namespaced_config_map(namespace, limit=2, _continue=page.metadata._continue)
    assert err.value.status == 410
    body = json.loads(err.value.body)
    assert body["reason"] == "Expired"
    assert body["message"].startswith("The provided continue parameter is too old")
    # the inconsistent-continue token the message points to reads the rest of the list
    rest = core.list_namespaced_config_map(namespace, limit=2,
                                           _continue=body["metadata"]["continue"])
    assert len(rest.items) == 2
    fresh = core.list_namespaced_config_map(namespace)  # and a fresh list still works
    assert len(fresh.items) == 4


def _pod_log_error(core, name: str, namespace: str, **options: object) -> tuple[int, str]:
    with pytest.raises(ApiException) as raised:
        core.read_namespaced_pod_log(name, namespace, **options)
    return raised.value.status, json.loads(raised.value.body)["message"]


def test_pod_log_picks_the_container_and_says_why_there_is_no_log(api_client, namespace):
    core = client.CoreV1Api(api_client)
    containers = [{"name": "app", "image": "app:1"}, {"name": "proxy", "image": "proxy:1"}]
    core.create_namespaced_pod(namespace, {"metadata": {"name": "pair"},
                                           "spec": {"containers": containers}})
    # not on a node yet: nothing to read, and nothing wrong
    assert core.read_namespaced_pod_log("pair", namespace, container="app") == ""
    assert _pod_log_error(core, "pair", namespace) == (
        400, "a container name must be specified for pod pair, choose one of: [app proxy]")
    assert _pod_log_error(core, "pair", namespace, container="db") == (
        400, "container db is not valid for pod pair")

    core.create_namespaced_pod(namespace, {"metadata": {"name": "placed"}, "spec": {
        "nodeName": "node-1", "containers": [{"name": "app", "image": "app:1"}]}})
    assert _pod_log_error(core, "placed", namespace) == (
        400, 'container "app" in pod "placed" is waiting to start: ContainerCreating')
    pod = core.read_namespaced_pod("placed", namespace)
    pod.status.container_statuses = [client.V1ContainerStatus(
        name="app", image="app:1", image_id="", ready=True, restart_count=0,
        state=client.V1ContainerState(running=client.V1ContainerStateRunning()))]
    core.replace_namespaced_pod_status("placed", namespace, pod)
    assert core.read_namespaced_pod_log("placed", namespace) == ""  # simulated: prints nothing
    assert _pod_log_error(core, "placed", namespace, previous=True) == (
        400, 'previous terminated container "app" in pod "placed" not found')
    with pytest.raises(ApiException) as raised:
        core.read_namespaced_pod_log("missing", namespace)
    assert raised.value.status == 404


def test_pod_log_options_are_validated_as_upstream(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_pod(namespace, {"metadata": {"name": "logs"}, "spec": {
        "containers": [{"name": "app", "image": "app:1"}]}})
    invalid = 'PodLogOptions "logs" is invalid: '
    assert _pod_log_error(core, "logs", namespace, tail_lines=-5) == (
        422, invalid + "tailLines: Invalid value: -5: must be greater than or equal to 0")
    assert _pod_log_error(core, "logs", namespace, limit_bytes=0) == (
        422, invalid + "limitBytes: Invalid value: 0: must be greater than 0")
    assert _pod_log_error(core, "logs", namespace, since_seconds=0) == (
        422, invalid + "sinceSeconds: Invalid value: 0: must be greater than 0")
    assert core.read_namespaced_pod_log("logs", namespace, tail_lines=10, since_seconds=5) == ""


def test_discovery_lists_pod_log_as_a_get_only_subresource(api_client):
    resources = client.CoreV1Api(api_client).get_api_resources().resources
    [log] = [r for r in resources if r.name == "pods/log"]
    assert (log.kind, log.verbs, log.namespaced) == ("Pod", ["get"], True)


def test_a_write_without_a_field_manager_is_owned_by_the_user_agent(api_client, namespace):
    """As upstream's managerOrUserAgent: the official client sends no fieldManager, so its
    writes belong to its User-Agent's first word."""
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "owned"},
                                                  "data": {"a": "1"}})
    created = core.read_namespaced_config_map("owned", namespace)
    managers = {(m.manager, m.operation) for m in created.metadata.managed_fields}
    assert managers == {("OpenAPI-Generator", "Update")}
