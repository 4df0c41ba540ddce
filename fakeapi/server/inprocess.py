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

A transport made for a ``user`` (the assembler gives each component its identity: the scheduler
``system:kube-scheduler``, a kubelet ``system:node:<name>``...) is authorized as an HTTP request
of that user would be, once the server has authorizers: each call asks them with the request's
attributes (verb, resource, namespace, name, field selector) and is refused with the same 403,
and its writes carry the user to admission, the reviews and the claim status rules. A transport
without a user, or a server without authorizers, skips all of it — no cost on the hot path.

This module imports the registry and the server's request parsing. Components must not import it
(import-linter forbids it); whoever builds the cluster constructs the transport and hands the
components a :class:`~fakeapi.client.Client`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from typing import Any

import orjson

from fakeapi import errors
from fakeapi.auth.attributes import Attributes, forbidden
from fakeapi.auth.request_info import pinned_name
from fakeapi.auth.user import UserInfo
from fakeapi.client.informer import strip_managed_fields
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
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.registry.results import DeleteResult
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType
from fakeapi.selectors import SelectorError, parse_field_selector
from fakeapi.server import query
from fakeapi.server.params import WriteVerb
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

#: distinct write parameter sets a transport keeps the options of (see ``_options``)
_OPTIONS_KEPT = 256


def _decode(raw: bytes) -> Obj:
    obj: Obj = orjson.loads(raw)
    return obj


def _decode_lean(obj: Obj) -> Obj:
    """A new copy of the stored ``obj`` (the very object its bytes were encoded from, never
    modified) without ``metadata.managedFields``: what decoding its bytes and dropping them
    gives, key order included, for about two thirds of the cost (a pod's managedFields are half
    its JSON, and encoding the rest is cheap)."""
    return _decode(orjson.dumps(strip_managed_fields(obj)))


class InProcessTransport:
    """Serve client requests from ``registry`` in the calling task.

    ``clock`` (default: the registry's) times ``timeout_seconds`` of watches, so a watch timeout
    follows a fake clock in tests. ``user`` is who the requests come from (None: a trusted
    client, never authorized).
    """

    def __init__(
        self, registry: GenericStore, *, clock: Clock | None = None, user: UserInfo | None = None
    ) -> None:
        self.registry = registry
        self.clock = clock or registry.clock
        self.user = user
        #: the options of each write parameter set seen, by identity (see :meth:`_options`)
        self._write_options: dict[
            tuple[int, str, bool], tuple[WriteParams, WriteOptions, UserInfo | None]
        ] = {}

    # --- authorization -----------------------------------------------------------------------
    def _authorize(
        self,
        verb: str,
        resource: Resource,
        namespace: str | None,
        name: str = "",
        subresource: str = "",
        field_selector: str = "",
    ) -> None:
        """Refuse the request as the HTTP filters would (nothing without a user or authorizers)."""
        user = self.user
        authorizer = self.registry.authorizer if user is not None else None
        if authorizer is None:
            return
        assert user is not None
        try:
            terms = parse_field_selector(field_selector).requirements if field_selector else ()
        except SelectorError:  # the list itself answers it with a 400
            terms = ()
        if verb in ("list", "watch") and not name:
            name = pinned_name(terms)
        if not resource.namespaced or not namespace:
            namespace = ""
        if resource.group == "" and resource.plural == "namespaces" and name:
            namespace = name  # a namespace is in itself, as the HTTP path says (request_info)
        attrs = Attributes(
            user=user, verb=verb, api_group=resource.group, api_version=resource.version,
            resource=resource.plural, subresource=subresource, namespace=namespace, name=name,
            field_selector=terms,
        )
        answer = authorizer.authorize(attrs)
        if not answer.allowed:
            raise forbidden(attrs, answer.reason)

    def _options(
        self, params: WriteParams, verb: WriteVerb, *, apply_patch: bool = False
    ) -> WriteOptions:
        """``query.write_options`` of ``params``'s query, as the HTTP handler parses it, with
        the request's user. A client hands out one immutable parameter set again and again, so
        the options are kept by its identity (the set is held, so its id is not reused)."""
        key = (id(params), verb, apply_patch)
        kept = self._write_options.get(key)
        if kept is not None and kept[0] is params and kept[2] is self.user:
            return kept[1]
        options = self._as_user(
            query.write_options(params.query(), verb=verb, apply_patch=apply_patch), verb
        )
        if len(self._write_options) >= _OPTIONS_KEPT:
            self._write_options.clear()
        self._write_options[key] = (params, options, self.user)
        return options

    def _as_user(self, options: WriteOptions, verb: str) -> WriteOptions:
        return options if self.user is None else replace(options, user=self.user, verb=verb)

    def _deleting_as_user(self, options: DeleteOptions) -> DeleteOptions:
        return options if self.user is None else replace(options, user=self.user)

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
        self._authorize("get", resource, namespace, name)
        rt = self._object_target(resource, namespace, name)
        return _decode(self.registry.get(rt, namespace, name).raw)

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList:
        self._authorize("list", resource, namespace, field_selector=params.field_selector)
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
        self._authorize("watch", resource, namespace, field_selector=params.field_selector)
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
                            decode_lean=functools.partial(_decode_lean, obj),
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
        self._authorize("create", resource, namespace)
        rt = self._resource(resource, "POST")
        if rt.namespaced and not namespace:
            raise method_not_allowed("POST")
        options = self._options(params, "create")
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
        self._authorize("update", resource, namespace, name, subresource)
        rt = self._object_target(resource, namespace, name, subresource)
        if subresource and subresource != "status":
            raise method_not_allowed("PUT")
        options = self._options(params, "update")
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
        self._authorize("patch", resource, namespace, name, subresource)
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
            options=self._options(params, "patch", apply_patch=patch_type == "apply"),
        )
        return Reply(_decode(result.raw), list(result.warnings))

    async def delete(
        self, resource: Resource, *, namespace: str | None, name: str, params: DeleteParams
    ) -> Reply:
        await _yield_to_loop()
        self._authorize("delete", resource, namespace, name)
        rt = self._object_target(resource, namespace, name)
        options = self._deleting_as_user(query.delete_options(params.query(), params.body()))
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
        self._authorize(
            "deletecollection", resource, namespace, field_selector=selection.field_selector
        )
        rt = self._resource(resource, "DELETE")
        results: Iterable[DeleteResult] = self.registry.delete_collection(
            rt,
            namespace,
            query.list_options(selection.query()),
            self._deleting_as_user(query.delete_options(params.query(), params.body())),
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
        self._authorize("create", resource, namespace, name, subresource)
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
            self._options(params, "create"),
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
