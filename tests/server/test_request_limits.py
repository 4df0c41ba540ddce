"""Each request limit answers with its exact ``kind: Status`` and leaves the server serving.

A hostile or careless body (a YAML alias bomb, JSON nested too deep, an oversized body), too many
requests at once and too many watches from one client are refused at once with upstream's code
and message; nothing refused is stored, and ``/readyz`` answers while and after each is refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson
import pytest
from aiohttp import web

from fakeapi.bootstrap import new_registry
from fakeapi.registry.options import WriteOptions
from fakeapi.server import handlers
from fakeapi.server.encoding import MAX_BODY_BYTES
from fakeapi.server.limits import RequestLimits
from fakeapi.server.runner import ApiServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
_WRITE = WriteOptions(field_manager="test")
YAML = {"Content-Type": "application/yaml"}


def _laughs(levels: int, fanout: int) -> str:
    """A ConfigMap whose data holds nested aliases: ``fanout ** levels`` scalars once expanded."""
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: lol}", "x0: &x0 lol"]
    for level in range(1, levels + 1):
        lines.append(f"x{level}: &x{level} [" + ", ".join([f"*x{level - 1}"] * fanout) + "]")
    lines.append(f"data: {{boom: *x{levels}}}")
    return "\n".join(lines) + "\n"


@pytest.fixture
async def server() -> AsyncIterator[tuple[ApiServer, httpx.AsyncClient]]:
    limits = RequestLimits(max_mutating_requests_inflight=1, max_watches_per_client=1)
    async with (
        ApiServer(registry=new_registry(), limits=limits) as api,
        httpx.AsyncClient(base_url=api.url, timeout=10) as client,
    ):
        yield api, client


def _status(response: httpx.Response, code: int, reason: str) -> dict[str, Any]:
    assert response.status_code == code, response.text[:300]
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = orjson.loads(response.content)
    assert (body["kind"], body["status"], body["code"], body["reason"]) == (
        "Status",
        "Failure",
        code,
        reason,
    )
    return body


async def _ready(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert (response.status_code, response.text) == (200, "ok")


async def _until(condition: Callable[[], bool]) -> None:
    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout=10)


async def _nothing_stored(client: httpx.AsyncClient) -> None:
    listed = (await client.get(CONFIGMAPS)).json()
    assert listed["items"] == []


BAD_BODIES = [
    pytest.param(
        _laughs(9, 9),
        YAML,
        "error converting YAML to JSON: yaml: document contains excessive aliasing",
        id="yaml-billion-laughs",
    ),
    pytest.param(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x, labels: *m}\n",
        YAML,
        "error converting YAML to JSON: yaml: anchor 'm' value contains itself",
        id="yaml-anchor-contains-itself",
    ),
    pytest.param(
        "[" * 50_000,
        {"Content-Type": "application/json"},
        "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth",
        id="json-too-deep",
    ),
]


@pytest.mark.parametrize(("body", "headers", "message"), BAD_BODIES)
async def test_a_body_over_the_decoders_limits_is_refused_at_once(server, body, headers, message):
    _, client = server
    refused, _ = await asyncio.gather(
        client.post(CONFIGMAPS, content=body.encode(), headers=headers), _ready(client)
    )
    assert _status(refused, 400, "BadRequest")["message"] == message
    await _ready(client)
    await _nothing_stored(client)


async def test_aliases_within_go_yamls_ratio_are_expanded(server):
    _, client = server
    keys = ", ".join(f"k{i}: *v" for i in range(1, 200))
    body = f"kind: ConfigMap\nmetadata: {{name: ok}}\ndata: {{k0: &v lol, {keys}}}\n"
    created = await client.post(CONFIGMAPS, content=body.encode(), headers=YAML)
    assert created.status_code == 201, created.text
    assert set(created.json()["data"].values()) == {"lol"} and len(created.json()["data"]) == 200


async def test_an_oversized_body_is_refused_with_413_whether_announced_or_not(server):
    _, client = server
    big = b'{"data": "' + b"x" * MAX_BODY_BYTES + b'"}'

    async def chunked() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 65536):
            yield big[start : start + 65536]

    for content in (big, chunked()):
        response = await client.post(CONFIGMAPS, content=content)
        body = _status(response, 413, "RequestEntityTooLarge")
        assert body["message"] == "Request entity too large: limit is 3145728"
        await _ready(client)
    await _nothing_stored(client)


async def test_requests_past_the_in_flight_limit_get_429_with_retry_after(server, monkeypatch):
    _, client = server
    release, reading = asyncio.Event(), asyncio.Event()
    configmap = orjson.dumps({"metadata": {"name": "slow"}, "data": {"a": "b"}})
    read_body = handlers.read_body

    async def observed_read_body(request: web.Request, **kwargs: Any) -> Any:
        reading.set()
        return await read_body(request, **kwargs)

    monkeypatch.setattr(handlers, "read_body", observed_read_body)

    async def slow_body() -> AsyncIterator[bytes]:
        yield configmap[:5]
        await release.wait()
        yield configmap[5:]

    slow = asyncio.create_task(client.post(CONFIGMAPS, content=slow_body()))
    await reading.wait()  # the slow create holds the only mutating slot while it is read
    refused = await client.post(CONFIGMAPS, json={"metadata": {"name": "fast"}})
    body = _status(refused, 429, "TooManyRequests")
    assert body["message"] == "Too many requests, please try again later."
    assert body["details"] == {"retryAfterSeconds": 1}
    assert refused.headers["Retry-After"] == "1"
    await _ready(client)
    assert (await client.get(CONFIGMAPS)).status_code == 200  # reads have their own slots
    release.set()
    assert (await slow).status_code == 201
    names = [c["metadata"]["name"] for c in (await client.get(CONFIGMAPS)).json()["items"]]
    assert names == ["slow"]


async def test_a_client_past_its_watch_limit_gets_429_until_one_ends(server):
    api, client = server
    url = f"{CONFIGMAPS}?watch=1&timeoutSeconds=30"
    async with client.stream("GET", url) as first:
        assert first.status_code == 200
        refused = await client.get(url)
        assert _status(refused, 429, "TooManyRequests")["details"] == {"retryAfterSeconds": 1}
        await _ready(client)
        async with client.stream("GET", url, headers={"User-Agent": "another"}) as other:
            assert other.status_code == 200  # another client has slots of its own
    await _until(lambda: not api.limits.watches_held())  # it sees the hang-ups in its own time
    async with client.stream("GET", url) as again:  # the first one's slot is free again
        assert again.status_code == 200


async def test_a_watch_client_gone_mid_write_ends_the_watch_without_an_error(
    server, monkeypatch, caplog
):
    _, client = server
    write = web.StreamResponse.write

    async def reset_after_headers(self: web.StreamResponse, data: bytes) -> None:
        if b'"type":"ADDED"' in bytes(data):
            raise ConnectionResetError("Cannot write to closing transport")
        await write(self, data)

    monkeypatch.setattr(web.StreamResponse, "write", reset_after_headers)
    caplog.set_level(logging.ERROR)
    async with client.stream("GET", f"{CONFIGMAPS}?watch=1&timeoutSeconds=30") as watch:
        assert watch.status_code == 200
        created = await client.post(CONFIGMAPS, json={"metadata": {"name": "a"}})
        assert created.status_code == 201
        assert [line async for line in watch.aiter_lines()] == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await _ready(client)


CREATE_RESOURCE_VERSIONS = [
    # (metadata.resourceVersion sent on create, refused?) as upstream's storage decides
    ("1", True),
    ("123", True),
    ("007", True),
    ("0", False),
    ("v1", False),
    ("-1", False),
    ("18446744073709551616", False),  # past uint64: does not parse, dropped
    ("", False),
]


@pytest.mark.parametrize(("resource_version", "refused"), CREATE_RESOURCE_VERSIONS)
async def test_a_create_is_refused_only_for_a_resource_version_that_parses_as_non_zero(
    server, resource_version, refused
):
    _, client = server
    body = {"metadata": {"name": "cm", "resourceVersion": resource_version}}
    response = await client.post(CONFIGMAPS, json=body)
    if refused:
        status = _status(response, 400, "BadRequest")
        assert status["message"] == "resourceVersion should not be set on objects to be created"
        await _nothing_stored(client)
    else:
        assert response.status_code == 201, response.text
        stored = response.json()["metadata"]["resourceVersion"]
        assert stored.isdigit() and stored != resource_version


async def test_a_large_collection_is_deleted_in_slices_and_listed_as_a_table_whole(
    server, monkeypatch
):
    api, client = server
    registry = api.registry
    configmaps = registry.resources.lookup("", "v1", "configmaps")
    for i in range(1200):
        registry.create(configmaps, "default", {"metadata": {"name": f"cm-{i:04}"}}, _WRITE)
    table = await client.get(
        CONFIGMAPS, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    )
    assert len(table.json()["rows"]) == 1200
    pages: list[int] = []
    delete_collection = registry.delete_collection

    def counted(*args: Any) -> Any:
        results = delete_collection(*args)
        pages.append(len(results))
        return results

    monkeypatch.setattr(registry, "delete_collection", counted)
    deleted, _ = await asyncio.gather(client.delete(CONFIGMAPS), _ready(client))
    assert deleted.status_code == 200
    assert len(deleted.json()["items"]) == 1200
    assert pages == [500, 500, 200]  # the event loop is let go between slices
    await _nothing_stored(client)


async def test_a_request_line_past_8190_bytes_gets_a_plain_400_from_the_http_layer(
    server, caplog
):
    _, client = server
    caplog.set_level(logging.DEBUG)
    selector = "app in (" + ",".join(f"v{i}" for i in range(2000)) + ")"
    response = await client.get(CONFIGMAPS, params={"labelSelector": selector})
    assert response.status_code == 400
    assert response.text.startswith("Got more than 8190 bytes")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # the client's fault
    await _ready(client)
