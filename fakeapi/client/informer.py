"""An informer: a local, indexed copy of one resource kept current by list + watch.

Shaped like client-go's shared informer, reduced to what one process needs:

- **List, then watch from the list's resourceVersion.** The list is a consistent snapshot (paged
  with continue tokens), so the watch that follows misses nothing and repeats nothing.
- **Resume, re-list only when necessary.** When a watch stream ends (server timeout, a watcher
  that fell behind, a dropped connection) the informer watches again from the last version it
  saw; only a 410 Expired — that version left the server's history — forces a fresh list, which
  is then reconciled against the cache so handlers still see every add, update and delete.
  Other failures back off on the injected clock (0.8 s doubling to 30 s, as the reflector) and
  re-list.
- **Cache first, then handlers.** Each change is applied to the cache and its indexes before
  handlers run, so a handler (typically "enqueue this key") and the reconcile it triggers read
  state at least as new as the event.
- **Read your own writes.** :meth:`Informer.observe` takes an object a component has just written
  (the :class:`~fakeapi.client.InformerFactory` feeds it every write of its client) and puts it
  in the cache at once, so the next reconcile does not act on the state before its own write (and,
  say, create a second claim). The watch event for that version arrives later and is dropped as
  already seen (in process, without decoding its object: the event carries its key and version);
  a version older than the cached one never replaces it.

- **Transform before caching.** An optional ``transform`` (client-go's ``SetTransform``) turns
  every object before it is cached or handed to handlers; :func:`strip_managed_fields` drops
  ``metadata.managedFields``, as kube-controller-manager's informers and kube-scheduler's pod
  informer do to save memory (nothing but server-side apply's extract workflow reads them).

Objects in the cache are shared with every handler and reader: **do not mutate them**; copy
(``fakeapi.objects.deep_copy``) before changing one. Handlers are plain functions called on
the event loop; they should be quick (enqueue a key) and must not block. A handler that raises is
logged and does not stop the informer.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType

from fakeapi.client.client import DEFAULT_PAGE_SIZE, Client
from fakeapi.client.resource import Resource
from fakeapi.client.transport import WatchEvent
from fakeapi.clock import Clock, RealClock
from fakeapi.errors import StatusError
from fakeapi.objects import Obj, object_key

__all__ = [
    "NAMESPACE_INDEX",
    "NODE_NAME_INDEX",
    "IndexFunc",
    "Informer",
    "Transform",
    "namespace_index",
    "node_name_index",
    "object_key",
    "strip_managed_fields",
]

log = logging.getLogger("fakeapi.client.informer")

IndexFunc = Callable[[Obj], Iterable[str]]
AddHandler = Callable[[Obj], None]
UpdateHandler = Callable[[Obj, Obj], None]
DeleteHandler = Callable[[Obj], None]
#: turns an object before it is cached; must not change its argument (a written object it sees
#: is the writer's reply too), so it returns a new object or the same one
Transform = Callable[[Obj], Obj]

NAMESPACE_INDEX = "namespace"
#: the index of :func:`node_name_index`; shared informers share index names, so every component
#: that needs "the pods (or slices) of a node" uses this one
NODE_NAME_INDEX = "spec.nodeName"
_MIN_BACKOFF = 0.8
_MAX_BACKOFF = 30.0


def node_name_index(obj: Obj) -> list[str]:
    """Index function: the object's ``spec.nodeName`` (pods, ResourceSlices), if it has one."""
    spec = obj.get("spec")
    name = spec.get("nodeName") if isinstance(spec, dict) else None
    return [name] if isinstance(name, str) and name else []


def namespace_index(obj: Obj) -> list[str]:
    """Index function: the object's namespace (nothing for cluster-scoped objects)."""
    namespace = (obj.get("metadata") or {}).get("namespace")
    return [namespace] if namespace else []


def strip_managed_fields(obj: Obj) -> Obj:
    """Transform: ``obj`` without ``metadata.managedFields`` (a copy of its top level and
    metadata when it has them, else ``obj`` itself)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    lean = dict(meta)
    del lean["managedFields"]
    return {**obj, "metadata": lean}


def _newer(new: Obj, old: Obj) -> bool:
    """Whether ``new`` is a later version than ``old``."""
    return _newer_version(_rv(new), old)


def _newer_version(version: str, old: Obj) -> bool:
    """Whether ``version`` is later than ``old``'s."""
    return _later(version, _rv(old))


def _later(version: str, than: str) -> bool:
    """Whether resourceVersion ``version`` comes after ``than``.

    resourceVersions are opaque to clients in general, but every server this client talks to
    (fakeapi, etcd-backed kube-apiservers) hands out increasing integers; anything else is
    treated as newer, which is what an informer without read-your-writes would do.
    """
    try:
        return int(version) > int(than)
    except ValueError:
        return version != than


def _rv(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


@dataclass(frozen=True, slots=True)
class _Handlers:
    on_add: AddHandler | None
    on_update: UpdateHandler | None
    on_delete: DeleteHandler | None


class Informer:
    """Keep a cache of ``resource`` (in ``namespace``, or all) matching the selectors.

    Start it with :meth:`start` (or ``async with``), wait for :meth:`wait_synced`, then read with
    :meth:`get`, :meth:`list` and :meth:`by_index`; register reactions with :meth:`add_handler`.
    """

    def __init__(
        self,
        client: Client,
        resource: Resource,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
        clock: Clock | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        watch_timeout_seconds: int | None = None,
        transform: Transform | None = None,
    ) -> None:
        self.client = client
        self.resource = resource
        self.namespace = namespace if resource.namespaced else None
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.clock: Clock = clock or RealClock()
        self.page_size = page_size
        self.watch_timeout_seconds = watch_timeout_seconds
        self.transform = transform
        self._cache: dict[str, Obj] = {}
        #: objects this process deleted whose DELETED event has not arrived yet
        self._tombstones: dict[str, Obj] = {}
        self._index_funcs: dict[str, IndexFunc] = {}
        #: per index: value -> the keys of the objects indexed under it
        self._indexes: dict[str, dict[str, set[str]]] = {}
        #: per index: key -> the values its cached object was indexed under (an update whose
        #: values did not change touches no set, and an old object is never indexed again)
        self._indexed: dict[str, dict[str, tuple[str, ...]]] = {}
        self._handlers: list[_Handlers] = []
        self._synced = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: the newest resourceVersion seen (from a list, an event or a bookmark); "" before any
        self.last_resource_version = ""
        #: how many times a full list was made (the first one included)
        self.list_count = 0

    # --- reading the cache ---------------------------------------------------------------------
    def get(self, key: str) -> Obj | None:
        """The cached object with key ``namespace/name`` (or ``name``), or None."""
        return self._cache.get(key)

    def get_by_name(self, *, name: str, namespace: str | None = None) -> Obj | None:
        return self._cache.get(f"{namespace}/{name}" if namespace else name)

    def list(self) -> list[Obj]:
        """Every cached object, in key order."""
        return [self._cache[key] for key in sorted(self._cache)]

    def keys(self) -> builtins.list[str]:
        return sorted(self._cache)

    def __len__(self) -> int:
        return len(self._cache)

    def __contains__(self, key: object) -> bool:
        return key in self._cache

    # --- indexes -----------------------------------------------------------------------------
    def add_index(self, name: str, index: IndexFunc) -> None:
        """Index the cache by the values ``index`` returns for each object (any number of them).

        May be called before or after start; an index added later is built from the cache.
        Adding the same function under the same name again (a second component on a shared
        informer, a restarted one) changes nothing; another function under a taken name is a
        ValueError.
        """
        existing = self._index_funcs.get(name)
        if existing is index:
            return
        if existing is not None:
            raise ValueError(f"index {name!r} already exists")
        self._index_funcs[name] = index
        self._indexes[name] = {}
        self._indexed[name] = {}
        for key, obj in self._cache.items():
            self._index_one(name, index, key, obj)

    def by_index(self, name: str, value: str) -> builtins.list[Obj]:
        """The cached objects whose index ``name`` includes ``value``, in key order."""
        return [self._cache[key] for key in self.index_keys(name, value)]

    def index_keys(self, name: str, value: str) -> builtins.list[str]:
        try:
            index = self._indexes[name]
        except KeyError:
            raise KeyError(f"no index named {name!r}") from None
        return sorted(index.get(value, ()))

    def _index_one(self, name: str, index: IndexFunc, key: str, obj: Obj) -> None:
        values = tuple(index(obj))
        indexed = self._indexed[name]
        if indexed.get(key, ()) == values:
            return
        self._unindex_one(name, key)
        by_value = self._indexes[name]
        for value in values:
            by_value.setdefault(value, set()).add(key)
        if values:
            indexed[key] = values

    def _unindex_one(self, name: str, key: str) -> None:
        by_value = self._indexes[name]
        for value in self._indexed[name].pop(key, ()):
            keys = by_value.get(value)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del by_value[value]

    def _store(self, key: str, obj: Obj) -> Obj | None:
        old = self._cache.get(key)
        for name, index in self._index_funcs.items():
            self._index_one(name, index, key, obj)
        self._cache[key] = obj
        return old

    def _remove(self, key: str) -> Obj | None:
        old = self._cache.pop(key, None)
        if old is not None:
            for name in self._index_funcs:
                self._unindex_one(name, key)
        return old

    # --- handlers ----------------------------------------------------------------------------
    def add_handler(
        self,
        *,
        on_add: AddHandler | None = None,
        on_update: UpdateHandler | None = None,
        on_delete: DeleteHandler | None = None,
    ) -> None:
        """React to changes. A handler added after the first sync is first told about every
        cached object as an add, so it never misses the initial state."""
        handlers = _Handlers(on_add, on_update, on_delete)
        self._handlers.append(handlers)
        if self._synced.is_set() and on_add is not None:
            for obj in self.list():
                self._call(on_add, obj)

    def _call(self, handler: Callable[..., None], *args: Obj) -> None:
        try:
            handler(*args)
        except Exception:
            log.exception("%s informer: event handler failed", self.resource)

    def _added(self, obj: Obj) -> None:
        for h in self._handlers:
            if h.on_add is not None:
                self._call(h.on_add, obj)

    def _updated(self, old: Obj, new: Obj) -> None:
        for h in self._handlers:
            if h.on_update is not None:
                self._call(h.on_update, old, new)

    def _deleted(self, obj: Obj) -> None:
        for h in self._handlers:
            if h.on_delete is not None:
                self._call(h.on_delete, obj)

    # --- applying changes ----------------------------------------------------------------------
    def _apply(self, event: WatchEvent) -> None:
        rv = event.resource_version
        if rv:
            self.last_resource_version = rv
        if event.type == "BOOKMARK":
            return
        identity = event.identity
        if identity is not None and event.type != "DELETED":
            cached = self._cache.get(identity[0]) or self._tombstones.get(identity[0])
            if cached is not None and not _newer_version(identity[1], cached):
                return  # already seen (our own write): the object need not even be decoded
        obj = self._transformed(event)
        key = object_key(obj)
        if event.type == "DELETED":
            self._tombstones.pop(key, None)
            if self._remove(key) is not None:
                self._deleted(obj)
            return
        self._upsert(key, obj)

    def _transformed(self, event: WatchEvent) -> Obj:
        """The event's object as the cache keeps it: a transport's lean decoding when the
        transform would only drop the managedFields it leaves out (the same object)."""
        transform = self.transform
        if transform is None:
            return event.object
        if transform is strip_managed_fields:
            lean = event.without_managed_fields()
            if lean is not None:
                return lean
        return transform(event.object)

    def _upsert(self, key: str, obj: Obj) -> None:
        cached = self._cache.get(key) or self._tombstones.get(key)
        if cached is not None and not _newer(obj, cached):
            return  # already seen: our own write, observed before its watch event
        self._tombstones.pop(key, None)
        cached = self._cache.get(key)
        self._store(key, obj)
        if cached is None:
            self._added(obj)
        else:
            self._updated(cached, obj)

    def observe(self, obj: Obj) -> None:
        """Take ``obj``, just written by this process, into the cache ahead of its watch event.

        Ignored before the first sync (the list will bring it), when the cache already holds
        this or a later version, and when the watch has already brought the informer past this
        version: a reply read after the event of a later write (a deletion, say: over HTTP the
        watch can overtake a reply) must not bring back what that write changed. The object
        must not be modified afterwards.
        """
        if not self._synced.is_set():
            return
        seen = self.last_resource_version
        if seen and not _later(_rv(obj), seen):
            return  # the watch has delivered this version, or a later state, already
        self._upsert(object_key(obj), obj if self.transform is None else self.transform(obj))

    def observe_deleted(self, obj: Obj) -> None:
        """``obj`` was just deleted by this process: drop it from the cache ahead of the watch."""
        if not self._synced.is_set():
            return
        if self.transform is not None:
            obj = self.transform(obj)
        key = object_key(obj)
        # until the watch reports the deletion, events of older versions must not revive it
        self._tombstones[key] = obj
        if self._remove(key) is not None:
            self._deleted(obj)

    def _replace(self, items: builtins.list[Obj], resource_version: str) -> None:
        """Make the cache equal a fresh list, telling handlers what changed since the last one.

        An object that disappeared while we were not watching is reported deleted with its last
        cached state (client-go wraps it as DeletedFinalStateUnknown; here it is the object).
        """
        self._tombstones.clear()
        if self.transform is not None:
            items = [self.transform(obj) for obj in items]
        fresh = {object_key(obj): obj for obj in items}
        gone = [key for key in self._cache if key not in fresh]
        for key in gone:
            old = self._remove(key)
            assert old is not None
            self._deleted(old)
        for key, obj in fresh.items():
            old = self._store(key, obj)
            if old is None:
                self._added(obj)
            elif _rv(old) != _rv(obj):
                self._updated(old, obj)
        self.last_resource_version = resource_version

    # --- running -------------------------------------------------------------------------------
    @property
    def has_synced(self) -> bool:
        """True once the first list is in the cache (and stays true across re-lists)."""
        return self._synced.is_set()

    async def wait_synced(self) -> None:
        await self._synced.wait()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Run list + watch in a background task; a stopped informer may be started again and
        resumes from the last resourceVersion it saw."""
        if self.running:
            return
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"informer {self.resource}"
        )

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def __aenter__(self) -> Informer:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def _run(self) -> None:
        backoff = _MIN_BACKOFF
        while True:
            try:
                if not self.last_resource_version:
                    await self._list()
                await self._watch()
            except StatusError as exc:
                if exc.code == 410:
                    log.debug("%s informer: %s; re-listing", self.resource, exc.message)
                    self.last_resource_version = ""
                    continue
                log.warning("%s informer: %s; retrying in %.1fs", self.resource, exc, backoff)
            except Exception as exc:
                log.warning("%s informer: %r; retrying in %.1fs", self.resource, exc, backoff)
            else:
                backoff = _MIN_BACKOFF
                continue  # the stream ended: watch again from the last version seen
            self.last_resource_version = ""
            await self.clock.sleep(backoff)
            backoff = min(backoff * 2, _MAX_BACKOFF)

    async def _list(self) -> None:
        listed = await self.client.list_all(
            self.resource,
            namespace=self.namespace,
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            page_size=self.page_size,
        )
        self.list_count += 1
        self._replace(listed.items, listed.resource_version)
        self._synced.set()

    async def _watch(self) -> None:
        """Apply events until the stream ends; StatusError 410 when the version is too old."""
        async with self.client.watch(
            self.resource,
            namespace=self.namespace,
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            resource_version=self.last_resource_version,
            allow_bookmarks=True,
            timeout_seconds=self.watch_timeout_seconds,
        ) as stream:
            async for event in stream:
                self._apply(event)
