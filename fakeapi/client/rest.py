"""Kubernetes REST over HTTP, whatever the HTTP client: the verbs, the answers, the watch frames.

Two transports speak HTTP: :class:`~fakeapi.client.http.HttpTransport` on httpx (the general
one, which takes a caller's ``httpx.AsyncClient``) and
:class:`~fakeapi.client.session.SessionTransport` on aiohttp (what the components use, for its
far lower cost per request). What they share is here, written once: :class:`RestTransport` maps
each verb of the :class:`~fakeapi.client.transport.Transport` protocol to a request and reads
the answer; a subclass only exchanges bytes (:meth:`RestTransport._exchange`) and streams a
watch's lines (:meth:`RestTransport._watch`).

Answers are read as client-go reads them. A non-2xx answer becomes the
:class:`~fakeapi.errors.StatusError` its ``kind: Status`` body describes (code, reason, message,
details); an answer that is not a Status (a proxy's HTML error page) still becomes one, with the
reason client-go infers from the code. ``Warning`` headers become the reply's warnings. Items of a
LIST from a real cluster carry no ``apiVersion``/``kind``; they are filled in, so objects look the
same whichever server answered. A watch is one JSON event per line; an ``ERROR`` event is raised.
"""

from __future__ import annotations

import abc
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
    "Answer",
    "RestTransport",
    "object_list",
    "parse_warning_header",
    "request_headers",
    "status_error",
    "watch_event",
]

JSON = "application/json"
USER_AGENT = "fakeapi-client/0.1"


def request_headers(token: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    """The headers every request of an HTTP transport carries: JSON, the user agent, the
    bearer token when there is one, then the caller's own."""
    headers = {"Accept": JSON, "User-Agent": USER_AGENT}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    headers.update(extra or {})
    return headers

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
    """The StatusError of a failed answer: its Status body, else ``fallback`` as the message."""
    if isinstance(body, dict) and body.get("kind") == "Status":
        details = body.get("details")
        return StatusError(
            int(body.get("code") or code),
            str(body.get("reason") or _REASONS.get(code, "Unknown")),
            str(body.get("message") or ""),
            details if isinstance(details, dict) else None,
        )
    return StatusError(code, _REASONS.get(code, "Unknown"), fallback)


def object_list(resource: Resource, body: Any) -> ObjectList:
    """A LIST answer's items (with their apiVersion and kind) and list metadata."""
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


def watch_event(line: bytes | str) -> WatchEvent:
    """One line of a watch; an ``ERROR`` event is raised as its StatusError."""
    frame = orjson.loads(line)
    etype = str(frame.get("type") or "")
    obj = frame.get("object")
    if etype == "ERROR":
        raise status_error(int((obj or {}).get("code") or 500), obj, "watch failed")
    return WatchEvent(etype, obj if isinstance(obj, dict) else {})


@dataclass(frozen=True, slots=True)
class Answer:
    """What one request got back: the code, the ``Warning`` header values, the body, and the
    reason phrase (the message of a failure whose body says nothing)."""

    status: int
    warnings: Sequence[str]
    content: bytes
    reason: str = ""

    def json(self) -> Any:
        """The body decoded; a non-2xx answer raises its StatusError."""
        if not 200 <= self.status < 300:
            try:
                body: Any = orjson.loads(self.content)
            except orjson.JSONDecodeError:
                body = None
            text = self.content.decode(errors="replace").strip() or self.reason
            raise status_error(self.status, body, text or f"HTTP {self.status}")
        if not self.content:
            return None
        return orjson.loads(self.content)

    def reply(self) -> Reply:
        body = self.json()
        return Reply(body if isinstance(body, dict) else None,
                     [parse_warning_header(v) for v in self.warnings])


class RestTransport(abc.ABC):
    """The transport's verbs as REST requests; subclasses exchange the bytes (module docstring)."""

    @abc.abstractmethod
    async def _exchange(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        content_type: str = JSON,
    ) -> Answer:
        """Send one request (``body`` JSON-encoded, as ``content_type``); what came back."""

    @abc.abstractmethod
    def _watch(
        self, resource: Resource, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        """The events of one watch request, until the server ends it or the connection drops."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release the connections."""

    # --- reads -------------------------------------------------------------------------------
    async def get(self, resource: Resource, *, namespace: str | None, name: str) -> Obj:
        answer = await self._exchange("GET", resource.path(namespace=namespace, name=name))
        body: Obj = answer.json()
        return body

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList:
        answer = await self._exchange(
            "GET", resource.path(namespace=namespace), params=params.query()
        )
        return object_list(resource, answer.json())

    def watch(
        self, resource: Resource, *, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        return self._watch(resource, namespace, params)

    # --- writes ------------------------------------------------------------------------------
    async def create(
        self, resource: Resource, *, namespace: str | None, body: Obj, params: WriteParams
    ) -> Reply:
        answer = await self._exchange(
            "POST", resource.path(namespace=namespace), params=params.query(), body=body
        )
        return answer.reply()

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
        return (await self._exchange("PUT", path, params=params.query(), body=body)).reply()

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
        answer = await self._exchange(
            "PATCH", path, params=params.query(), body=patch, content_type=content_type
        )
        return answer.reply()

    async def delete(
        self, resource: Resource, *, namespace: str | None, name: str, params: DeleteParams
    ) -> Reply:
        answer = await self._exchange(
            "DELETE",
            resource.path(namespace=namespace, name=name),
            params=params.query(),
            body=params.body(),
        )
        return answer.reply()

    async def delete_collection(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        selection: ListParams,
        params: DeleteParams,
    ) -> ObjectList:
        answer = await self._exchange(
            "DELETE",
            resource.path(namespace=namespace),
            params={**selection.query(), **params.query()},
            body=params.body(),
        )
        return object_list(resource, answer.json())

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
        return (await self._exchange("POST", path, params=params.query(), body=body)).reply()
