"""What the aiohttp transport must read off the wire as the httpx one does.

Behaviour over a real server runs through the shared fixtures (``client`` and ``http_client``
are parametrised over both HTTP transports); here a scripted aiohttp server answers what a
fakeapi server never sends — an HTML error page, an ERROR event mid-stream — and a watch line
longer than a stream buffer.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson
import pytest
from aiohttp import web

from fakeapi.client import CONFIGMAPS, PODS, Client, SessionTransport, StatusError

#: a scripted answer to a request and its body
Answer = Callable[[web.Request, bytes], web.StreamResponse]


@pytest.fixture
async def scripted() -> AsyncIterator[Callable[[Answer], Any]]:
    """Serves one handler for every path; returns a client (with a token) for it."""
    runners: list[web.AppRunner] = []
    clients: list[Client] = []

    async def serve(answer: Answer) -> Client:
        app = web.Application()

        async def handle(request: web.Request) -> web.StreamResponse:
            return answer(request, await request.read())

        app.router.add_route("*", "/{tail:.*}", handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        client = Client(SessionTransport(f"http://127.0.0.1:{port}", token="s3cret"))
        clients.append(client)
        return client

    yield serve
    for client in clients:
        await client.close()
    for runner in runners:
        await runner.cleanup()


async def test_a_non_status_error_page_still_becomes_a_status_error(scripted: Any) -> None:
    client = await scripted(lambda *_: web.Response(status=503, text="<html>upstream down</html>"))
    with pytest.raises(StatusError) as caught:
        await client.get(PODS, namespace="a", name="b")
    assert (caught.value.code, caught.value.reason) == (503, "ServiceUnavailable")
    assert "upstream down" in caught.value.message


async def test_requests_carry_the_token_params_and_warnings_come_back(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[web.Request] = []

    def answer(request: web.Request, body: bytes) -> web.Response:
        seen.append(request)
        return web.json_response(orjson.loads(body), status=201,
                                 headers={"Warning": '299 - "unknown field \\"x\\""'})

    client = await scripted(answer)
    with caplog.at_level(logging.WARNING, logger="fakeapi.client"):
        await client.create(CONFIGMAPS, body={"metadata": {"name": "c", "namespace": "n"}},
                            dry_run=True)
    assert 'server warning: unknown field "x"' in caplog.messages
    request = seen[0]
    assert request.headers["Authorization"] == "Bearer s3cret"
    assert request.path == "/api/v1/namespaces/n/configmaps"
    assert dict(request.query) == {"dryRun": "All", "fieldManager": "fakeapi-client"}


async def test_an_error_event_mid_stream_is_raised(scripted: Any) -> None:
    expired = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 410,
               "reason": "Expired", "message": "too old resource version: 1 (5)"}
    frames = [
        {"type": "ADDED", "object": {"metadata": {"name": "p", "resourceVersion": "7"}}},
        {"type": "ERROR", "object": expired},
    ]
    body = b"".join(orjson.dumps(f) + b"\n" for f in frames)
    client = await scripted(lambda *_: web.Response(body=body))
    events = client.watch(PODS, resource_version="1")
    first = await events.__anext__()
    assert (first.type, first.resource_version) == ("ADDED", "7")
    with pytest.raises(StatusError) as caught:
        await events.__anext__()
    assert (caught.value.code, caught.value.reason) == (410, "Expired")


async def test_a_watch_line_longer_than_a_buffer_arrives_whole(scripted: Any) -> None:
    data = {f"key-{i}": "v" * 100 for i in range(2000)}  # one line of about 220 KiB
    frames = [{"type": "ADDED", "object": {"metadata": {"name": "big", "resourceVersion": "5"},
                                           "data": data}},
              {"type": "MODIFIED", "object": {"metadata": {"name": "big", "resourceVersion": "6"}}}]
    body = b"".join(orjson.dumps(f) + b"\n" for f in frames)
    client = await scripted(lambda *_: web.Response(body=body))
    events = [e async for e in client.watch(CONFIGMAPS, namespace="n", resource_version="4")]
    assert [(e.type, e.resource_version) for e in events] == [("ADDED", "5"), ("MODIFIED", "6")]
    assert events[0].object["data"] == data
