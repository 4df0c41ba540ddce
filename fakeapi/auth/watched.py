"""Indexes the authorizers keep of stored objects, current at every decision and cheap to keep.

The RBAC authorizer needs the roles and bindings, the node authorizer which pods on which node use
which claims. Listing them per request would make every request pay for the whole policy; upstream
keeps informer caches instead, fed by watches. Here the storage is in the same process, and its
watchers are filled synchronously by every write (:mod:`fakeapi.storage.watch`), so an index can
do better than an informer: it opens one watcher on the resource and, before each decision,
drains what the watcher queued since the last one (:meth:`WatchedObjects.sync`). Nothing runs in
the background, no event is missed, and a decision always sees every write that happened before
it — a grant takes effect for the very next request, as a test expects.

A watcher whose queue overflowed (a burst of writes with no decision in between) is closed by the
storage; the index then lists the resource again, as an informer re-lists after an expired watch.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.objects import Obj, object_key
from fakeapi.storage.interface import ResourceStore
from fakeapi.storage.watch import Watcher

__all__ = ["WatchedObjects"]

#: ``apply(key, obj)``: the object stored under ``key`` is now ``obj`` (None: deleted)
Apply = Callable[[str, Obj | None], None]


class WatchedObjects:
    """Feeds ``apply`` every change of one resource's objects; ``reset`` forgets them all before a
    new listing. Call :meth:`sync` before reading what ``apply`` built."""

    __slots__ = ("_apply", "_reset", "_store", "_watcher", "generation")

    def __init__(self, store: ResourceStore, *, apply: Apply, reset: Callable[[], None]) -> None:
        self._store = store
        self._apply = apply
        self._reset = reset
        self._watcher: Watcher | None = None
        #: bumped whenever anything changed (derived indexes compare it)
        self.generation = 0

    def sync(self) -> None:
        """Apply every change stored since the last call (a fresh listing the first time, and
        after the watcher overflowed)."""
        watcher = self._watcher
        if watcher is None or watcher.closed:
            self._relist()
            return
        if not watcher.queue:
            return
        for etype, obj, _ in watcher.drain():
            self._apply(object_key(obj), None if etype == "DELETED" else obj)
        self.generation += 1

    def _relist(self) -> None:
        # the watcher is opened before the listing: nothing written in between can be missed
        # (and nothing can be written in between: this runs without awaiting)
        self._watcher = self._store.watch(prefix="", predicate=None)
        self._reset()
        for stored in self._store.scan("", None, None):
            self._apply(object_key(stored.obj), stored.obj)
        self.generation += 1

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None
