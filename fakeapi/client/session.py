"""The HTTP transport on aiohttp's client: what the components use when they talk HTTP.

:class:`~fakeapi.client.http.HttpTransport` (httpx) is the general one: it takes a caller's
``httpx.AsyncClient`` (a mock transport in tests, the remote cluster's shared client) and raises
httpx's errors, which callers outside fakeapi catch. Its cost is the reason for this module:
httpx spends 0.6-1.5 ms of CPU on each request on a loopback connection, more under
concurrency, where aiohttp's client spends 0.07-0.13 ms, so a scheduler or controller manager
writing over HTTP (``Cluster(transport="http")``, ``fakeapi sandbox --split``) spent most of its
core in its HTTP client. :class:`SessionTransport` speaks the same REST and reads answers the
same way (the helpers of ``fakeapi.client.http``: Status errors, warnings, list items); only the
client library differs.

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

from fakeapi.client.http import (
    JSON,
    USER_AGENT,
    object_list,
    parse_warning_header,
    status_error,
)
from fakeapi.client.resource import Resource
from fakeapi.client.transport import (
    PATCH_CONTENT_TYPES,
    DeleteParams,
    ListParams,
    Obj,
    ObjectList,
    PatchType,
    Reply,
    WatchEvent,
    WatchParams,
    WriteParams,
)

__all__ = ["SessionTransport"]


class SessionTransport:
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
        self._headers = {"Accept": JSON, "User-Agent": USER_AGENT}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._headers.update(headers or {})
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

    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        content_type: str = JSON,
    ) -> tuple[int, Mapping[str, str], bytes]:
        """The status, headers and body of one request (headers as a multi-valued mapping)."""
        data = orjson.dumps(body) if body is not None else None
        headers = {"Content-Type": content_type} if data is not None else None
        async with self._open().request(
            method, self.base_url + path, params=params or None, data=data, headers=headers
        ) as response:
            return response.status, response.headers, await response.read()

    @staticmethod
    def _json(status: int, content: bytes) -> Any:
        if not 200 <= status < 300:
            try:
                body: Any = orjson.loads(content)
            except orjson.JSONDecodeError:
                body = None
            text = content.decode(errors="replace").strip() or f"HTTP {status}"
            raise status_error(status, body, text)
        if not content:
            return None
        return orjson.loads(content)

    def _reply(self, answer: tuple[int, Mapping[str, str], bytes]) -> Reply:
        status, headers, content = answer
        body = self._json(status, content)
        getall = getattr(headers, "getall", None)
        values: list[str] = list(getall("Warning", ())) if getall is not None else []
        return Reply(body if isinstance(body, dict) else None,
                     [parse_warning_header(v) for v in values])

    # --- reads -------------------------------------------------------------------------------
    async def get(self, resource: Resource, *, namespace: str | None, name: str) -> Obj:
        status, _, content = await self._request(
            "GET", resource.path(namespace=namespace, name=name)
        )
        body: Obj = self._json(status, content)
        return body

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList:
        status, _, content = await self._request(
            "GET", resource.path(namespace=namespace), params=params.query()
        )
        return object_list(resource, self._json(status, content))

    def watch(
        self, resource: Resource, *, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        return self._watch(resource, namespace, params)

    async def _watch(
        self, resource: Resource, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        async with self._open().get(
            self.base_url + resource.path(namespace=namespace),
            params=params.query(),
            timeout=self._watch_timeout,
        ) as response:
            if response.status != 200:
                self._json(response.status, await response.read())
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
                        yield self._event(line)

    @staticmethod
    def _event(line: bytes) -> WatchEvent:
        frame = orjson.loads(line)
        etype = str(frame.get("type") or "")
        obj = frame.get("object")
        if etype == "ERROR":
            raise status_error(int((obj or {}).get("code") or 500), obj, "watch failed")
        return WatchEvent(etype, obj if isinstance(obj, dict) else {})

    # --- writes ------------------------------------------------------------------------------
    async def create(
        self, resource: Resource, *, namespace: str | None, body: Obj, params: WriteParams
    ) -> Reply:
        return self._reply(await self._request(
            "POST", resource.path(namespace=namespace), params=params.query(), body=body
        ))

    async def update(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        name: str,
        body: Obj,
        subresource: str,
        params: WriteParams,
    ) -> Reply:
        path = resource.path(namespace=namespace, name=name, subresource=subresource)
        return self._reply(await self._request("PUT", path, params=params.query(), body=body))

    async def patch(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        name: str,
        patch_type: PatchType,
        patch: Any,
        subresource: str,
        params: WriteParams,
    ) -> Reply:
        content_type = PATCH_CONTENT_TYPES.get(patch_type)
        if content_type is None:
            raise ValueError(f"unknown patch type {patch_type!r}")
        path = resource.path(namespace=namespace, name=name, subresource=subresource)
        return self._reply(await self._request(
            "PATCH", path, params=params.query(), body=patch, content_type=content_type
        ))

    async def delete(
        self, resource: Resource, *, namespace: str | None, name: str, params: DeleteParams
    ) -> Reply:
        return self._reply(await self._request(
            "DELETE",
            resource.path(namespace=namespace, name=name),
            params=params.query(),
            body=params.body(),
        ))

    async def delete_collection(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        selection: ListParams,
        params: DeleteParams,
    ) -> ObjectList:
        status, _, content = await self._request(
            "DELETE",
            resource.path(namespace=namespace),
            params={**selection.query(), **params.query()},
            body=params.body(),
        )
        return object_list(resource, self._json(status, content))

    async def create_subresource(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        name: str,
        subresource: str,
        body: Obj,
        params: WriteParams,
    ) -> Reply:
        path = resource.path(namespace=namespace, name=name, subresource=subresource)
        return self._reply(await self._request("POST", path, params=params.query(), body=body))

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()
