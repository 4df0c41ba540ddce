"""Malformed HTTP requests get a ``kind: Status`` client error, never a 500, and change nothing.

Every combination below is sent to a live server (in this process, over loopback): broken
paths, wrong methods, undecodable bodies, unsupported media types and bad query parameters.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.server.runner import ApiServer

PODS = "/api/v1/namespaces/default/pods"
CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "keep"},
    "spec": {"containers": [{"name": "c", "image": "i"}]},
}


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with (
        ApiServer(registry=new_registry()) as server,
        httpx.AsyncClient(base_url=server.url, timeout=10) as client,
    ):
        response = await client.post(PODS, json=POD)
        assert response.status_code == 201
        yield client


def _assert_status(response: httpx.Response, *codes: int) -> dict[str, Any]:
    assert response.status_code in codes, (response.status_code, response.text[:300])
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = orjson.loads(response.content)
    assert body["kind"] == "Status" and body["status"] == "Failure"
    assert body["code"] == response.status_code and body["reason"]
    return body


async def _pod_version(http: httpx.AsyncClient) -> str:
    response = await http.get(f"{PODS}/keep")
    version: str = response.json()["metadata"]["resourceVersion"]
    return version


BAD_PATHS = [
    "/api/v2/pods",
    "/api/v1/frobnicators",
    "/apis/nope.example.com/v1/things",
    "/apis/resource.k8s.io/v9/resourceclaims",
    f"{PODS}/keep/status/extra/more",
    f"{PODS}/keep/nonexistent-subresource",
    "/api/v1/namespaces/default/nodes/n1",
    "/api/v1/namespaces//pods",
    "/apis/nope.example.com",
    "/openapi/v3/apis/nope/v1",
    "/api/v1/namespaces/default/pods/%00",
    "/api/v1/namespaces/default/pods/" + "a" * 5000,
    # paths no route serves at all (the router's own 404)
    "/nope",
    "/version/extra",
    "/openapi/v4",
]


@pytest.mark.parametrize("path", BAD_PATHS)
async def test_unknown_paths_are_404_status(http: httpx.AsyncClient, path: str) -> None:
    body = _assert_status(await http.get(path), 404)
    assert body["reason"] == "NotFound"


@pytest.mark.parametrize(
    ("method", "path", "what"),
    [
        ("POST", f"{PODS}/keep/exec?command=ls", "pods/exec of default/keep"),
        ("GET", f"{PODS}/keep/attach", "pods/attach of default/keep"),
        ("POST", f"{PODS}/keep/portforward", "pods/portforward of default/keep"),
        ("GET", f"{PODS}/keep/proxy/healthz", "pods/proxy of default/keep"),
        ("GET", "/api/v1/nodes/n1/proxy/metrics", "nodes/proxy of n1"),
    ],
)
async def test_streams_to_running_containers_are_refused_saying_why(
    http: httpx.AsyncClient, method: str, path: str, what: str
) -> None:
    """kubectl exec, attach, port-forward and proxies: a BadRequest that says nothing runs,
    where a 404 read as if the pod did not exist."""
    body = _assert_status(await http.request(method, path), 400)
    assert body["message"].startswith(
        f"{what} is not served: fakeapi's simulated kubelets run no containers to connect to"
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", PODS),
        ("PATCH", PODS),
        ("POST", f"{PODS}/keep"),
        ("POST", "/api/v1/pods"),
        ("DELETE", f"{PODS}/keep/status"),
        ("POST", f"{PODS}/keep/status"),
        # paths whose routes serve GET only (the router's own 405)
        ("POST", "/version"),
        ("DELETE", "/api"),
        ("PUT", "/apis/resource.k8s.io"),
        ("POST", "/healthz/ping"),
        ("POST", "/openapi/v3"),
    ],
)
async def test_wrong_methods_are_405_status(
    http: httpx.AsyncClient, method: str, path: str
) -> None:
    before = await _pod_version(http)
    _assert_status(await http.request(method, path, json=POD), 405)
    assert await _pod_version(http) == before


BAD_BODIES: list[tuple[str, bytes]] = [
    ("application/json", b"{not json"),
    ("application/json", b""),
    ("application/json", b"\xff\xfe\x00garbage"),
    ("application/json", b"[1, 2, 3]"),
    ("application/json", b'"a string"'),
    ("application/json", b"null"),
    ("application/json", orjson.dumps({**POD, "kind": "Node"})),
    ("application/json", orjson.dumps({**POD, "apiVersion": "v2"})),
    ("application/json", orjson.dumps({**POD, "metadata": "keep"})),
    ("application/json", orjson.dumps({**POD, "spec": {"containers": "many"}})),
    ("application/json", orjson.dumps({**POD, "metadata": {"name": "Not_Valid"}})),
    (
        "application/json",
        b'{"metadata": {"name": "x", "name": "y"}, "a": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    ),
    ("application/yaml", b"a: [unclosed"),
    ("application/yaml", b"- just\n- a list\n"),
    ("application/vnd.kubernetes.protobuf", b"k8s\x00\x0a\xff\xff\xff"),
    ("application/vnd.kubernetes.protobuf", b"not protobuf at all"),
    ("text/plain", b"hello"),
    ("application/x-www-form-urlencoded", b"a=b"),
]


BODY_IDS = [f"{i}-{ct.split('/')[-1]}" for i, (ct, _) in enumerate(BAD_BODIES)]


@pytest.mark.parametrize(("content_type", "body"), BAD_BODIES, ids=BODY_IDS)
async def test_undecodable_create_bodies_are_client_errors(
    http: httpx.AsyncClient, content_type: str, body: bytes
) -> None:
    before = (await http.get(PODS)).json()["metadata"]["resourceVersion"]
    _assert_status(
        await http.post(PODS, content=body, headers={"Content-Type": content_type}),
        400,
        409,
        413,
        415,
        422,
    )
    assert (await http.get(PODS)).json()["metadata"]["resourceVersion"] == before


@pytest.mark.parametrize(("content_type", "body"), BAD_BODIES, ids=BODY_IDS)
async def test_undecodable_update_and_patch_bodies_change_nothing(
    http: httpx.AsyncClient, content_type: str, body: bytes
) -> None:
    before = await _pod_version(http)
    headers = {"Content-Type": content_type}
    _assert_status(
        await http.put(f"{PODS}/keep", content=body, headers=headers), 400, 404, 409, 413, 415, 422
    )
    for patch_type in (
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
    ):
        response = await http.patch(
            f"{PODS}/keep?fieldManager=t", content=body, headers={"Content-Type": patch_type}
        )
        if response.status_code < 400:  # a few bodies are valid patches of some type
            continue
        _assert_status(response, 400, 409, 413, 415, 422)
    assert (await http.get(f"{PODS}/keep")).json()["metadata"]["name"] == "keep"
    after = await _pod_version(http)
    assert after == before or int(after) > int(before)


BAD_QUERIES = [
    "limit=abc",
    "limit=99999999999999999999999",
    "watch=maybe",
    "timeoutSeconds=soon",
    "resourceVersion=abc",
    "resourceVersionMatch=Sometimes&resourceVersion=1",
    "resourceVersionMatch=Exact",
    "continue=%%%garbage",
    "continue=eyJydiI6LTF9",
    "labelSelector=a%20in%20b",
    "labelSelector=!!",
    "fieldSelector=spec.bogus%3D1",
    "sendInitialEvents=true",
    "allowWatchBookmarks=perhaps&watch=true",
]


@pytest.mark.parametrize("query", BAD_QUERIES)
async def test_bad_list_parameters_are_client_errors(http: httpx.AsyncClient, query: str) -> None:
    _assert_status(await http.get(f"{PODS}?{query}"), 400, 410, 422, 504)


@pytest.mark.parametrize(
    "query", ["dryRun=Some", "fieldValidation=Loose", "fieldManager=" + "m" * 200]
)
async def test_bad_write_parameters_are_client_errors(http: httpx.AsyncClient, query: str) -> None:
    created = await http.post(f"{CLAIMS}?{query}", json={"metadata": {"name": "c"}})
    _assert_status(created, 400, 422)
    assert (await http.get(f"{CLAIMS}/c")).status_code == 404


async def test_unknown_include_object_on_a_table_request_is_400(http: httpx.AsyncClient) -> None:
    table = "application/json;as=Table;v=v1;g=meta.k8s.io"
    response = await http.get(f"{PODS}?includeObject=Everything", headers={"Accept": table})
    _assert_status(response, 400)


async def test_oversized_body_is_413_and_nothing_is_stored(http: httpx.AsyncClient) -> None:
    body = orjson.dumps({"metadata": {"name": "big", "annotations": {"a": "x" * (4 << 20)}}})
    _assert_status(
        await http.post(
            "/api/v1/namespaces/default/configmaps",
            content=body,
            headers={"Content-Type": "application/json"},
        ),
        413,
    )
    assert (await http.get("/api/v1/namespaces/default/configmaps/big")).status_code == 404
