"""Thin HTTP handlers for resource URLs: parse, call the registry, encode. No kind-specific code.

Each verb maps to one registry call; what differs between kinds lives in strategies. Responses
reuse the stored encodings: a GET writes the stored bytes as they are and a LIST concatenates
them, so reads never re-serialise objects. A write is answered only once the storage says it is
durable (at once in memory; once its batch is fsynced with a data directory).
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import random
from collections.abc import Awaitable, Iterable
from dataclasses import replace
from typing import Any

import orjson
from aiohttp import web

from fakeapi import errors
from fakeapi.registry.options import DeleteOptions, ListOptions, WatchOptions, WriteOptions
from fakeapi.registry.results import DeleteResult, WriteResult
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceTable, ResourceType
from fakeapi.selectors import parse_field_selector
from fakeapi.server import query as q
from fakeapi.server.authfilter import request_user
from fakeapi.server.encoding import (
    json_bytes_response,
    json_response,
    media_type,
    read_body,
    warning_header,
)
from fakeapi.server.limits import RequestLimits
from fakeapi.server.params import WriteVerb
from fakeapi.server.partial_metadata import partial_list, partial_object, response_view
from fakeapi.server.patching import APPLY, apply_patch_request
from fakeapi.server.printing import render_table
from fakeapi.server.replies import (
    delete_reply,
    method_not_allowed,
    success_status,
    url_not_found,
)
from fakeapi.server.routing import Target, resolve, unserved_stream
from fakeapi.server.scaling import get_scale, write_scale_request
from fakeapi.server.watchstream import error_stream, stream_watch
from fakeapi.storage.watch import Watcher

__all__ = ["ResourceHandlers", "WatchSettings"]

#: objects a list prints on the event loop, and a collection delete deletes between yields
_SLICE = 500


class WatchSettings:
    """Server-wide watch behaviour (tests shorten these)."""

    def __init__(self, *, min_timeout: float = 1800.0, bookmark_interval: float = 60.0) -> None:
        self.min_timeout = min_timeout
        self.bookmark_interval = bookmark_interval

    def default_timeout(self) -> float:
        # upstream randomises between the minimum and twice the minimum
        return self.min_timeout * (1 + random.random())


class ResourceHandlers:
    def __init__(
        self,
        *,
        registry: GenericStore,
        watch: WatchSettings | None = None,
        limits: RequestLimits | None = None,
    ) -> None:
        self.registry = registry
        self.limits = limits or RequestLimits()
        self.resources: ResourceTable = registry.resources
        # URL → target depends only on the resource table: cache recent paths while its rows
        # stay the same (custom resources come and go with their definitions)
        self._resolve = functools.lru_cache(maxsize=4096)(
            functools.partial(resolve, self.resources)
        )
        self._resolved_generation = self.resources.generation
        self.watch_settings = watch or WatchSettings()

    def dispatch(
        self, request: web.Request, group: str, version: str, tail: str
    ) -> Awaitable[web.StreamResponse]:
        """The resource URL ``tail`` of ``group``/``version`` served (a plain function
        returning the coroutine: one coroutine less per request)."""
        generation = self.resources.generation
        if generation != self._resolved_generation:
            self._resolve.cache_clear()
            self._resolved_generation = generation
        target = self._resolve(group, version, tail)
        if target is None:
            stream = unserved_stream(group, tail)
            if stream is not None:
                namespace, plural, name, sub = stream
                where = f"{namespace}/{name}" if namespace else name
                raise errors.bad_request(
                    f"{plural}/{sub} of {where} is not served: fakeapi's simulated kubelets run "
                    "no containers to connect to"
                )
            raise url_not_found()
        if target.resource.request_warnings:
            return self._serve_warned(request, target)
        return self._serve(request, target)

    async def _serve_warned(self, request: web.Request, target: Target) -> web.StreamResponse:
        response = await self._serve(request, target)
        if not response.prepared:  # a deprecated version says so on every answer
            for text in target.resource.request_warnings:
                response.headers.add("Warning", warning_header(text))
        return response

    async def _serve(self, request: web.Request, target: Target) -> web.StreamResponse:
        method = request.method
        if target.watch_path and method != "GET":  # /watch/ paths serve the watch verb only
            raise method_not_allowed(method)
        if target.resource.strategy.create_only:  # a review: POST to the collection only
            if target.name is not None or target.watch_path:
                raise url_not_found()
            if method != "POST":
                raise method_not_allowed(method)
        if target.name is None:
            if method == "GET":
                if target.watch_path or q.flag(request.query, "watch"):
                    return await self.watch(request, target)
                return await self.list(request, target)
            if method == "POST":
                if target.resource.namespaced and target.namespace is None:
                    raise method_not_allowed(method)
                return await self.create(request, target)
            if method == "DELETE":
                return await self.delete_collection(request, target)
            raise method_not_allowed(method)
        if target.watch_path:
            if method != "GET":
                raise method_not_allowed(method)
            return await self.watch(request, target)
        if target.resource.namespaced and target.namespace is None:
            raise url_not_found()
        if target.subresource == "scale":
            return await self.scale(request, target)
        if target.subresource in target.resource.strategy.subresource_reads:
            if method != "GET":
                raise method_not_allowed(method)
            return await self.read_subresource(request, target)
        if target.subresource and target.subresource != "status":
            if method in ("POST", "PUT"):
                return await self.post_subresource(request, target)
            raise method_not_allowed(method)
        if method == "GET":
            return self.get(request, target)
        if method == "PUT":
            return await self.update(request, target)
        if method == "PATCH":
            return await self.patch(request, target)
        if method == "DELETE" and not target.subresource:
            return await self.delete(request, target)
        raise method_not_allowed(method)

    # --- reads -------------------------------------------------------------------------------
    def get(self, request: web.Request, target: Target) -> web.Response:
        assert target.name is not None
        stored = self.registry.get(
            target.resource,
            target.namespace,
            target.name,
            resource_version=request.query.get("resourceVersion", ""),
        )
        view = response_view(request.headers.get("Accept", ""))
        if view == "Table":
            body = render_table(
                target.resource,
                [stored.obj],
                now=self.registry.clock.now(),
                include=q.include_object(request.query),
                resource_version=str(stored.rv),
            )
            return json_response(body)
        if view:
            return json_response(partial_object(stored.obj))
        return json_bytes_response(stored.raw)

    async def read_subresource(self, request: web.Request, target: Target) -> web.StreamResponse:
        assert target.name is not None
        rt, subresource = target.resource, target.subresource
        options = q.read_options(request.query)
        content_type, body = self.registry.read_subresource(
            rt, target.namespace, target.name, subresource, options
        )
        watcher = self.registry.follow_subresource(
            rt, target.namespace, target.name, subresource, options
        )
        if watcher is None:
            return web.Response(body=body, content_type=content_type)
        # followed (``kubectl logs -f``): open until the subresource is complete or the object
        # goes; what it would add meanwhile is nothing (simulated containers print nothing)
        response = web.StreamResponse(headers={"Content-Type": content_type})
        await response.prepare(request)
        await response.write(body)
        try:
            following = True
            while following and await watcher.wait() and not watcher.closed:
                for etype, obj, _ in watcher.drain():
                    if etype == "DELETED" or not self.registry.still_following(
                        rt, subresource, obj, options
                    ):
                        following = False
        finally:
            watcher.close()
        await response.write_eof()
        return response

    async def list(self, request: web.Request, target: Target) -> web.Response:
        rt = target.resource
        view = response_view(request.headers.get("Accept", ""))
        result = self.registry.list(rt, target.namespace, q.list_options(request.query))
        if view == "Table":
            render = functools.partial(
                render_table,
                rt,
                [s.obj for s in result.items],
                now=self.registry.clock.now(),
                include=q.include_object(request.query),
                resource_version=result.resource_version,
                continue_token=result.continue_token,
                remaining=result.remaining,
            )
            # printing is Python work per object: a long table is printed off the event loop
            # (the stored versions it reads are immutable)
            if len(result.items) > _SLICE:
                return json_response(await asyncio.to_thread(render))
            return json_response(render())
        meta: dict[str, Any] = {"resourceVersion": result.resource_version}
        if result.continue_token:
            meta["continue"] = result.continue_token
        if result.remaining is not None:
            meta["remainingItemCount"] = result.remaining
        if view:
            return json_bytes_response(partial_list(meta, (s.obj for s in result.items)))
        return json_bytes_response(_list_body(rt, meta, (s.raw for s in result.items)))

    async def watch(self, request: web.Request, target: Target) -> web.StreamResponse:
        rt = target.resource
        options = q.watch_options(request.query, watch_path=target.watch_path)
        if target.name is not None:
            options = _with_name(options, target.name)
        timeout = q.timeout_seconds(request.query)
        with self.limits.watch_slot(request):
            try:
                watcher = self.registry.watch(rt, target.namespace, options)
            except errors.StatusError as exc:
                if exc.code in (410, 504):  # expired, or too large: an ERROR event, as upstream
                    return await error_stream(request, exc)
                raise
            return await self._stream(request, rt, watcher, options, timeout)

    async def _stream(
        self,
        request: web.Request,
        rt: ResourceType,
        watcher: Watcher,
        options: WatchOptions,
        timeout: int | None,
    ) -> web.StreamResponse:
        settings = self.watch_settings
        return await stream_watch(
            request,
            rt=rt,
            watcher=watcher,
            timeout=float(timeout) if timeout and timeout > 0 else settings.default_timeout(),
            allow_bookmarks=options.allow_bookmarks,
            bookmark_interval=settings.bookmark_interval,
            current_rv=lambda: self.registry.resource_version,
            view=response_view(request.headers.get("Accept", "")),
            include=q.include_object(request.query),
            now=self.registry.clock.now,
        )

    # --- writes ------------------------------------------------------------------------------
    async def _body(
        self, request: web.Request, verb: WriteVerb, *, apply_patch: bool = False
    ) -> tuple[Any, WriteOptions]:
        q.write_options(request.query, verb=verb, apply_patch=apply_patch)  # fail before reading
        validation = request.query.get("fieldValidation", "") or "Warn"
        body, dups = await read_body(request, want_duplicates=validation != "Ignore")
        options = q.write_options(
            request.query, verb=verb, apply_patch=apply_patch, duplicates=dups
        )
        if not options.field_manager:  # upstream's managerOrUserAgent
            manager = _user_agent_manager(request.headers.get("User-Agent", ""))
            if manager:
                options = replace(options, field_manager=manager)
        user, auth_verb = request_user(request)
        if user is not None:
            options = replace(options, user=user, verb=auth_verb)
        return body, options

    async def _written(
        self, rt: ResourceType, result: WriteResult, *, status: int
    ) -> web.Response:
        await self.registry.storage.durable()
        return json_bytes_response(result.raw, status=status, warnings=result.warnings)

    async def create(self, request: web.Request, target: Target) -> web.Response:
        body, options = await self._body(request, "create")
        result = self.registry.create(target.resource, target.namespace, body, options)
        return await self._written(target.resource, result, status=201)

    async def update(self, request: web.Request, target: Target) -> web.Response:
        assert target.name is not None
        body, options = await self._body(request, "update")
        result = self.registry.update(
            target.resource,
            target.namespace,
            target.name,
            body,
            options,
            subresource=target.subresource,
        )
        return await self._written(target.resource, result, status=201 if result.created else 200)

    async def patch(self, request: web.Request, target: Target) -> web.Response:
        assert target.name is not None
        content_type = request.headers.get("Content-Type", "")
        body, options = await self._body(
            request, "patch", apply_patch=media_type(content_type) == APPLY
        )
        result = apply_patch_request(
            self.registry,
            target,
            content_type=content_type,
            patch=body,
            options=options,
        )
        return await self._written(target.resource, result, status=201 if result.created else 200)

    async def scale(self, request: web.Request, target: Target) -> web.Response:
        """``<object>/scale``: an autoscaling/v1 Scale view (:mod:`fakeapi.server.scaling`)."""
        if request.method == "GET":
            return get_scale(self.registry, target)
        if request.method not in ("PUT", "PATCH"):
            raise method_not_allowed(request.method)
        body, options = await self._body(request, "update" if request.method == "PUT" else "patch")
        return write_scale_request(self.registry, request, target, body, options)

    async def post_subresource(self, request: web.Request, target: Target) -> web.Response:
        assert target.name is not None
        body, options = await self._body(request, "create")
        if not isinstance(body, dict):
            raise errors.bad_request("the body of the request must be an object")
        result = self.registry.post_subresource(
            target.resource, target.namespace, target.name, target.subresource, body, options
        )
        await self.registry.storage.durable()
        if request.method == "PUT":  # e.g. namespaces/finalize answers with the object
            return json_bytes_response(result.raw)
        return json_response(success_status(code=201), status=201)

    async def delete(self, request: web.Request, target: Target) -> web.Response:
        assert target.name is not None
        body = await _optional_body(request)
        options = _with_user(request, q.delete_options(request.query, body))
        result = self.registry.delete(target.resource, target.namespace, target.name, options)
        return await self._deleted(target.resource, result)

    async def _deleted(self, rt: ResourceType, result: DeleteResult) -> web.Response:
        await self.registry.storage.durable()
        reply = delete_reply(rt, result)
        if isinstance(reply, bytes):
            return json_bytes_response(reply)
        return json_response(reply)

    async def delete_collection(self, request: web.Request, target: Target) -> web.Response:
        rt = target.resource
        body = await _optional_body(request)
        options = _with_user(request, q.delete_options(request.query, body))
        list_options = q.list_options(request.query)
        sliced = not (
            list_options.limit
            or list_options.continue_token
            or list_options.resource_version
            or list_options.resource_version_match
        )
        if not sliced:
            results = self.registry.delete_collection(rt, target.namespace, list_options, options)
        else:
            results = await self._delete_in_slices(target, list_options, options)
        meta = {"resourceVersion": str(self.registry.resource_version)}
        await self.registry.storage.durable()
        return json_bytes_response(_list_body(rt, meta, (r.raw for r in results)))

    async def _delete_in_slices(
        self, target: Target, list_options: ListOptions, options: DeleteOptions
    ) -> builtins.list[DeleteResult]:
        """A whole collection deleted page by page of one consistent list (as one call would
        delete it), letting other requests in between pages."""
        rt, namespace = target.resource, target.namespace
        page = replace(list_options, limit=_SLICE)
        results: builtins.list[DeleteResult] = []
        while True:
            try:
                token = self.registry.list(rt, namespace, page).continue_token
            except errors.StatusError as exc:
                if exc.code != 410:  # the list's snapshot left the history: the rest at once
                    raise
                rest = replace(list_options, continue_token="")
                return results + self.registry.delete_collection(rt, namespace, rest, options)
            results += self.registry.delete_collection(rt, namespace, page, options)
            if not token:
                return results
            page = replace(page, continue_token=token)
            await asyncio.sleep(0)


def _with_user(request: web.Request, options: DeleteOptions) -> DeleteOptions:
    """``options`` with the user the auth filters found (as they are without authentication)."""
    user, _ = request_user(request)
    return options if user is None else replace(options, user=user)


async def _optional_body(request: web.Request) -> Any:
    if not request.can_read_body:
        return None
    raw = await request.read()
    if not raw.strip():
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise errors.bad_request(f"couldn't get version/kind; json parse error: {exc}") from None


def _with_name(options: WatchOptions, name: str) -> WatchOptions:
    """A watch on one object (``/watch/<plural>/<name>``) is a watch selecting its name."""
    selector = f"metadata.name={name}"
    if options.field_selector is not None and not options.field_selector.empty:
        selector = f"{options.field_selector},{selector}"
    return replace(options, field_selector=parse_field_selector(selector))


def _list_body(rt: ResourceType, meta: dict[str, Any], items: Iterable[bytes]) -> bytes:
    """A ``<Kind>List`` made of already encoded items (never re-serialised)."""
    head = orjson.dumps({"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": meta})
    return head[:-1] + b',"items":[' + b",".join(items) + b"]}"


#: upstream's FieldManagerMaxLength
_FIELD_MANAGER_MAX = 128


def _user_agent_manager(user_agent: str) -> str:
    """The field manager of a write that names none: the User-Agent up to its first ``/``
    (``kubectl-client-side-apply``, ``python-httpx``), printable characters only, at most 128
    bytes, as upstream's prefixFromUserAgent."""
    name = ""
    for char in user_agent.split("/", 1)[0]:
        if not char.isprintable():
            continue
        if len((name + char).encode()) > _FIELD_MANAGER_MAX:
            break
        name += char
    return name
