"""The HTTP transport: the same client over REST, to a fakeapi server or a real cluster.

Requests are plain Kubernetes REST with JSON bodies (httpx). A non-2xx answer becomes the
:class:`~fakeapi.errors.StatusError` its ``kind: Status`` body describes — code, reason, message
and details — so callers handle a 409 from a remote server exactly like one raised in-process.
An answer that is not a Status (a proxy's HTML error page) still becomes a StatusError, with the
reason client-go would infer from the code.

A watch is a chunked response of one JSON event per line, read line by line as it arrives; an
``ERROR`` event is raised, and a connection that drops mid-stream ends the stream quietly (the
caller re-watches from the last resourceVersion, as client-go's reflector does).

A server that cannot be reached is not a Status: connection failures surface as httpx's
``TransportError`` (the informer treats them like any other failure: back off, re-list).

Items of a LIST from a real cluster carry no ``apiVersion``/``kind``; they are filled in, so
objects look the same whichever server answered.
"""

from __future__ import annotations

import re
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import orjson

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

JSON = "application/json"
USER_AGENT = "fakeapi-client/0.1"
#: reasons client-go infers from a code when the body is not a Status
_REASONS: Mapping[int, str] = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Gone",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}
_WARNING = re.compile(r'\s*\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(.)")


def parse_warning_header(value: str) -> str:
    """The text of an RFC 7234 ``Warning: 299 - "text"`` header (the value itself if malformed)."""
    match = _WARNING.match(value)
    if match is None:
        return value
    return _ESCAPE.sub(r"\1", match.group(1))


def status_error(code: int, body: Any, fallback: str) -> StatusError:
    if isinstance(body, dict) and body.get("kind") == "Status":
        details = body.get("details")
        return StatusError(
            int(body.get("code") or code),
            str(body.get("reason") or _REASONS.get(code, "Unknown")),
            str(body.get("message") or ""),
            details if isinstance(details, dict) else None,
        )
    return StatusError(code, _REASONS.get(code, "Unknown"), fallback)


def status_error_from_response(response: httpx.Response) -> StatusError:
    """The StatusError a failed response describes (read the body first)."""
    try:
        body: Any = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        body = None
    text = response.text.strip() or response.reason_phrase
    return status_error(response.status_code, body, text)


def _json(response: httpx.Response) -> Any:
    if not response.is_success:
        raise status_error_from_response(response)
    if not response.content:
        return None
    return orjson.loads(response.content)


def _reply(response: httpx.Response) -> Reply:
    body = _json(response)
    warnings = [parse_warning_header(v) for v in response.headers.get_list("warning")]
    return Reply(body if isinstance(body, dict) else None, warnings)


def object_list(resource: Resource, body: Any) -> ObjectList:
    if not isinstance(body, dict):
        raise StatusError(500, "InternalError", "the server answered a list with a non-object")
    meta = body.get("metadata") or {}
    items: list[Obj] = body.get("items") or []
    for item in items:
        item.setdefault("apiVersion", resource.api_version)
        item.setdefault("kind", resource.kind)
    remaining = meta.get("remainingItemCount")
    return ObjectList(
        items=items,
        resource_version=str(meta.get("resourceVersion") or ""),
        continue_token=str(meta.get("continue") or ""),
        remaining_item_count=int(remaining) if remaining is not None else None,
    )


class HttpTransport:
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
        all_headers = {"Accept": JSON, "User-Agent": USER_AGENT}
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        all_headers.update(headers or {})
        self._http = http_client or httpx.AsyncClient(verify=verify, timeout=timeout)
        self._headers = all_headers

    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        content_type: str = JSON,
    ) -> httpx.Response:
        headers = self._headers
        content: bytes | None = None
        if body is not None:
            content = orjson.dumps(body)
            headers = {**headers, "Content-Type": content_type}
        return await self._http.request(
            method, self.base_url + path, params=params or None, content=content, headers=headers
        )

    # --- reads -------------------------------------------------------------------------------
    async def get(self, resource: Resource, *, namespace: str | None, name: str) -> Obj:
        response = await self._request("GET", resource.path(namespace=namespace, name=name))
        body: Obj = _json(response)
        return body

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList:
        response = await self._request(
            "GET", resource.path(namespace=namespace), params=params.query()
        )
        return object_list(resource, _json(response))

    def watch(
        self, resource: Resource, *, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        return self._watch(resource, namespace, params)

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
                if not line.strip():
                    continue
                frame = orjson.loads(line)
                etype = str(frame.get("type") or "")
                obj = frame.get("object")
                if etype == "ERROR":
                    raise status_error(
                        int((obj or {}).get("code") or 500), obj, "watch failed"
                    )
                yield WatchEvent(etype, obj if isinstance(obj, dict) else {})

    # --- writes ------------------------------------------------------------------------------
    async def create(
        self, resource: Resource, *, namespace: str | None, body: Obj, params: WriteParams
    ) -> Reply:
        response = await self._request(
            "POST", resource.path(namespace=namespace), params=params.query(), body=body
        )
        return _reply(response)

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
        response = await self._request("PUT", path, params=params.query(), body=body)
        return _reply(response)

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
        response = await self._request(
            "PATCH", path, params=params.query(), body=patch, content_type=content_type
        )
        return _reply(response)

    async def delete(
        self, resource: Resource, *, namespace: str | None, name: str, params: DeleteParams
    ) -> Reply:
        response = await self._request(
            "DELETE",
            resource.path(namespace=namespace, name=name),
            params=params.query(),
            body=params.body(),
        )
        return _reply(response)

    async def delete_collection(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        selection: ListParams,
        params: DeleteParams,
    ) -> ObjectList:
        response = await self._request(
            "DELETE",
            resource.path(namespace=namespace),
            params={**selection.query(), **params.query()},
            body=params.body(),
        )
        return object_list(resource, _json(response))

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
        response = await self._request("POST", path, params=params.query(), body=body)
        return _reply(response)

    async def close(self) -> None:
        if self._owns_client:
            await self._http.aclose()
