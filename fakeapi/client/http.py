"""The HTTP transport on httpx: the same client over REST, to a fakeapi server or a real cluster.

Requests are plain Kubernetes REST with JSON bodies; what every HTTP transport shares (the verbs,
Status errors, warnings, list items, watch frames) is :mod:`fakeapi.client.rest`, whose helpers
are re-exported here. This transport takes a caller's ``httpx.AsyncClient`` (a mock transport in
tests, a remote cluster's shared client); :class:`~fakeapi.client.session.SessionTransport` is
the cheaper one on aiohttp that the components use.

A watch is read line by line as it arrives; a connection that drops mid-stream ends the stream
quietly (the caller re-watches from the last resourceVersion, as client-go's reflector does). A
server that cannot be reached is not a Status: connection failures surface as httpx's
``TransportError`` (the informer treats them like any other failure: back off, re-list).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import orjson

from fakeapi.client.resource import Resource
from fakeapi.client.rest import (
    JSON,
    USER_AGENT,
    Answer,
    RestTransport,
    object_list,
    parse_warning_header,
    request_headers,
    status_error,
    watch_event,
)
from fakeapi.client.transport import WatchEvent, WatchParams
from fakeapi.errors import StatusError

__all__ = [
    "JSON",
    "USER_AGENT",
    "HttpTransport",
    "object_list",
    "parse_warning_header",
    "status_error",
    "status_error_from_response",
]


def status_error_from_response(response: httpx.Response) -> StatusError:
    """The StatusError a failed httpx response describes (read the body first)."""
    try:
        body: Any = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        body = None
    text = response.text.strip() or response.reason_phrase
    return status_error(response.status_code, body, text)


class HttpTransport(RestTransport):
    """Talk to the API server at ``base_url`` (``http://127.0.0.1:6443``, ``https://...``).

    ``token`` is sent as a bearer token; ``verify`` is httpx's (a CA bundle path, an SSLContext,
    or False). ``timeout`` bounds ordinary requests; watches have no read timeout (the server
    ends them). Pass ``http_client`` to share or customise an ``httpx.AsyncClient``; it is then
    not closed by :meth:`close`.
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        verify: ssl.SSLContext | str | bool = True,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._owns_client = http_client is None
        self._http = http_client or httpx.AsyncClient(verify=verify, timeout=timeout)
        self._headers = request_headers(token, headers)

    async def _exchange(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        content_type: str = JSON,
    ) -> Answer:
        headers = self._headers
        content: bytes | None = None
        if body is not None:
            content = orjson.dumps(body)
            headers = {**headers, "Content-Type": content_type}
        response = await self._http.request(
            method, self.base_url + path, params=params or None, content=content, headers=headers
        )
        return Answer(response.status_code, response.headers.get_list("warning"),
                      response.content, response.reason_phrase)

    async def _watch(
        self, resource: Resource, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        timeout = httpx.Timeout(self._timeout, read=None)
        async with self._http.stream(
            "GET",
            self.base_url + resource.path(namespace=namespace),
            params=params.query(),
            headers=self._headers,
            timeout=timeout,
        ) as response:
            if response.status_code != 200:
                await response.aread()
                raise status_error_from_response(response)
            lines = response.aiter_lines()
            while True:
                try:
                    line = await lines.__anext__()
                except StopAsyncIteration:
                    return
                except (httpx.RemoteProtocolError, httpx.ReadError):
                    return  # the connection dropped: the stream is over
                if line.strip():
                    yield watch_event(line)

    async def close(self) -> None:
        if self._owns_client:
            await self._http.aclose()
