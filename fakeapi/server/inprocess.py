"""The in-process transport: the client's requests go straight to the registry, without HTTP.

Controllers, the scheduler and the simulated kubelets run in the server's event loop, so they skip
sockets, HTTP framing and JSON parsing of requests — but not the semantics. Each call takes the
route the HTTP handler would: the same query parsing and option checks
(``fakeapi.server.query``), the same URL rules (unknown resource or subresource → 404, wrong
method → 405), the same registry call, the same patch code and the same response shape (a
``Status`` where the handler writes one). Errors are the registry's own
:class:`~fakeapi.errors.StatusError`, so a conflict reads exactly as it would over HTTP.

Watches behave as the HTTP stream does, except that no periodic BOOKMARK is sent (the server
sends them only to keep idle connections and their resourceVersion fresh; the initial-events-end
bookmark of a WatchList is delivered), and ``timeout_seconds`` is measured on the injected clock.

Every write first yields to the event loop (a request over a socket would), so a component that
writes in a loop never starves the others. Results are decoded from the stored bytes, the way they
would cross a socket, and what the registry keeps of a body is its own: a create or an update
body is decoded into a new object (free-form parts copied), patches and subresource bodies are
copied in. Callers never share dicts with the storage, so a careless mutation cannot corrupt a
stored object, and a caller's body is never modified.

This module imports the registry and the server's request parsing. Components must not import it
(import-linter forbids it); whoever builds the cluster constructs the transport and hands the
components a :class:`~fakeapi.client.Client`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Iterable
from typing import Any

import orjson

from fakeapi import errors
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
from fakeapi.clock import Clock
from fakeapi.objects import deep_copy, object_key
from fakeapi.registry.results import DeleteResult
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType
from fakeapi.server import query
from fakeapi.server.patching import apply_patch_request
from fakeapi.server.replies import (
    delete_reply,
    method_not_allowed,
    success_status,
    url_not_found,
)
from fakeapi.server.routing import Target
from fakeapi.storage.watch import Watcher

__all__ = ["InProcessTransport"]


def _decode(raw: bytes) -> Obj:
    obj: Obj = orjson.loads(raw)
    return obj


class InProcessTransport:
    """Serve client requests from ``registry`` in the calling task.

    ``clock`` (default: the registry's) times ``timeout_seconds`` of watches, so a watch timeout
    follows a fake clock in tests.
    """

    def __init__(self, registry: GenericStore, *, clock: Clock | None = None) -> None:
        self.registry = registry
        self.clock = clock or registry.clock

    # --- routing -----------------------------------------------------------------------------
    def _resource(self, resource: Resource, method: str) -> ResourceType:
        """The resource of a collection URL, refused like the router refuses a bad one."""
        rt = self.registry.resources.lookup(resource.group, resource.version, resource.plural)
        if rt is None:
            raise url_not_found()
        if rt.strategy.create_only and method != "POST":  # a review: answers a create only
            raise method_not_allowed(method)
        return rt

    def _object_target(
        self, resource: Resource, namespace: str | None, name: str, subresource: str = ""
    ) -> ResourceType:
        """The resource of an object URL, refused like the router refuses a bad one."""
        rt = self.registry.resources.lookup(resource.group, resource.version, resource.plural)
        if (
            rt is None
            or rt.strategy.create_only
            or not name
            or (subresource and subresource not in rt.subresources)
        ):
            raise url_not_found()
        if rt.namespaced and not namespace:
            raise url_not_found()
        return rt

    # --- reads -------------------------------------------------------------------------------
    async def get(self, resource: Resource, *, namespace: str | None, name: str) -> Obj:
        rt = self._object_target(resource, namespace, name)
        return _decode(self.registry.get(rt, namespace, name).raw)

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList:
        rt = self._resource(resource, "GET")
        result = self.registry.list(rt, namespace, query.list_options(params.query()))
        return ObjectList(
            items=[_decode(stored.raw) for stored in result.items],
            resource_version=result.resource_version,
            continue_token=result.continue_token,
            remaining_item_count=result.remaining,
        )

    def watch(
        self, resource: Resource, *, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        return self._watch(resource, namespace, params)

    async def _watch(
        self, resource: Resource, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        rt = self._resource(resource, "GET")
        wire = params.query()
        options = query.watch_options(wire)
        timeout = query.timeout_seconds(wire)
        watcher = self.registry.watch(rt, namespace, options)
        deadline = (
            self.clock.monotonic() + timeout if timeout is not None and timeout > 0 else None
        )
        try:
            while True:
                if watcher.queue:
                    for etype, obj, raw in watcher.drain():
                        if etype == "BOOKMARK":
                            if params.allow_bookmarks:
                                yield WatchEvent(etype, _decode(raw))
                            continue
                        # decoded when first read: an informer that already holds this
                        # version (from its own write) never reads it
                        meta = obj["metadata"]
                        yield WatchEvent(
                            etype,
                            decode=functools.partial(_decode, raw),
                            identity=(object_key(obj), str(meta["resourceVersion"])),
                        )
                    continue
                if watcher.closed:
                    return
                if deadline is None:
                    await watcher.wait()
                    continue
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0:
                    return
                await self._wait(watcher, remaining)
        finally:
            watcher.close()

    async def _wait(self, watcher: Watcher, seconds: float) -> None:
        """Until the watcher has something or ``seconds`` of the clock's time have passed."""
        ready = asyncio.ensure_future(watcher.wait())
        timer = asyncio.ensure_future(self.clock.sleep(seconds))
        try:
            await asyncio.wait((ready, timer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
            timer.cancel()

    # --- writes ------------------------------------------------------------------------------
    async def create(
        self, resource: Resource, *, namespace: str | None, body: Obj, params: WriteParams
    ) -> Reply:
        await _yield_to_loop()
        rt = self._resource(resource, "POST")
        if rt.namespaced and not namespace:
            raise method_not_allowed("POST")
        options = query.write_options(params.query(), verb="create")
        result = self.registry.create(rt, namespace, body, options)
        return Reply(_decode(result.raw), list(result.warnings))

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
        await _yield_to_loop()
        rt = self._object_target(resource, namespace, name, subresource)
        if subresource and subresource != "status":
            raise method_not_allowed("PUT")
        options = query.write_options(params.query(), verb="update")
        result = self.registry.update(
            rt, namespace, name, body, options, subresource=subresource
        )
        return Reply(_decode(result.raw), list(result.warnings))

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
        await _yield_to_loop()
        rt = self._object_target(resource, namespace, name, subresource)
        if subresource and subresource != "status":
            raise method_not_allowed("PATCH")
        content_type = PATCH_CONTENT_TYPES.get(patch_type)
        if content_type is None:
            raise errors.unsupported_media_type(str(patch_type))
        result = apply_patch_request(
            self.registry,
            Target(rt, namespace, name, subresource),
            content_type=content_type,
            patch=deep_copy(patch),
            options=query.write_options(
                params.query(), verb="patch", apply_patch=patch_type == "apply"
            ),
        )
        return Reply(_decode(result.raw), list(result.warnings))

    async def delete(
        self, resource: Resource, *, namespace: str | None, name: str, params: DeleteParams
    ) -> Reply:
        await _yield_to_loop()
        rt = self._object_target(resource, namespace, name)
        options = query.delete_options(params.query(), params.body())
        return Reply(_deleted(rt, self.registry.delete(rt, namespace, name, options)))

    async def delete_collection(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        selection: ListParams,
        params: DeleteParams,
    ) -> ObjectList:
        await _yield_to_loop()
        rt = self._resource(resource, "DELETE")
        results: Iterable[DeleteResult] = self.registry.delete_collection(
            rt,
            namespace,
            query.list_options(selection.query()),
            query.delete_options(params.query(), params.body()),
        )
        return ObjectList(
            items=[_decode(result.raw) for result in results],
            resource_version=str(self.registry.resource_version),
        )

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
        await _yield_to_loop()
        rt = self._object_target(resource, namespace, name, subresource)
        if not subresource or subresource == "status":
            raise method_not_allowed("POST")
        if not isinstance(body, dict):
            raise errors.bad_request("the body of the request must be an object")
        self.registry.post_subresource(
            rt,
            namespace,
            name,
            subresource,
            deep_copy(body),
            query.write_options(params.query(), verb="create"),
        )
        return Reply(success_status(code=201))

    async def close(self) -> None:
        """Nothing to release: the registry belongs to whoever built it."""


async def _yield_to_loop() -> None:
    """Let other tasks run before a write, as a socket round trip would.

    A registry call completes without awaiting anything, so a component writing in a loop (or
    retrying a conflict) would otherwise hold the event loop until it is done, starving watchers,
    the other components and the HTTP server.
    """
    await asyncio.sleep(0)


def _deleted(rt: ResourceType, result: DeleteResult) -> Obj:
    """What the DELETE handler answers (see ``fakeapi.server.replies.delete_reply``)."""
    reply = delete_reply(rt, result)
    return _decode(reply) if isinstance(reply, bytes) else reply
