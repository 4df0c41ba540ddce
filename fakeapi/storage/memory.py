"""In-memory storage: versioned objects in key order, one global resourceVersion, event history.

This is the only place that compares resourceVersions and reports a conflict. Objects are kept
per resource in a ``SortedDict`` keyed ``namespace/name`` (or ``name``), so a namespace is a key
range and ``limit``/``continue`` is a cheap range scan. Each resource keeps a bounded history of
its events: watches resume from it, and paged lists reconstruct the state at the resourceVersion
of their first page from it (a consistent snapshot without copying the table). When the history
no longer reaches back far enough the caller gets 410 Expired.

Everything here is synchronous: the server is one asyncio thread, so a read-modify-write that does
not await cannot interleave with another. With a data directory
(:class:`~fakeapi.storage.durable.DurableStorage`) each write is also handed to a
:class:`~fakeapi.storage.journal.Journal`, which makes it durable in batches; :meth:`durable` is
what a server awaits before it answers a write. Without one it returns at once.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from sortedcontainers import SortedDict

from fakeapi.storage.events import Event, EventType, Stored, encode
from fakeapi.storage.interface import (
    ConflictError,
    Converter,
    KeyExistsError,
    KeyNotFoundError,
    TooOldError,
)
from fakeapi.storage.journal import Journal
from fakeapi.storage.view import ConvertedResourceStore
from fakeapi.storage.watch import Predicate, Watcher, WatchIndex

__all__ = ["MemoryStorage", "MemoryResourceStore"]

DEFAULT_HISTORY = 100_000
DEFAULT_WATCH_QUEUE = 10_000


class MemoryStorage:
    """All resources of one cluster and the global resourceVersion counter (implements
    :class:`~fakeapi.storage.interface.Storage`)."""

    def __init__(
        self, *, history_size: int = DEFAULT_HISTORY, watch_queue: int = DEFAULT_WATCH_QUEUE
    ):
        self.rv = 1
        self.history_size = history_size
        self.watch_queue = watch_queue
        self._resources: dict[str, MemoryResourceStore] = {}
        self._converted: dict[str, ConvertedResourceStore] = {}
        #: where writes are recorded for a data directory (None: memory only)
        self.journal: Journal | None = None

    async def durable(self) -> None:
        """Return once every write so far is on disk (at once without a data directory)."""
        if self.journal is not None:
            await self.journal.durable()

    async def aclose(self) -> None:
        """Let any flush under way finish, then flush and close the data directory, if any."""
        if self.journal is not None:
            await self.journal.drain()
        self.close()

    def close(self) -> None:
        """Flush and close the data directory, if any (outside an event loop, or once no flush
        is under way: :meth:`aclose`)."""
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    @property
    def resource_version(self) -> int:
        return self.rv

    def resource(self, name: str) -> MemoryResourceStore:
        store = self._resources.get(name)
        if store is None:
            store = self._resources[name] = MemoryResourceStore(self, name)
        return store

    def converted(
        self, name: str, *, stored_in: str, converter: Converter
    ) -> ConvertedResourceStore:
        view = self._converted.get(name)
        if view is None:
            view = ConvertedResourceStore(self.resource(stored_in), converter)
            self._converted[name] = view
        return view

    def next_rv(self) -> int:
        self.rv += 1
        return self.rv


class _FieldIndex:
    """The indexed watchers of one field, filed by the value their selector pins it to."""

    __slots__ = ("buckets", "extract")

    def __init__(self, extract: Callable[[dict[str, Any]], str]) -> None:
        self.extract = extract
        self.buckets: dict[str, set[Watcher]] = {}


class MemoryResourceStore:
    """The objects and event history of one resource (implements
    :class:`~fakeapi.storage.interface.ResourceStore`)."""

    def __init__(self, storage: MemoryStorage, resource: str) -> None:
        self.storage = storage
        self.resource = resource
        self.objects: SortedDict = SortedDict()
        self.history: list[Event] = []
        self._history_rvs: list[int] = []
        #: every event with rv <= compacted_rv has been dropped from history
        self.compacted_rv = 0
        #: watchers offered every event (those without a :class:`WatchIndex`)
        self.watchers: set[Watcher] = set()
        self._indexes: dict[str, _FieldIndex] = {}

    # --- reads -------------------------------------------------------------------------------
    def get(self, key: str) -> Stored | None:
        stored: Stored | None = self.objects.get(key)
        return stored

    def __len__(self) -> int:
        return len(self.objects)

    def scan(self, prefix: str, upper: str | None, after: str | None) -> Iterator[Stored]:
        """Current objects with keys in [prefix, upper) and > after, in key order."""
        objects = self.objects
        if not prefix and upper is None and after is None:
            # every object (a cluster-wide list, an admission plugin's lookup): the sorted
            # dict's values are in key order already, without a range search
            yield from objects.values()
            return
        for key in self.keys(prefix, upper, after):
            yield objects[key]

    def count_after(self, prefix: str, upper: str | None, after: str) -> int:
        objects = self.objects
        end: int = len(objects) if upper is None else objects.bisect_left(upper)
        start: int = objects.bisect_right(after)
        return max(0, end - start)

    def keys(self, prefix: str, upper: str | None, after: str | None) -> Iterator[str]:
        lo = after if after is not None and after >= prefix else prefix
        inclusive = (after is None or after < prefix, False)
        yield from self.objects.irange(lo, upper, inclusive=inclusive)

    def scan_at(
        self, rv: int, prefix: str, upper: str | None, after: str | None
    ) -> Iterator[Stored]:
        """Objects as they were at resourceVersion ``rv``, keys in [prefix, upper), > after."""
        overlay = self.state_overlay(rv)
        if not overlay:
            yield from self.scan(prefix, upper, after)
            return
        old_keys = sorted(
            k
            for k in overlay
            if k >= prefix and (upper is None or k < upper) and (after is None or k > after)
        )
        last = None
        for key in heapq.merge(self.keys(prefix, upper, after), old_keys):
            if key == last:
                continue
            last = key
            if key in overlay:
                old = overlay[key]
                if old is not None:
                    yield old
            else:
                yield self.objects[key]

    def count_at(self, rv: int, prefix: str, upper: str | None, after: str) -> int:
        """How many objects existed at ``rv`` with keys in range and > after."""
        count = self.count_after(prefix, upper, after)
        for key, old in self.state_overlay(rv).items():
            if key > after and key >= prefix and (upper is None or key < upper):
                count += (old is not None) - (key in self.objects)
        return count

    def state_overlay(self, rv: int) -> dict[str, Stored | None]:
        """For each key changed after ``rv``: its state at ``rv`` (None if it did not exist)."""
        self.check_history(rv)
        overlay: dict[str, Stored | None] = {}
        start = bisect_right(self._history_rvs, rv)
        for event in self.history[start:]:
            if event.key not in overlay:
                overlay[event.key] = event.prev
        return overlay

    def check_history(self, rv: int) -> None:
        if rv < self.compacted_rv:
            # the message names the oldest version still accepted, as upstream's watch cache
            raise TooOldError(rv, self.compacted_rv)

    def events_since(self, rv: int) -> list[Event]:
        self.check_history(rv)
        return self.history[bisect_right(self._history_rvs, rv) :]

    # --- writes ------------------------------------------------------------------------------
    def create(self, key: str, obj: dict[str, Any]) -> Stored:
        """Store a new object; ``obj`` becomes owned by the storage (its RV is set here)."""
        if key in self.objects:
            raise KeyExistsError(key)
        return self._write("ADDED", key, obj, None)

    def check_version(self, key: str, expected_rv: int | None) -> Stored:
        """The current version of ``key``; ConflictError unless it is ``expected_rv`` (when given).

        The only place in fakeapi that compares resourceVersions.
        """
        current: Stored | None = self.objects.get(key)
        if current is None:
            raise KeyNotFoundError(key)
        if expected_rv is not None and expected_rv != current.rv:
            raise ConflictError(key)
        return current

    def update(self, key: str, obj: dict[str, Any], *, expected_rv: int | None) -> Stored:
        """Replace an object; ``expected_rv`` (if given) must be the current version."""
        current = self.check_version(key, expected_rv)
        return self._write("MODIFIED", key, obj, current)

    def delete(self, key: str, *, expected_rv: int | None) -> Stored:
        """Remove an object; the DELETED event carries its last state with a new RV."""
        current = self.check_version(key, expected_rv)
        last = dict(current.obj)
        last["metadata"] = dict(last["metadata"])
        return self._write("DELETED", key, last, current)

    def _write(
        self, etype: EventType, key: str, obj: dict[str, Any], prev: Stored | None
    ) -> Stored:
        rv = self.storage.next_rv()
        obj["metadata"]["resourceVersion"] = str(rv)
        raw = encode(obj)
        stored = Stored(obj, raw, rv)
        if etype == "DELETED":
            del self.objects[key]
            # the caller's copy stays decoded; the history's is released below
            version = Stored(obj, raw, rv)
        else:
            self.objects[key] = version = stored
        event = Event(etype, key, version, prev)
        self._record(event)
        journal = self.storage.journal
        if journal is not None:
            journal.append(rv, etype[0], self.resource, key, b"" if etype == "DELETED" else raw)
        if self.watchers:
            for watcher in tuple(self.watchers):
                watcher.offer(event)
        if self._indexes:
            self._offer_indexed(event)
        # watchers have queued what they need; the history keeps bytes of what is not current
        event.forget_delivery()
        if prev is not None:
            prev.release()
        if etype == "DELETED":
            version.release()
        return stored

    def _offer_indexed(self, event: Event) -> None:
        """Offer ``event`` to the indexed watchers filed under its old or new field value."""
        for index in tuple(self._indexes.values()):
            value = index.extract(event.obj)
            targets = index.buckets.get(value)
            if targets:
                for watcher in tuple(targets):
                    watcher.offer(event)
            if event.prev is not None:
                before = index.extract(event.prev.obj)
                if before != value:
                    targets = index.buckets.get(before)
                    if targets:
                        for watcher in tuple(targets):
                            watcher.offer(event)

    def _record(self, event: Event) -> None:
        self.history.append(event)
        self._history_rvs.append(event.rv)
        limit = self.storage.history_size
        if len(self.history) > 2 * limit:
            drop = len(self.history) - limit
            self.compacted_rv = self.history[drop - 1].rv
            del self.history[:drop]
            del self._history_rvs[:drop]

    # --- watch -------------------------------------------------------------------------------
    def watch(
        self,
        *,
        prefix: str,
        predicate: Predicate | None,
        convert: Callable[[Event], Event] | None = None,
        index: WatchIndex | None = None,
    ) -> Watcher:
        """A watcher of this resource's changes from now on (``convert`` reshapes each event).

        ``index`` files the watcher under a field value (see :class:`WatchIndex`); it is ignored
        with ``convert`` (it reads the stored shape) or when the field is already indexed with
        another ``extract``.
        """
        if index is not None and convert is None:
            field_index = self._indexes.get(index.field)
            if field_index is None:
                field_index = self._indexes[index.field] = _FieldIndex(index.extract)
            if field_index.extract is index.extract:
                bucket = field_index.buckets.setdefault(index.value, set())
                watcher = Watcher(
                    prefix=prefix,
                    predicate=predicate,
                    max_queue=self.storage.watch_queue,
                    detach=partial(self._detach_indexed, index.field, index.value),
                )
                bucket.add(watcher)
                return watcher
        watcher = Watcher(
            prefix=prefix,
            predicate=predicate,
            max_queue=self.storage.watch_queue,
            detach=self.watchers.discard,
            convert=convert,
        )
        self.watchers.add(watcher)
        return watcher

    def _detach_indexed(self, field: str, value: str, watcher: Watcher) -> None:
        field_index = self._indexes.get(field)
        if field_index is None:
            return
        bucket = field_index.buckets.get(value)
        if bucket is None:
            return
        bucket.discard(watcher)
        if not bucket:
            del field_index.buckets[value]
            if not field_index.buckets:
                del self._indexes[field]

