"""The server's front takes exactly the requests the app's resource catch-alls would take.

For each path the front's choice (the core handler, the grouped handler or the app) and the
segments it passes are compared with what aiohttp's router resolves in the real app; requests
with an ``Expect`` header are left to the app, whose handler answers ``100 Continue``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from fakeapi.bootstrap import new_registry
from fakeapi.server.app import create_app
from fakeapi.server.front import Serving, front_handler
from fakeapi.server.limits import RequestLimits
from fakeapi.server.runner import ApiServer

PATHS = [
    "/api/v1/namespaces/default/pods",
    "/api/v1/namespaces/default/pods/web/log",
    "/api/v1/namespaces/default/configmaps/a%2Fb",
    "/api/v1/namespaces/default/configmaps/a%25b",
    "/api/v1/namespaces/default/configmaps/a%20b",
    "/api/v1/watch/pods",
    "/api/v1/x",
    "/api/v1/",
    "/api/v1",
    "/api/v1/a%0Ab",
    "/api/v2/pods",
    "/apis/apps/v1/deployments",
    "/apis/apps/v1/namespaces/default/deployments/web/scale",
    "/apis/resource.k8s.io/v1/resourceclaims/",
    "/apis/a%2Fb/v1/things",
    "/apis/apps/v1/",
    "/apis/apps/v1",
    "/apis/apps/",
    "/apis/apps",
    "/apis/",
    "/apis",
    "/apis/a{b/v1/things",
    "/apis/apps/v}1/things",
    "/apis/apps/v1/a%0Ab",
    "/apis//v1/things",
    "/apis/apps//things",
    "/healthz",
    "/openapi/v3/apis/apps/v1",
    "/",
]


async def _front_choice(path: str, headers: dict[str, str]) -> tuple[str, ...]:
    chosen: list[tuple[str, ...]] = []

    async def core(_: web.Request, tail: str) -> web.StreamResponse:
        chosen.append(("core", tail))
        return web.Response()

    async def grouped(_: web.Request, group: str, version: str, tail: str) -> web.StreamResponse:
        chosen.append(("grouped", group, version, tail))
        return web.Response()

    async def app_handler(_: web.Request) -> web.StreamResponse:
        chosen.append(("app",))
        return web.Response()

    front = front_handler(
        app_handler=app_handler, serving=Serving(RequestLimits()), core=core, grouped=grouped
    )
    await front(make_mocked_request("GET", path, headers=headers))
    return chosen[0]


async def _router_choice(app: web.Application, path: str) -> tuple[str, ...]:
    match = await app.router.resolve(make_mocked_request("GET", path))
    route = match.route.resource.canonical if match.route.resource is not None else ""
    if route == "/api/v1/{tail}":
        return ("core", match["tail"])
    if route == "/apis/{group}/{version}/{tail}":
        return ("grouped", match["group"], match["version"], match["tail"])
    return ("app",)


@pytest.mark.parametrize("path", PATHS)
async def test_front_takes_what_the_catch_all_routes_take_with_their_segments(path: str) -> None:
    app = create_app(registry=new_registry())
    assert await _front_choice(path, {}) == await _router_choice(app, path)


@pytest.mark.parametrize("path", ["/api/v1/namespaces/default/pods", "/apis/apps/v1/deployments"])
async def test_front_leaves_a_request_expecting_continue_to_the_app(path: str) -> None:
    assert await _front_choice(path, {"Expect": "100-continue"}) == ("app",)


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with (
        ApiServer(registry=new_registry()) as server,
        httpx.AsyncClient(base_url=server.url, timeout=10) as client,
    ):
        yield client


async def test_a_create_expecting_continue_is_served_by_the_app(
    http: httpx.AsyncClient,
) -> None:
    response = await http.post(
        "/api/v1/namespaces/default/configmaps",
        content=b'{"metadata":{"name":"continued"}}',
        headers={"Content-Type": "application/json", "Expect": "100-continue"},
    )
    assert response.status_code == 201, response.text
    assert (await http.get("/api/v1/namespaces/default/configmaps/continued")).status_code == 200


async def test_answers_keep_their_headers(http: httpx.AsyncClient) -> None:
    found = await http.get("/api/v1/namespaces/default")
    missing = await http.get("/apis/apps/v1/namespaces/default/deployments/none")
    for response in (found, missing):
        assert list(response.headers.keys()) == [
            "content-type", "content-length", "date", "server"
        ]
        assert response.headers["content-type"] == "application/json"
    assert (found.status_code, missing.status_code) == (200, 404)
