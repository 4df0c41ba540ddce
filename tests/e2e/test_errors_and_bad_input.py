"""Errors and bad input against a running ``fakeapi serve``: the Status shapes of 400/404/409/413/
415/422, the lines real kubectl builds from them, and — after every rejected request — proof that
nothing stored changed (the global resourceVersion, which any write anywhere advances, and the
target object's bytes) and that the server still answers.

Raw requests go through httpx so the exact status code, body and ``Content-Type`` are visible.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ..support.protobuf_wire import envelope, ld, vi

pytestmark = pytest.mark.e2e

CM_PATH = "/api/v1/namespaces/{ns}/configmaps"
CLAIM_PATH = "/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims"


@dataclass
class Api:
    """httpx bound to the server and to the test's namespace, with a stored sentinel object."""

    http: httpx.Client
    namespace: str
    sentinel: bytes = b""

    def path(self, template: str, *rest: str) -> str:
        return "/".join([template.format(ns=self.namespace), *rest])

    def global_rv(self) -> int:
        response = self.http.get(self.path(CM_PATH), params={"limit": "1"})
        assert response.status_code == 200
        return int(response.json()["metadata"]["resourceVersion"])

    def read_sentinel(self) -> bytes:
        response = self.http.get(self.path(CM_PATH, "sentinel"))
        assert response.status_code == 200
        return response.content


@pytest.fixture
def api(kubectl) -> Iterator[Api]:
    with httpx.Client(base_url=kubectl.server.url, timeout=10) as http:
        a = Api(http=http, namespace=kubectl.namespace)
        created = http.post(a.path(CM_PATH), json={
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "sentinel", "labels": {"keep": "me"}}, "data": {"v": "1"}})
        assert created.status_code == 201
        a.sentinel = a.read_sentinel()
        yield a


@pytest.fixture
def unchanged(api: Api) -> Iterator[None]:
    """Asserts at the end of the test that nothing was stored and the server still answers."""
    before = api.global_rv()
    yield
    assert api.global_rv() == before, "a rejected request changed stored state"
    assert api.read_sentinel() == api.sentinel, "the sentinel object changed"
    ready = api.http.get("/readyz")
    assert (ready.status_code, ready.text) == (200, "ok")


def _status(response: httpx.Response, code: int, reason: str) -> dict[str, Any]:
    """Check the common Status shape and return the body."""
    assert response.status_code == code, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["kind"] == "Status" and body["apiVersion"] == "v1"
    assert body["metadata"] == {} and body["status"] == "Failure"
    assert (body["code"], body["reason"]) == (code, reason)
    return body


def _claim(name: str, **spec_extra: object) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
        "spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}, **spec_extra},
    }


# --- 404 -------------------------------------------------------------------------------------


def test_missing_object_is_404_with_plural_group_details(api, kubectl, unchanged):
    body = _status(api.http.get(api.path(CLAIM_PATH, "nope")), 404, "NotFound")
    assert body["message"] == 'resourceclaims.resource.k8s.io "nope" not found'
    assert body["details"] == {"name": "nope", "group": "resource.k8s.io", "kind": "resourceclaims"}
    core = _status(api.http.get(api.path(CM_PATH, "nope")), 404, "NotFound")
    assert core["message"] == 'configmaps "nope" not found'
    assert core["details"] == {"name": "nope", "kind": "configmaps"}
    proc = kubectl.run("get", "resourceclaim", "nope", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == \
        'Error from server (NotFound): resourceclaims.resource.k8s.io "nope" not found'


def test_create_in_missing_namespace_is_404_namespace_not_found(api, kubectl, unchanged):
    response = api.http.post("/api/v1/namespaces/no-such-ns/configmaps",
                             json={"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": "x"}})
    body = _status(response, 404, "NotFound")
    assert body["message"] == 'namespaces "no-such-ns" not found'
    assert body["details"] == {"name": "no-such-ns", "kind": "namespaces"}
    path = kubectl.write("f.yaml", {"apiVersion": "v1", "kind": "ConfigMap",
                                    "metadata": {"name": "x", "namespace": "no-such-ns"}})
    proc = kubectl.run("create", "-n", "no-such-ns", "-f", str(path), check=False,
                       namespaced=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == ('Error from server (NotFound): error when creating '
                                   f'"{path}": namespaces "no-such-ns" not found')


def test_unknown_url_is_404_could_not_find_requested_resource(api, unchanged):
    for url in ("/apis/resource.k8s.io/v1/namespaces/x/frobnicators", "/apis/nope.example/v1",
                "/api/v2"):
        body = _status(api.http.get(url), 404, "NotFound")
        assert body["message"] == "the server could not find the requested resource"
        assert body["details"] == {}


def test_pod_log_refuses_a_bad_flag_and_any_method_but_get(api):
    pods = f"/api/v1/namespaces/{api.namespace}/pods"
    created = api.http.post(pods, json={"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "quiet"}, "spec": {"containers": [{"name": "app", "image": "app:1"}]}})
    assert created.status_code == 201
    before = api.global_rv()
    log = f"{pods}/quiet/log"
    body = _status(api.http.get(log, params={"previous": "maybe"}), 400, "BadRequest")
    assert body["message"] == (
        'strconv.ParseBool: parsing "maybe": invalid syntax (parameter previous)')
    for method in ("PUT", "PATCH", "POST", "DELETE"):
        _status(api.http.request(method, log, json={}), 405, "MethodNotAllowed")
    assert api.http.get(log).text == ""  # on no node yet: an empty log
    assert api.global_rv() == before


# --- 409 -------------------------------------------------------------------------------------


def test_duplicate_create_is_409_already_exists(api, kubectl):
    path = kubectl.write("f.yaml", _claim("gpu-claim"))
    kubectl("create", "-f", str(path))
    before = api.global_rv()
    stored = api.http.get(api.path(CLAIM_PATH, "gpu-claim")).content
    body = _status(api.http.post(api.path(CLAIM_PATH), json=_claim("gpu-claim")),
                   409, "AlreadyExists")
    assert body["message"] == 'resourceclaims.resource.k8s.io "gpu-claim" already exists'
    assert body["details"] == {"name": "gpu-claim", "group": "resource.k8s.io",
                               "kind": "resourceclaims"}
    proc = kubectl.run("create", "-f", str(path), check=False)
    assert proc.stderr.strip() == (
        f'Error from server (AlreadyExists): error when creating "{path}": '
        'resourceclaims.resource.k8s.io "gpu-claim" already exists')
    assert api.global_rv() == before
    assert api.http.get(api.path(CLAIM_PATH, "gpu-claim")).content == stored


def test_stale_resource_version_is_409_conflict(api, kubectl):
    conflict_msg = ('Operation cannot be fulfilled on configmaps "sentinel": the object has been '
                    'modified; please apply your changes to the latest version and try again')
    stale = json.loads(api.sentinel)
    stale["metadata"]["resourceVersion"] = str(int(stale["metadata"]["resourceVersion"]) - 1)
    stale["data"] = {"v": "stale"}
    before = api.global_rv()
    body = _status(api.http.put(api.path(CM_PATH, "sentinel"), json=stale), 409, "Conflict")
    assert body["message"] == conflict_msg
    assert body["details"] == {"name": "sentinel", "kind": "configmaps"}
    # a patch carrying a stale resourceVersion is a precondition too
    body = _status(api.http.patch(
        api.path(CM_PATH, "sentinel"), headers={"Content-Type": "application/merge-patch+json"},
        content=json.dumps({"metadata": {"resourceVersion": stale["metadata"]["resourceVersion"]},
                            "data": {"v": "stale"}})), 409, "Conflict")
    assert body["message"] == conflict_msg
    path = kubectl.write("f.yaml", stale)
    proc = kubectl.run("replace", "-f", str(path), check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == \
        f'Error from server (Conflict): error when replacing "{path}": {conflict_msg}'
    assert api.global_rv() == before
    assert api.read_sentinel() == api.sentinel


# --- 422 -------------------------------------------------------------------------------------


def test_invalid_object_is_422_with_causes_and_kubectl_bullets(api, kubectl, unchanged):
    bad = _claim("claim-invalid")
    bad["spec"]["devices"]["requests"] = [{"exactly": {}}]
    body = _status(api.http.post(api.path(CLAIM_PATH), json=bad), 422, "Invalid")
    assert body["message"] == (
        'ResourceClaim.resource.k8s.io "claim-invalid" is invalid: ['
        "spec.devices.requests[0].name: Required value, "
        "spec.devices.requests[0].exactly.deviceClassName: Required value]")
    assert body["details"] == {
        "name": "claim-invalid", "group": "resource.k8s.io", "kind": "ResourceClaim",
        "causes": [
            {"reason": "FieldValueRequired", "message": "Required value",
             "field": "spec.devices.requests[0].name"},
            {"reason": "FieldValueRequired", "message": "Required value",
             "field": "spec.devices.requests[0].exactly.deviceClassName"},
        ]}
    proc = kubectl.run("create", "-f", str(kubectl.write("f.yaml", bad)), check=False)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        'The ResourceClaim "claim-invalid" is invalid: ',
        "* spec.devices.requests[0].name: Required value",
        "* spec.devices.requests[0].exactly.deviceClassName: Required value",
    ]


def test_failing_json_patch_operation_is_422_request_invalid(api, kubectl, unchanged):
    response = api.http.patch(
        api.path(CM_PATH, "sentinel"), headers={"Content-Type": "application/json-patch+json"},
        content='[{"op":"remove","path":"/data/missing"}]')
    body = _status(response, 422, "Invalid")
    assert "details" not in body or not body["details"].get("causes")
    proc = kubectl.run("patch", "configmap", "sentinel", "--type=json",
                       "-p", '[{"op":"remove","path":"/data/missing"}]', check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"The request is invalid: {body['message']}"


def test_apply_patch_without_field_manager_is_rejected(api, unchanged):
    # upstream validates PatchOptions first: 422 Invalid on PatchOptions.meta.k8s.io
    response = api.http.patch(
        api.path(CM_PATH, "sentinel"), headers={"Content-Type": "application/apply-patch+yaml"},
        content='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sentinel"}}')
    body = _status(response, 422, "Invalid")
    assert body["message"] == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: '
                               "Required value: is required for apply patch")


# --- 400: unknown fields, selectors, bodies, parameters -----------------------------------------


def test_strict_unknown_field_is_400_and_nothing_is_stored(api, kubectl, unchanged):
    doc = _claim("strict-claim", bogus=True)
    path = kubectl.write("f.yaml", doc)
    proc = kubectl.run("create", "-f", str(path), check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        f'Error from server (BadRequest): error when creating "{path}": ResourceClaim in version '
        '"v1" cannot be handled as a ResourceClaim: strict decoding error: '
        'unknown field "spec.bogus"')
    doc["spec"]["devices"]["requests"][0]["extra"] = 1  # reported in document order
    response = api.http.post(api.path(CLAIM_PATH), params={"fieldValidation": "Strict"}, json=doc)
    body = _status(response, 400, "BadRequest")
    assert body["message"] == (
        'ResourceClaim in version "v1" cannot be handled as a ResourceClaim: strict decoding '
        'error: unknown field "spec.devices.requests[0].extra", unknown field "spec.bogus"')
    assert api.http.get(api.path(CLAIM_PATH, "strict-claim")).status_code == 404


def test_warn_unknown_field_is_stored_without_it_and_warns(api, kubectl):
    response = api.http.post(api.path(CLAIM_PATH), params={"fieldValidation": "Warn"},
                             json=_claim("warned", bogus=True))
    assert response.status_code == 201
    assert response.headers.get_list("warning") == ['299 - "unknown field \\"spec.bogus\\""']
    assert "bogus" not in response.json()["spec"]
    stored = api.http.get(api.path(CLAIM_PATH, "warned")).json()
    assert "bogus" not in stored["spec"]
    proc = kubectl.run("create", "--validate=warn", "-f",
                       str(kubectl.write("f.yaml", _claim("warned-2", bogus=True))))
    assert proc.stdout.strip() == "resourceclaim.resource.k8s.io/warned-2 created"
    assert 'Warning: unknown field "spec.bogus"' in proc.stderr


def test_bad_label_selector_is_400(api, kubectl, unchanged):
    body = _status(api.http.get(api.path(CM_PATH), params={"labelSelector": "a in b"}),
                   400, "BadRequest")
    assert body["message"] == "unable to parse requirement: found 'b' expected: '('"
    proc = kubectl.run("get", "configmaps", "-l", "a in b", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match '
        "label selector \"a in b\", field selector \"\": unable to parse requirement: found 'b' "
        "expected: '('")


def test_unsupported_field_selector_is_400_field_label_not_supported(api, kubectl, unchanged):
    body = _status(api.http.get(api.path(CLAIM_PATH), params={"fieldSelector": "spec.foo=bar"}),
                   400, "BadRequest")
    # ResourceClaim has no field labels of its own: apimachinery's default conversion answers
    unknown = '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"'
    assert body["message"] == unknown
    assert "details" not in body or body["details"] in ({}, None)
    proc = kubectl.run("get", "resourceclaims", "--field-selector", "spec.foo=bar", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        'Error from server (BadRequest): Unable to find "resource.k8s.io/v1, '
        'Resource=resourceclaims" that match label selector "", field selector "spec.foo=bar": '
        + unknown)
    # the same selector on a watch is rejected up front, not as a stream
    watch = api.http.get(api.path(CLAIM_PATH),
                         params={"watch": "true", "fieldSelector": "spec.foo=bar"})
    _status(watch, 400, "BadRequest")


def test_malformed_json_body_is_400(api, unchanged):
    for method, url in (("POST", api.path(CM_PATH)), ("PUT", api.path(CM_PATH, "sentinel"))):
        response = api.http.request(method, url, content=b'{"metadata": {"name": "broken"',
                                    headers={"Content-Type": "application/json"})
        body = _status(response, 400, "BadRequest")
        assert "json" in body["message"].lower(), body["message"]
    for content in (b"", b"[1, 2]", b'"just a string"'):
        response = api.http.post(api.path(CM_PATH), content=content,
                                 headers={"Content-Type": "application/json"})
        _status(response, 400, "BadRequest")


def test_wrong_kind_or_api_version_in_body_is_400(api, unchanged):
    cases = [
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}},
         "the kind in the data (Pod) does not match the expected kind (ConfigMap)"),
        ({"apiVersion": "v2", "kind": "ConfigMap", "metadata": {"name": "x"}},
         "the API version in the data (v2) does not match the expected API version (v1)"),
    ]
    for doc, message in cases:
        body = _status(api.http.post(api.path(CM_PATH), json=doc), 400, "BadRequest")
        assert body["message"] == message
        body = _status(api.http.put(api.path(CM_PATH, "sentinel"),
                                    json={**doc, "metadata": {"name": "sentinel"}}),
                       400, "BadRequest")
        assert body["message"] == message
    claim = _claim("wrong-version")
    claim["apiVersion"] = "resource.k8s.io/v1beta1"
    body = _status(api.http.post(api.path(CLAIM_PATH), json=claim), 400, "BadRequest")
    assert body["message"] == ("the API version in the data (resource.k8s.io/v1beta1) does not "
                               "match the expected API version (resource.k8s.io/v1)")


def test_name_mismatch_on_put_is_400(api, unchanged):
    doc = json.loads(api.sentinel)
    doc["metadata"]["name"] = "other"
    body = _status(api.http.put(api.path(CM_PATH, "sentinel"), json=doc), 400, "BadRequest")
    assert body["message"] == \
        "the name of the object (other) does not match the name on the URL (sentinel)"
    assert api.http.get(api.path(CM_PATH, "other")).status_code == 404


def test_oversized_body_is_413(api, unchanged):
    big = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
           "data": {"blob": "x" * (3 * 1024 * 1024 + 1)}}
    body = _status(api.http.post(api.path(CM_PATH), json=big), 413, "RequestEntityTooLarge")
    assert "limit is 3145728" in body["message"]
    # also without a Content-Length (chunked upload): the server stops reading at the limit
    response = api.http.post(api.path(CM_PATH), content=_chunked(json.dumps(big).encode()),
                             headers={"Content-Type": "application/json"})
    _status(response, 413, "RequestEntityTooLarge")
    assert api.http.get(api.path(CM_PATH, "big")).status_code == 404


def _chunked(data: bytes, size: int = 65536) -> Iterator[bytes]:
    """An iterator body: httpx sends it with Transfer-Encoding: chunked, no Content-Length."""
    return iter([data[i:i + size] for i in range(0, len(data), size)])


def test_chunked_body_below_the_limit_is_read_whole(api):
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "chunky"},
           "data": {"blob": "x" * 600_000}}
    response = api.http.post(api.path(CM_PATH), content=_chunked(json.dumps(doc).encode()),
                             headers={"Content-Type": "application/json"})
    assert response.status_code == 201, response.text[:300]
    assert len(api.http.get(api.path(CM_PATH, "chunky")).json()["data"]["blob"]) == 600_000


@pytest.mark.parametrize(
    "params",
    [{"watch": "maybe"}, {"watch": "yes"},
     {"watch": "true", "allowWatchBookmarks": "maybe"},
     {"watch": "true", "sendInitialEvents": "2"}],
)
def test_bad_boolean_query_parameter_is_400(api, params, unchanged):
    response = api.http.get(api.path(CM_PATH), params=params, timeout=5)
    body = _status(response, 400, "BadRequest")
    bad = next(v for v in params.values() if v != "true")
    assert f'parsing "{bad}": invalid syntax' in body["message"], body["message"]


@pytest.mark.parametrize("value", ["1", "t", "T", "TRUE", "true", "True"])
def test_go_parse_bool_true_spellings_open_a_watch(api, value):
    with api.http.stream("GET", api.path(CM_PATH),
                         params={"watch": value, "timeoutSeconds": "1"}) as response:
        assert response.status_code == 200
        first = json.loads(next(response.iter_lines()))
    assert first["type"] == "ADDED" and first["object"]["metadata"]["name"] == "sentinel"


def test_unsupported_media_type_is_415(api, unchanged):
    response = api.http.post(api.path(CM_PATH), content=b"name: x",
                             headers={"Content-Type": "text/plain"})
    body = _status(response, 415, "UnsupportedMediaType")
    assert body["message"].startswith(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf")


def test_a_protobuf_body_of_a_kind_without_a_decoder_says_why_it_is_415(api, unchanged):
    """kubectl's typed commands (``kubectl debug node/…`` creating a Pod) send protobuf: the
    refusal names what could not be read instead of listing protobuf as accepted and stopping."""
    spec = ld(2, ld(1, "debugger") + ld(2, "busybox"))
    body = envelope("v1", "ConfigMap", ld(1, ld(1, "x")) + vi(9, 1) + ld(2, spec))
    response = api.http.post(api.path(CM_PATH), content=body,
                             headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    message = _status(response, 415, "UnsupportedMediaType")["message"]
    assert message.startswith("the body of the request was in an unknown format - ")
    assert message.endswith(
        "(got 'application/vnd.kubernetes.protobuf': ConfigMap field 9 in protobuf is not "
        "supported; this server reads few kinds in protobuf, send application/json)")


def test_every_error_and_object_response_has_exact_json_content_type(api):
    responses = [
        api.http.get("/version"),
        api.http.get(api.path(CM_PATH)),
        api.http.get(api.path(CM_PATH, "sentinel")),
        api.http.get(api.path(CM_PATH, "nope")),
        api.http.get("/apis/no.such/v1"),
        api.http.get("/api/v1"),
        api.http.get("/apis"),
        api.http.get("/openapi/v3"),
        api.http.post(api.path(CM_PATH), content=b"{",
                      headers={"Content-Type": "application/json"}),
    ]
    for response in responses:
        assert response.headers["content-type"] == "application/json", response.request.url


def test_delete_preconditions_mismatch_is_409_and_keeps_object(api, unchanged):
    stored = json.loads(api.sentinel)["metadata"]
    cases = [
        ({"uid": "not-the-uid"},
         f"the UID in the precondition (not-the-uid) does not match the UID in record "
         f"({stored['uid']}). The object might have been deleted and then recreated"),
        ({"resourceVersion": "1"},
         f"the ResourceVersion in the precondition (1) does not match the ResourceVersion in "
         f"record ({stored['resourceVersion']}). The object might have been modified"),
    ]
    for preconditions, detail in cases:
        response = api.http.request("DELETE", api.path(CM_PATH, "sentinel"),
                                    json={"preconditions": preconditions})
        body = _status(response, 409, "Conflict")
        # upstream's BeforeDelete names the kind, not the resource
        assert body["message"] == \
            f'Operation cannot be fulfilled on ConfigMap "sentinel": {detail}'


PARTIAL = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"


def test_metadata_only_views_answer_partial_object_metadata(api):
    """What client-go's metadata client and metadata-only informers ask for."""
    got = api.http.get(api.path(CM_PATH, "sentinel"), headers={"Accept": PARTIAL}).json()
    assert (got["kind"], got["apiVersion"]) == ("PartialObjectMetadata", "meta.k8s.io/v1")
    assert got["metadata"]["name"] == "sentinel" and "data" not in got
    listed = api.http.get(api.path(CM_PATH), headers={
        "Accept": PARTIAL.replace("PartialObjectMetadata", "PartialObjectMetadataList")}).json()
    assert listed["kind"] == "PartialObjectMetadataList"
    assert listed["metadata"]["resourceVersion"].isdigit()
    assert [(i["kind"], i["metadata"]["name"]) for i in listed["items"]] == [
        ("PartialObjectMetadata", "sentinel")]
    watched = api.http.get(api.path(CM_PATH), headers={"Accept": PARTIAL},
                           params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "1"})
    event = json.loads(watched.text.splitlines()[0])
    assert (event["type"], event["object"]["kind"]) == ("ADDED", "PartialObjectMetadata")


def test_a_view_the_server_does_not_offer_is_406(api, unchanged):
    response = api.http.get(api.path(CM_PATH, "sentinel"),
                            headers={"Accept": "application/json;as=Bogus;g=meta.k8s.io;v=v1"})
    _status(response, 406, "NotAcceptable")
    # a plain clause after it is acceptable, as upstream's negotiation picks it
    fallback = api.http.get(api.path(CM_PATH, "sentinel"), headers={
        "Accept": "application/json;as=Bogus;g=meta.k8s.io;v=v1,application/json"})
    assert fallback.json()["kind"] == "ConfigMap"


def test_a_watch_from_a_version_the_server_has_not_reached_ends_with_an_error_event(api):
    """A client resuming against a restarted server: upstream's watch cache answers an ERROR
    event (504 Too large resource version) instead of pretending to be up to date."""
    ahead = str(api.global_rv() + 1000)
    for params in ({"resourceVersion": ahead},
                   {"resourceVersion": ahead, "sendInitialEvents": "true",
                    "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true"}):
        response = api.http.get(api.path(CM_PATH), params={"watch": "1", **params})
        assert response.status_code == 200
        [event] = [json.loads(line) for line in response.text.splitlines()]
        assert event["type"] == "ERROR"
        assert (event["object"]["code"], event["object"]["reason"]) == (504, "Timeout")
        assert event["object"]["message"].startswith(
            f"Timeout: Too large resource version: {ahead}, current: ")


def test_a_yaml_body_repeating_a_key_is_refused_strict_and_warned_otherwise(api):
    body = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\n"
            "data:\n  k: v\ndata:\n  k: w\n")
    headers = {"Content-Type": "application/yaml"}
    strict = api.http.post(api.path(CM_PATH), content=body, headers=headers,
                           params={"fieldValidation": "Strict"})
    assert 'duplicate field "data"' in _status(strict, 400, "BadRequest")["message"]
    warned = api.http.post(api.path(CM_PATH), content=body, headers=headers)
    assert warned.status_code == 201
    assert 'duplicate field \\"data\\"' in warned.headers["Warning"]
    assert warned.json()["data"] == {"k": "w"}  # the last one, as Go's decoder keeps it


def test_an_apply_naming_another_namespace_is_refused(api, unchanged):
    response = api.http.patch(
        api.path(CM_PATH, "sentinel"),
        content=json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": "sentinel", "namespace": "elsewhere"}}),
        headers={"Content-Type": "application/apply-patch+yaml"},
        params={"fieldManager": "me"},
    )
    body = _status(response, 400, "BadRequest")
    assert body["message"] == (
        "the namespace of the object (elsewhere) does not match the namespace on the request "
        f"({api.namespace})"
    )
