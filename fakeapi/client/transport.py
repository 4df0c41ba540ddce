"""The contract between :class:`~fakeapi.client.Client` and the two ways of reaching a server.

A transport performs one REST verb and nothing else: no defaults, no retries, no namespace
guessing — the client decides those once, so both transports receive identical, fully resolved
requests. Options travel as they would on the wire (selectors as strings, booleans and numbers
unparsed by us), which lets the in-process transport reuse the server's own query parsing and
reject exactly what the HTTP server rejects.

Every failure is a :class:`~fakeapi.errors.StatusError` carrying the code, reason and message the
server would put in its ``kind: Status`` body; a watch that fails once streaming (an ``ERROR``
event, e.g. 410 Expired) raises it from the iterator. Objects returned are the caller's to keep
and mutate.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Protocol

from fakeapi.client.resource import Resource
from fakeapi.objects import Obj

__all__ = [
    "PATCH_CONTENT_TYPES",
    "DeleteParams",
    "FieldValidation",
    "ListParams",
    "Obj",
    "ObjectList",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
    "Reply",
    "Transport",
    "WatchEvent",
    "WatchParams",
    "WatchStream",
    "WriteParams",
]

PatchType = Literal["merge", "json", "strategic", "apply"]
PropagationPolicy = Literal["Orphan", "Background", "Foreground"]
FieldValidation = Literal["Strict", "Warn", "Ignore"]

#: the Content-Type that selects each kind of PATCH
PATCH_CONTENT_TYPES: dict[str, str] = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}


@dataclass(frozen=True, slots=True)
class Preconditions:
    """A DELETE only goes ahead if the object still has this uid and/or resourceVersion."""

    uid: str | None = None
    resource_version: str | None = None


@dataclass(frozen=True, slots=True)
class WriteParams:
    """Query parameters of create, update, patch and subresource POST."""

    dry_run: bool = False
    field_manager: str = ""
    #: None: the server's default (Warn)
    field_validation: FieldValidation | None = None
    #: server-side apply only
    force: bool | None = None

    def query(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.dry_run:
            out["dryRun"] = "All"
        if self.field_manager:
            out["fieldManager"] = self.field_manager
        if self.field_validation:
            out["fieldValidation"] = self.field_validation
        if self.force is not None:
            out["force"] = "true" if self.force else "false"
        return out


@dataclass(frozen=True, slots=True)
class DeleteParams:
    """A DELETE's options; all but ``dry_run`` travel in a ``DeleteOptions`` body."""

    dry_run: bool = False
    grace_period_seconds: int | None = None
    propagation_policy: PropagationPolicy | None = None
    preconditions: Preconditions | None = None

    def body(self) -> Obj | None:
        """The ``meta/v1 DeleteOptions`` body, or None when there is nothing to say."""
        out: Obj = {}
        if self.grace_period_seconds is not None:
            out["gracePeriodSeconds"] = self.grace_period_seconds
        if self.propagation_policy is not None:
            out["propagationPolicy"] = self.propagation_policy
        pre = self.preconditions
        if pre is not None and (pre.uid is not None or pre.resource_version is not None):
            conditions: dict[str, str] = {}
            if pre.uid is not None:
                conditions["uid"] = pre.uid
            if pre.resource_version is not None:
                conditions["resourceVersion"] = pre.resource_version
            out["preconditions"] = conditions
        if not out:
            return None
        return {"kind": "DeleteOptions", "apiVersion": "v1", **out}

    def query(self) -> dict[str, str]:
        return {"dryRun": "All"} if self.dry_run else {}


@dataclass(frozen=True, slots=True)
class ListParams:
    label_selector: str = ""
    field_selector: str = ""
    #: page size; 0 for everything at once
    limit: int = 0
    continue_token: str = ""
    resource_version: str = ""
    resource_version_match: str = ""

    def query(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.label_selector:
            out["labelSelector"] = self.label_selector
        if self.field_selector:
            out["fieldSelector"] = self.field_selector
        if self.limit:
            out["limit"] = str(self.limit)
        if self.continue_token:
            out["continue"] = self.continue_token
        if self.resource_version:
            out["resourceVersion"] = self.resource_version
        if self.resource_version_match:
            out["resourceVersionMatch"] = self.resource_version_match
        return out


@dataclass(frozen=True, slots=True)
class WatchParams:
    label_selector: str = ""
    field_selector: str = ""
    #: "" or "0": start with the current state as ADDED events; N: every change after N
    resource_version: str = ""
    allow_bookmarks: bool = False
    #: WatchList: current state first, then a BOOKMARK annotated ``k8s.io/initial-events-end``
    send_initial_events: bool | None = None
    #: the server ends the stream after this many seconds (None: the server's default)
    timeout_seconds: int | None = None

    def query(self) -> dict[str, str]:
        out: dict[str, str] = {"watch": "true"}
        if self.label_selector:
            out["labelSelector"] = self.label_selector
        if self.field_selector:
            out["fieldSelector"] = self.field_selector
        if self.resource_version:
            out["resourceVersion"] = self.resource_version
        if self.allow_bookmarks:
            out["allowWatchBookmarks"] = "true"
        if self.send_initial_events is not None:
            out["sendInitialEvents"] = "true" if self.send_initial_events else "false"
            # the only value the server accepts together with sendInitialEvents
            out["resourceVersionMatch"] = "NotOlderThan"
        if self.timeout_seconds is not None:
            out["timeoutSeconds"] = str(self.timeout_seconds)
        return out


@dataclass(slots=True)
class ObjectList:
    """One LIST answer: the objects, the list's resourceVersion and the next page's token."""

    items: list[Obj]
    resource_version: str
    continue_token: str = ""
    remaining_item_count: int | None = None


@dataclass(slots=True)
class Reply:
    """The answer to a write: the response body (None when there is none) and Warning headers."""

    object: Obj | None
    warnings: list[str] = field(default_factory=list)


class WatchEvent:
    """``ADDED``, ``MODIFIED``, ``DELETED`` (``object`` is the last state) or ``BOOKMARK``.

    A transport that knows an event's object key (``namespace/name``) and resourceVersion without
    decoding the object passes them as ``identity`` and the decoding as ``decode``: the object is
    then decoded on first access only, so a reader that already holds that version (an informer
    that took it from its own write) skips the work. It may also pass ``decode_lean``, a
    decoding of the object without ``metadata.managedFields``, for a reader that drops them
    anyway (:meth:`without_managed_fields`): half a pod's JSON is its managedFields.
    """

    __slots__ = ("_decode", "_decode_lean", "_object", "identity", "type")

    def __init__(
        self,
        type: str,
        object: Obj | None = None,
        *,
        decode: Callable[[], Obj] | None = None,
        identity: tuple[str, str] | None = None,
        decode_lean: Callable[[], Obj] | None = None,
    ) -> None:
        if object is None and decode is None:
            raise ValueError("a watch event needs its object or a way to decode it")
        self.type = type
        self._object = object
        self._decode = decode
        self._decode_lean = decode_lean
        #: (object key, resourceVersion), when the transport knows them without decoding
        self.identity = identity

    def without_managed_fields(self) -> Obj | None:
        """The object without ``metadata.managedFields``, a new one decoded for this call, when
        the transport can decode it so and the object was not decoded whole yet; else None."""
        if self._object is not None or self._decode_lean is None:
            return None
        return self._decode_lean()

    @property
    def object(self) -> Obj:
        found = self._object
        if found is None:
            assert self._decode is not None
            found = self._object = self._decode()
            self._decode = None
        return found

    @property
    def resource_version(self) -> str:
        if self.identity is not None:
            return self.identity[1]
        meta = self.object.get("metadata") or {}
        return str(meta.get("resourceVersion") or "")

    def __repr__(self) -> str:
        return f"WatchEvent(type={self.type!r}, object={self.object!r})"

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, WatchEvent):
            return NotImplemented
        return bool(self.type == other.type and self.object == other.object)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the object it carries


class WatchStream:
    """An async iterator of :class:`WatchEvent` that is also an async context manager.

    Leaving the ``async with`` block (or calling :meth:`aclose`) ends the watch on the server; a
    stream the server ends (timeout, a watcher that fell behind) simply stops iterating. An
    ``ERROR`` event (410 Expired when resuming from a compacted resourceVersion) is raised as
    :class:`~fakeapi.errors.StatusError`.
    """

    def __init__(self, events: AsyncIterator[WatchEvent]) -> None:
        self._events = events

    def __aiter__(self) -> WatchStream:
        return self

    async def __anext__(self) -> WatchEvent:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        aclose = getattr(self._events, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> WatchStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class Transport(Protocol):
    """One REST verb per method, against either the in-process registry or an HTTP server."""

    async def get(self, resource: Resource, *, namespace: str | None, name: str) -> Obj: ...

    async def list(
        self, resource: Resource, *, namespace: str | None, params: ListParams
    ) -> ObjectList: ...

    async def create(
        self, resource: Resource, *, namespace: str | None, body: Obj, params: WriteParams
    ) -> Reply: ...

    async def update(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        name: str,
        body: Obj,
        subresource: str,
        params: WriteParams,
    ) -> Reply: ...

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
    ) -> Reply: ...

    async def delete(
        self, resource: Resource, *, namespace: str | None, name: str, params: DeleteParams
    ) -> Reply: ...

    async def delete_collection(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        selection: ListParams,
        params: DeleteParams,
    ) -> ObjectList: ...

    async def create_subresource(
        self,
        resource: Resource,
        *,
        namespace: str | None,
        name: str,
        subresource: str,
        body: Obj,
        params: WriteParams,
    ) -> Reply: ...

    def watch(
        self, resource: Resource, *, namespace: str | None, params: WatchParams
    ) -> AsyncIterator[WatchEvent]:
        """An async generator of events; closing it (``aclose``) ends the watch."""
        ...

    async def close(self) -> None: ...
