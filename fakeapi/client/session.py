"""The HTTP transport on aiohttp's client: what the components use when they talk HTTP.

:class:`~fakeapi.client.http.HttpTransport` (httpx) is the general one: it takes a caller's
``httpx.AsyncClient`` (a mock transport in tests, the remote cluster's shared client) and raises
httpx's errors, which callers outside fakeapi catch. Its cost is the reason for this module:
httpx spends 0.6-1.5 ms of CPU on each request on a loopback connection, more under
concurrency, where aiohttp's client spends 0.07-0.13 ms, so a scheduler or controller manager
writing over HTTP (``Cluster(transport="http")``, ``fakeapi sandbox --split``) spent most of its
core in its HTTP client. :class:`SessionTransport` speaks the same REST and reads answers the
same way (:class:`~fakeapi.client.rest.RestTransport`: the verbs, Status errors, warnings, list
items, watch frames); only the client library differs.

The session is made on first use, inside the running loop, as aiohttp asks. Connections are not
capped: every watch holds one for its lifetime, and a shared informer factory has a watch per
kind. A watch's lines are split here rather than with the stream's ``readline``, which refuses
lines longer than its buffer (an object can be larger).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import orjson

from fakeapi.client.resource import Resource
from fakeapi.client.rest import JSON, Answer, RestTransport, request_headers, watch_event
from fakeapi.client.transport import WatchEvent, WatchParams

__all__ = ["SessionTransport"]


class SessionTransport(RestTransport):
    """Talk to the API server at ``base_url`` over aiohttp (module docstring).

    ``token`` is sent as a bearer token; ``verify`` is False (no certificate check), True (the
    system's), a CA bundle path or an SSLContext. ``timeout`` bounds ordinary requests; watches
    have no read timeout (the server ends them).
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        verify: ssl.SSLContext | str | bool = True,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = request_headers(token, headers)
        self._ssl: ssl.SSLContext | bool = (
            ssl.create_default_context(cafile=verify) if isinstance(verify, str) else verify
        )
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._watch_timeout = aiohttp.ClientTimeout(total=None, sock_connect=timeout)
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=0, ssl=self._ssl)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, timeout=self._timeout,
                skip_auto_headers=("Accept-Encoding",),
            )
        return self._session

    async def _exchange(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        content_type: str = JSON,
    ) -> Answer:
        data = orjson.dumps(body) if body is not None else None
        headers = {"Content-Type": content_type} if data is not None else None
        async with self._open().request(
            method, self.base_url + path, params=params or None, data=data, headers=headers
        ) as response:
            content = await response.read()
            return Answer(response.status, response.headers.getall("Warning", ()), content,
                          response.reason or "")

    async def _watch(
        self, resource: Resource, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        async with self._open().get(
            self.base_url + resource.path(namespace=namespace),
            params=params.query(),
            timeout=self._watch_timeout,
        ) as response:
            if response.status != 200:
                Answer(response.status, (), await response.read(), response.reason or "").json()
            pending = b""
            while True:
                try:
                    chunk = await response.content.readany()
                except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError):
                    return  # the connection dropped: the stream is over
                if not chunk:
                    return
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        yield watch_event(line)

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()
