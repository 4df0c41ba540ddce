"""What the HTTP transport adds: the wire format, errors parsed from Status bodies, streaming.

Behaviour shared with the in-process transport is pinned in ``test_inprocess_client.py`` (its
tests run over both); here the same failures are also compared side by side, and the parts that
only exist on the wire — Warning headers, non-Status error pages, list items without a kind,
ERROR events, bearer tokens — are checked against a real server or a scripted one
(``httpx.MockTransport``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest

from fakeapi.client import (
    CONFIGMAPS,
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    EVENTS,
    LEASES,
    NAMESPACES,
    NODES,
    POD_GROUPS,
    PODS,
    PRIORITY_CLASSES,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    RESOURCE_POOLS,
    RESOURCE_SLICES,
    WORKLOADS,
    Client,
    HttpTransport,
    Resource,
    StatusError,
)
from fakeapi.client.http import parse_warning_header
from fakeapi.registry.store import GenericStore
from fakeapi.server.inprocess import InProcessTransport

GROUP = "example.fakeapi.dev"
WIDGETS = Resource(GROUP, "v1", "widgets", "Widget", namespaced=True)


def widget(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


def scripted(handler: Callable[[httpx.Request], httpx.Response]) -> Client:
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Client(HttpTransport("http://cluster.test", token="s3cret", http_client=http))


def describe(error: StatusError) -> tuple[int, str, str, Any]:
    return (error.code, error.reason, error.message, error.details)


async def failure(call: Awaitable[Any]) -> StatusError:
    with pytest.raises(StatusError) as caught:
        await call
    return caught.value


# --- paths -------------------------------------------------------------------------------------


def test_resource_paths() -> None:
    assert PODS.path() == "/api/v1/pods"
    assert PODS.path(namespace="ns", name="p", subresource="binding") == (
        "/api/v1/namespaces/ns/pods/p/binding"
    )
    assert NODES.path(namespace="ignored", name="n") == "/api/v1/nodes/n"
    assert RESOURCE_CLAIMS.path(namespace="ns") == (
        "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims"
    )
    assert RESOURCE_CLAIMS.api_version == "resource.k8s.io/v1"
    assert str(RESOURCE_CLAIMS) == "resourceclaims.resource.k8s.io"


def test_every_resource_constant_is_served_by_the_default_table() -> None:
    from fakeapi.resources import default_resources

    table = default_resources()
    constants = [NAMESPACES, NODES, PODS, EVENTS, CONFIGMAPS, LEASES, DEVICE_CLASSES,
                 RESOURCE_CLAIMS, RESOURCE_CLAIM_TEMPLATES, RESOURCE_SLICES, DEVICE_TAINT_RULES,
                 RESOURCE_POOLS, PRIORITY_CLASSES, WORKLOADS, POD_GROUPS]
    for resource in constants:
        served = table.lookup(resource.group, resource.version, resource.plural)
        assert served is not None, resource
        assert (served.kind, served.namespaced) == (resource.kind, resource.namespaced)


# --- the same failure through both transports ----------------------------------------------


async def test_failures_read_the_same_through_both_transports(
    registry: GenericStore, http_client: Client
) -> None:
    local = Client(InProcessTransport(registry))
    created = await local.create(WIDGETS, body=widget("w", size=1))
    await local.patch(WIDGETS, namespace="default", name="w", patch={"spec": {"size": 2}})
    stale = {**created, "spec": {"size": 3}}
    attempts: list[Callable[[Client], Awaitable[Any]]] = [
        lambda c: c.update(WIDGETS, body=stale),
        lambda c: c.create(WIDGETS, body=widget("w")),
        lambda c: c.create(WIDGETS, body=widget("bad", size=-5)),
        lambda c: c.get(WIDGETS, namespace="default", name="missing"),
        lambda c: c.list(WIDGETS, label_selector="a in (b"),
        lambda c: c.list(WIDGETS, field_selector="status.phase=x"),
        lambda c: c.list(WIDGETS, resource_version_match="Exact"),
        lambda c: c.patch(WIDGETS, namespace="default", name="w", patch_type="json",
                          patch={"not": "a list"}),
        lambda c: c.delete(WIDGETS, namespace="default", name="missing"),
        lambda c: c.update_status(WIDGETS, body={**stale, "status": {"phase": "x"}}),
        lambda c: c.create(WIDGETS, body=widget("w2"), field_validation="Bogus"),  # type: ignore[arg-type]
        lambda c: c.list(Resource(GROUP, "v2", "widgets", "Widget", namespaced=True)),
    ]
    for attempt in attempts:
        in_process = await failure(attempt(local))
        over_http = await failure(attempt(http_client))
        assert describe(in_process) == describe(over_http)
        assert in_process.code < 500


# --- wire details --------------------------------------------------------------------------------


def test_warning_headers_are_unquoted() -> None:
    assert parse_warning_header('299 - "unknown field \\"spec.x\\""') == 'unknown field "spec.x"'
    assert parse_warning_header("not a warning header") == "not a warning header"


async def test_a_non_status_error_page_still_becomes_a_status_error() -> None:
    client = scripted(lambda _: httpx.Response(503, text="<html>upstream down</html>"))
    error = await failure(client.get(PODS, namespace="a", name="b"))
    assert (error.code, error.reason) == (503, "ServiceUnavailable")
    assert "upstream down" in error.message


async def test_requests_carry_the_token_and_field_manager() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json=orjson.loads(request.content))

    client = scripted(answer)
    await client.create(CONFIGMAPS, body={"metadata": {"name": "c", "namespace": "n"}},
                        dry_run=True)
    request = seen[0]
    assert request.headers["Authorization"] == "Bearer s3cret"
    assert request.url.path == "/api/v1/namespaces/n/configmaps"
    assert dict(request.url.params) == {"dryRun": "All", "fieldManager": "fakeapi-client"}


async def test_patch_content_types() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Content-Type"])
        return httpx.Response(200, json={"metadata": {"name": "p"}})

    client = scripted(answer)
    for patch_type in ("merge", "json", "strategic", "apply"):
        await client.patch(PODS, namespace="n", name="p", patch={}, patch_type=patch_type)
    assert seen == [
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
    ]


async def test_list_items_from_a_real_cluster_get_their_kind() -> None:
    body = {"kind": "PodList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "42", "continue": "abc", "remainingItemCount": 3},
            "items": [{"metadata": {"name": "p"}}]}
    client = scripted(lambda _: httpx.Response(200, json=body))
    listed = await client.list(PODS, limit=1)
    assert listed.items == [{"metadata": {"name": "p"}, "apiVersion": "v1", "kind": "Pod"}]
    assert (listed.resource_version, listed.continue_token, listed.remaining_item_count) == (
        "42", "abc", 3
    )


async def test_an_error_event_mid_stream_is_raised() -> None:
    expired = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 410,
               "reason": "Expired", "message": "too old resource version: 1 (5)"}
    frames = [
        {"type": "ADDED", "object": {"metadata": {"name": "p", "resourceVersion": "7"}}},
        {"type": "ERROR", "object": expired},
    ]
    stream = b"".join(orjson.dumps(f) + b"\n" for f in frames)
    client = scripted(lambda _: httpx.Response(200, content=stream))
    events = client.watch(PODS, resource_version="1")
    first = await events.__anext__()
    assert (first.type, first.resource_version) == ("ADDED", "7")
    error = await failure(events.__anext__())
    assert (error.code, error.reason, error.message) == (410, "Expired", expired["message"])


async def test_a_stream_the_server_ends_stops_the_iteration() -> None:
    frames = [{"type": t, "object": {"metadata": {"name": "p", "resourceVersion": rv}}}
              for t, rv in (("ADDED", "5"), ("MODIFIED", "6"))]
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"".join(orjson.dumps(f) + b"\n" for f in frames))

    client = scripted(answer)
    events = [e.type async for e in client.watch(PODS, namespace="n", resource_version="4",
                                                 allow_bookmarks=True, timeout_seconds=30)]
    assert events == ["ADDED", "MODIFIED"]
    assert seen[0].url.path == "/api/v1/namespaces/n/pods"
    assert dict(seen[0].url.params) == {
        "watch": "true", "resourceVersion": "4", "allowWatchBookmarks": "true",
        "timeoutSeconds": "30",
    }


async def test_delete_of_a_kind_that_returns_status_gives_none(
    registry: GenericStore, http_client: Client
) -> None:
    await http_client.create(WIDGETS, body=widget("w"))
    assert await http_client.delete(WIDGETS, namespace="default", name="w") is None


async def _bookmark_times(
    *, timeout: int, interval: float, writes: int = 0
) -> tuple[list[float], float]:
    """Seconds into a raw HTTP watch at which BOOKMARKs arrived, and when the stream ended."""
    import asyncio
    import time

    from fakeapi.bootstrap import new_registry
    from fakeapi.server.handlers import WatchSettings
    from fakeapi.server.runner import ApiServer

    registry = new_registry()
    settings = WatchSettings(min_timeout=1.0, bookmark_interval=interval)
    async with ApiServer(registry=registry, watch=settings) as running:
        writer = Client(InProcessTransport(registry), field_manager="writer")

        async def write() -> None:
            for i in range(writes):
                await writer.create(CONFIGMAPS, namespace="default",
                                    body={"metadata": {"name": f"cm-{i}"}})
                await asyncio.sleep(0.2)

        writing = asyncio.create_task(write())
        started = time.monotonic()
        marks: list[float] = []
        url = f"{running.url}/api/v1/namespaces/default/configmaps"
        params = {"watch": "true", "allowWatchBookmarks": "true", "timeoutSeconds": str(timeout)}
        async with httpx.AsyncClient(timeout=30) as http, http.stream(
            "GET", url, params=params
        ) as response:
            async for line in response.aiter_lines():
                if line and orjson.loads(line)["type"] == "BOOKMARK":
                    marks.append(time.monotonic() - started)
        ended = time.monotonic() - started
        await writing
    return marks, ended


async def test_a_watch_gets_a_bookmark_two_seconds_before_its_timeout() -> None:
    marks, ended = await _bookmark_times(timeout=3, interval=60.0)
    assert len(marks) == 1
    assert 0.5 <= marks[0] <= ended - 1.5  # the last heartbeat, not one at the very end


async def test_bookmarks_keep_their_pace_while_events_flow() -> None:
    marks, _ = await _bookmark_times(timeout=3, interval=0.5, writes=12)
    assert len(marks) >= 2  # every half second, though an event arrived every 0.2 s
