"""The client every component uses, whichever transport carries its requests.

:class:`Client` is where requests get their defaults (the client's field manager), their
namespace (from the argument or the body, checked once for namespaced kinds), and where Warning
headers go; a :class:`~fakeapi.client.transport.Transport` then performs the bare REST call. So a
controller written against ``Client`` behaves the same in-process and against a server over HTTP,
and a test can swap one for the other.

Objects are plain JSON-shaped dicts (camelCase keys, as on the wire). What a method returns is a
fresh copy the caller may change; nothing the caller passes in is modified.
"""

from __future__ import annotations

import builtins
import functools
import logging
from collections.abc import Callable
from types import TracebackType
from typing import Any

from fakeapi.client.resource import Resource
from fakeapi.client.transport import (
    DeleteParams,
    FieldValidation,
    ListParams,
    Obj,
    ObjectList,
    PatchType,
    Preconditions,
    PropagationPolicy,
    Reply,
    Transport,
    WatchParams,
    WatchStream,
    WriteParams,
)
from fakeapi.errors import StatusError
from fakeapi.objects import as_dict, meta

__all__ = ["DEFAULT_FIELD_MANAGER", "DEFAULT_PAGE_SIZE", "Client", "WriteObserver"]

log = logging.getLogger("fakeapi.client")
#: distinct write parameter sets a client keeps built (see ``Client._write_params``)
_PARAMS_KEPT = 64

DEFAULT_FIELD_MANAGER = "fakeapi-client"
#: the page size ``list_all`` asks for (client-go's pager uses the same)
DEFAULT_PAGE_SIZE = 500


#: told of every object this client wrote (``deleted``: the object is gone), after the write
WriteObserver = Callable[[Resource, Obj, bool], None]


def _still_exists(obj: Obj) -> bool:
    """Whether a DELETE that answered with ``obj`` left it in place (finalizers, grace period).

    An object removed at once comes back as it last was, without a deletionTimestamp.
    """
    meta = obj.get("metadata") or {}
    if not meta.get("deletionTimestamp"):
        return False
    return bool(meta.get("finalizers")) or bool(meta.get("deletionGracePeriodSeconds"))


def _log_warning(text: str) -> None:
    log.warning("server warning: %s", text)


class Client:
    """Async CRUD, patch and watch for any served kind, over one transport.

    ``field_manager`` is used for every write that does not name its own (and is what
    server-side apply records as the owner of applied fields). Warning headers the server sends
    go to ``on_warning`` (by default: logged on the ``fakeapi.client`` logger). ``resolve``
    turns a resource named as kubectl names it (``"pods"``, ``"pod"``, ``"po"``) into a
    :class:`Resource`; without it every method takes a :class:`Resource` only. ``namespace``
    is where a request about one namespaced object goes when neither the call nor the body
    names one (a kubeconfig context's namespace); lists and watches without a namespace still
    cover every namespace.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        field_manager: str = DEFAULT_FIELD_MANAGER,
        on_warning: Callable[[str], None] | None = None,
        resolve: Callable[[str], Resource] | None = None,
        namespace: str | None = None,
    ) -> None:
        self.transport = transport
        self.field_manager = field_manager
        self.namespace = namespace
        self._on_warning = on_warning or _log_warning
        self._resolve = resolve
        self._write_observers: list[WriteObserver] = []
        self._params: dict[tuple[bool, str, FieldValidation | None, bool | None], WriteParams] = {}

    def _resource(self, resource: Resource | str) -> Resource:
        """``resource``, or the resource its name denotes."""
        if isinstance(resource, Resource):
            return resource
        if self._resolve is None:
            raise TypeError(
                f"this client takes a fakeapi.client.Resource (e.g. fakeapi.client.PODS), not "
                f"{resource!r}: it was made without a resolve function for resource names"
            )
        return self._resolve(resource)

    def add_write_observer(self, observer: WriteObserver) -> Callable[[], None]:
        """Tell ``observer`` about every object this client creates, updates, patches or
        deletes (dry runs excluded); returns a function that removes it again.

        This is how an :class:`~fakeapi.client.InformerFactory` gives its informers
        read-your-writes. Observers run synchronously and must be quick.
        """
        self._write_observers.append(observer)
        return lambda: self._write_observers.remove(observer)

    def _notify(self, resource: Resource, obj: Obj, *, deleted: bool) -> None:
        for observer in self._write_observers:
            try:
                observer(resource, obj, deleted)
            except Exception:
                log.exception("write observer failed")

    def _observed(self, resource: Resource, obj: Obj, *, dry_run: bool) -> Obj:
        if not dry_run and obj.get("kind") != "Status":
            self._notify(resource, obj, deleted=False)
        return obj

    async def close(self) -> None:
        await self.transport.close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- helpers -----------------------------------------------------------------------------
    def _namespace(
        self, resource: Resource, namespace: str | None, body: Any = None
    ) -> str | None:
        """The namespace of a request about one object: required for namespaced kinds."""
        if not resource.namespaced:
            return None
        resolved = namespace or meta(as_dict(body)).get("namespace") or self.namespace
        if not resolved:
            raise ValueError(
                f"{resource} is namespaced: pass namespace= or set metadata.namespace"
            )
        return str(resolved)

    @staticmethod
    def _name(resource: Resource, body: Any) -> str:
        name = meta(as_dict(body)).get("name")
        if not name:
            raise ValueError(f"the {resource.kind} body has no metadata.name")
        return str(name)

    def _write_params(
        self,
        *,
        dry_run: bool,
        field_manager: str | None,
        field_validation: FieldValidation | None,
        force: bool | None = None,
    ) -> WriteParams:
        manager = self.field_manager if field_manager is None else field_manager
        # a client sends the same few parameter sets on every write: each is built once and
        # handed out again (it is immutable), so a transport may keep what it derives from one
        key = (dry_run, manager, field_validation, force)
        params = self._params.get(key)
        if params is None:
            if len(self._params) >= _PARAMS_KEPT:
                self._params.clear()
            params = self._params[key] = WriteParams(
                dry_run=dry_run,
                field_manager=manager,
                field_validation=field_validation,
                force=force,
            )
        return params

    def _object(self, reply: Reply) -> Obj:
        for text in reply.warnings:
            self._on_warning(text)
        if reply.object is None:
            raise StatusError(500, "InternalError", "the server answered a write without a body")
        return reply.object

    # --- reads -------------------------------------------------------------------------------
    async def get(
        self, resource: Resource | str, *, name: str, namespace: str | None = None
    ) -> Obj:
        """The object, or StatusError 404."""
        resource = self._resource(resource)
        return await self.transport.get(
            resource, namespace=self._namespace(resource, namespace), name=name
        )

    async def list(
        self,
        resource: Resource | str,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
    ) -> ObjectList:
        """One page (everything when ``limit`` is 0); ``namespace=None`` lists all namespaces."""
        resource = self._resource(resource)
        params = ListParams(
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit,
            continue_token=continue_token,
            resource_version=resource_version,
            resource_version_match=resource_version_match,
        )
        ns = namespace if resource.namespaced else None
        return await self.transport.list(resource, namespace=ns, params=params)

    async def list_all(
        self,
        resource: Resource | str,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> ObjectList:
        """Every object, fetched in pages of ``page_size`` that form one consistent snapshot.

        The result's resourceVersion is that of the snapshot, the right place to start a watch.
        If a continue token expires midway (410), the list starts over without paging, as
        client-go's pager does.
        """
        resource = self._resource(resource)
        page = functools.partial(
            self.list,
            resource,
            namespace=namespace,
            label_selector=label_selector,
            field_selector=field_selector,
        )
        first = await page(limit=page_size)
        items = first.items
        token = first.continue_token
        while token:
            try:
                following = await page(limit=page_size, continue_token=token)
            except StatusError as exc:
                if exc.code != 410:
                    raise
                return await page()
            items.extend(following.items)
            token = following.continue_token
        return ObjectList(items=items, resource_version=first.resource_version)

    def watch(
        self,
        resource: Resource | str,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        allow_bookmarks: bool = False,
        send_initial_events: bool | None = None,
        timeout_seconds: int | None = None,
    ) -> WatchStream:
        """Changes in order, as :class:`WatchEvent`; see :class:`WatchStream` for how it ends.

        Without ``resource_version`` (or with "0") the stream starts with an ADDED event per
        current object; with a version from a list or an earlier event it delivers every change
        after it. Nothing is sent to the server until the first event is awaited.
        """
        resource = self._resource(resource)
        params = WatchParams(
            label_selector=label_selector,
            field_selector=field_selector,
            resource_version=resource_version,
            allow_bookmarks=allow_bookmarks,
            send_initial_events=send_initial_events,
            timeout_seconds=timeout_seconds,
        )
        ns = namespace if resource.namespaced else None
        return WatchStream(self.transport.watch(resource, namespace=ns, params=params))

    # --- writes ------------------------------------------------------------------------------
    async def create(
        self,
        resource: Resource | str,
        *,
        body: Obj,
        namespace: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
    ) -> Obj:
        """Create ``body`` (in ``namespace``, or the body's own); the stored object."""
        resource = self._resource(resource)
        reply = await self.transport.create(
            resource,
            namespace=self._namespace(resource, namespace, body),
            body=body,
            params=self._write_params(
                dry_run=dry_run, field_manager=field_manager, field_validation=field_validation
            ),
        )
        return self._observed(resource, self._object(reply), dry_run=dry_run)

    async def _update(
        self,
        resource: Resource,
        *,
        body: Obj,
        namespace: str | None,
        subresource: str,
        dry_run: bool,
        field_manager: str | None,
        field_validation: FieldValidation | None,
    ) -> Obj:
        reply = await self.transport.update(
            resource,
            namespace=self._namespace(resource, namespace, body),
            name=self._name(resource, body),
            body=body,
            subresource=subresource,
            params=self._write_params(
                dry_run=dry_run, field_manager=field_manager, field_validation=field_validation
            ),
        )
        return self._observed(resource, self._object(reply), dry_run=dry_run)

    async def update(
        self,
        resource: Resource | str,
        *,
        body: Obj,
        namespace: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
    ) -> Obj:
        """Replace the object named in ``body``; a stale ``metadata.resourceVersion`` is a 409.

        For kinds with a status subresource the status in ``body`` is ignored.
        """
        resource = self._resource(resource)
        return await self._update(
            resource,
            body=body,
            namespace=namespace,
            subresource="",
            dry_run=dry_run,
            field_manager=field_manager,
            field_validation=field_validation,
        )

    async def update_status(
        self,
        resource: Resource | str,
        *,
        body: Obj,
        namespace: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: FieldValidation | None = None,
    ) -> Obj:
        """Replace only the status of the object named in ``body`` (PUT ``.../status``)."""
        resource = self._resource(resource)
        return await self._update(
            resource,
            body=body,
            namespace=namespace,
            subresource="status",
            dry_run=dry_run,
            field_manager=field_manager,
            field_validation=field_validation,
        )

    async def patch(
        self,
        resource: Resource | str,
        *,
        name: str,
        patch: Any,
        namespace: str | None = None,
        patch_type: PatchType = "merge",
        subresource: str = "",
        field_manager: str | None = None,
        force: bool | None = None,
        dry_run: bool = False,
        field_validation: FieldValidation | None = None,
    ) -> Obj:
        """Patch an object (or its ``status``): JSON merge, JSON patch, strategic merge or apply.

        ``patch`` is a dict (a list of operations for ``json``). For ``apply`` it is the
        applied configuration and ``force`` takes over fields other managers own.
        """
        resource = self._resource(resource)
        reply = await self.transport.patch(
            resource,
            namespace=self._namespace(resource, namespace),
            name=name,
            patch_type=patch_type,
            patch=patch,
            subresource=subresource,
            params=self._write_params(
                dry_run=dry_run,
                field_manager=field_manager,
                field_validation=field_validation,
                force=force,
            ),
        )
        return self._observed(resource, self._object(reply), dry_run=dry_run)

    async def apply(
        self,
        resource: Resource | str,
        *,
        body: Obj,
        namespace: str | None = None,
        subresource: str = "",
        field_manager: str | None = None,
        force: bool | None = None,
        dry_run: bool = False,
    ) -> Obj:
        """Server-side apply of ``body`` (named by its metadata): ``patch(patch_type="apply")``."""
        resource = self._resource(resource)
        return await self.patch(
            resource,
            name=self._name(resource, body),
            patch=body,
            namespace=self._namespace(resource, namespace, body),
            patch_type="apply",
            subresource=subresource,
            field_manager=field_manager,
            force=force,
            dry_run=dry_run,
        )

    async def delete(
        self,
        resource: Resource | str,
        *,
        name: str,
        namespace: str | None = None,
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        preconditions: Preconditions | None = None,
        dry_run: bool = False,
    ) -> Obj | None:
        """Delete an object.

        Returns the object when the server answers with it — deletion pending on finalizers or
        a grace period (it now has a deletionTimestamp), or a kind whose DELETE returns the
        deleted object (pods, DRA kinds) — and None when it answers with a ``Status``.
        """
        resource = self._resource(resource)
        reply = await self.transport.delete(
            resource,
            namespace=self._namespace(resource, namespace),
            name=name,
            params=DeleteParams(
                dry_run=dry_run,
                grace_period_seconds=grace_period_seconds,
                propagation_policy=propagation_policy,
                preconditions=preconditions,
            ),
        )
        for text in reply.warnings:
            self._on_warning(text)
        obj = reply.object
        if obj is None or obj.get("kind") == "Status":
            return None
        if not dry_run:
            self._notify(resource, obj, deleted=not _still_exists(obj))
        return obj

    async def delete_collection(
        self,
        resource: Resource | str,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
        grace_period_seconds: int | None = None,
        propagation_policy: PropagationPolicy | None = None,
        dry_run: bool = False,
    ) -> builtins.list[Obj]:
        """Delete every selected object; returns them as the server answered for each."""
        resource = self._resource(resource)
        listed = await self.transport.delete_collection(
            resource,
            namespace=namespace if resource.namespaced else None,
            selection=ListParams(label_selector=label_selector, field_selector=field_selector),
            params=DeleteParams(
                dry_run=dry_run,
                grace_period_seconds=grace_period_seconds,
                propagation_policy=propagation_policy,
            ),
        )
        return listed.items

    async def create_subresource(
        self,
        resource: Resource | str,
        *,
        name: str,
        subresource: str,
        body: Obj,
        namespace: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
    ) -> Obj:
        """POST to a subresource such as ``pods/binding``; returns the response body."""
        resource = self._resource(resource)
        reply = await self.transport.create_subresource(
            resource,
            namespace=self._namespace(resource, namespace, body),
            name=name,
            subresource=subresource,
            body=body,
            params=self._write_params(
                dry_run=dry_run, field_manager=field_manager, field_validation=None
            ),
        )
        return self._object(reply)
