"""A resource stored in another resource's store, read and written in its own shape.

Upstream keeps one copy of an object however many API versions or groups serve it and converts on
the way in and out: ``events.k8s.io/v1`` Events and core ``v1`` Events are the same objects, and so
are DeviceTaintRules at ``resource.k8s.io/v1`` and ``v1beta2``. :class:`ConvertedResourceStore` does
that for fakeapi: it offers the :class:`~fakeapi.storage.interface.ResourceStore` interface over the
backing resource's store, converting every object that passes through. Both shapes share one
resourceVersion sequence, one history and one set of watchers, so a write through either is seen by
both. Conversions of stored versions are cached by resourceVersion (each version is immutable and
has its own). :class:`ResourceStoreView` is what every such view shares (custom resources served
at several versions are another): the forwarding, with the reshaping left to the subclass.
"""

from __future__ import annotations

import abc
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from fakeapi.storage.events import Event, Stored, encode
from fakeapi.storage.interface import Converter, ResourceStore
from fakeapi.storage.watch import Predicate, Watcher, WatchIndex

__all__ = ["ConvertedResourceStore", "ResourceStoreView"]

_CACHE_SIZE = 4096


class ResourceStoreView(abc.ABC):
    """A :class:`~fakeapi.storage.interface.ResourceStore` over ``base`` that reshapes every
    object on its way out (:meth:`_view`, :meth:`_view_event`) and in (:meth:`_to_storage`);
    subclasses say how. Counts and the watch index read the stored shape and are forwarded."""

    def __init__(self, base: ResourceStore) -> None:
        self.base = base

    # --- shapes ----------------------------------------------------------------------------
    @abc.abstractmethod
    def _view(self, stored: Stored) -> Stored:
        """``stored`` as this view serves it."""

    @abc.abstractmethod
    def _view_event(self, event: Event) -> Event:
        """``event`` as this view's watchers see it."""

    @abc.abstractmethod
    def _to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` (this view's shape) as the base stores it."""

    def _deleted(self, stored: Stored) -> Stored:
        """The last version of a deleted object, as this view answers the delete."""
        return self._view(stored)

    # --- reads -----------------------------------------------------------------------------
    def get(self, key: str) -> Stored | None:
        stored = self.base.get(key)
        return None if stored is None else self._view(stored)

    def scan(self, prefix: str, upper: str | None, after: str | None) -> Iterator[Stored]:
        return map(self._view, self.base.scan(prefix, upper, after))

    def scan_at(
        self, rv: int, prefix: str, upper: str | None, after: str | None
    ) -> Iterator[Stored]:
        return map(self._view, self.base.scan_at(rv, prefix, upper, after))

    def count_after(self, prefix: str, upper: str | None, after: str) -> int:
        return self.base.count_after(prefix, upper, after)

    def count_at(self, rv: int, prefix: str, upper: str | None, after: str) -> int:
        return self.base.count_at(rv, prefix, upper, after)

    def events_since(self, rv: int) -> list[Event]:
        return [self._view_event(e) for e in self.base.events_since(rv)]

    def check_version(self, key: str, expected_rv: int | None) -> Stored:
        return self._view(self.base.check_version(key, expected_rv))

    # --- writes ----------------------------------------------------------------------------
    def create(self, key: str, obj: dict[str, Any]) -> Stored:
        return self._view(self.base.create(key, self._to_storage(obj)))

    def update(self, key: str, obj: dict[str, Any], *, expected_rv: int | None) -> Stored:
        return self._view(self.base.update(key, self._to_storage(obj), expected_rv=expected_rv))

    def delete(self, key: str, *, expected_rv: int | None) -> Stored:
        return self._deleted(self.base.delete(key, expected_rv=expected_rv))

    # --- watch -----------------------------------------------------------------------------
    def watch(
        self,
        *,
        prefix: str,
        predicate: Predicate | None,
        convert: Callable[[Event], Event] | None = None,
        index: WatchIndex | None = None,
    ) -> Watcher:
        # ``index`` reads the stored shape, which differs from this view's: not forwarded
        reshape = self._view_event
        if convert is not None:
            outer = convert

            def reshape(event: Event) -> Event:
                return outer(self._view_event(event))

        return self.base.watch(prefix=prefix, predicate=predicate, convert=reshape)


class ConvertedResourceStore(ResourceStoreView):
    """The registry's view of ``base`` in the shape ``converter`` produces."""

    def __init__(self, base: ResourceStore, converter: Converter) -> None:
        super().__init__(base)
        self.converter = converter
        self._cache: OrderedDict[int, Stored] = OrderedDict()

    def _view(self, stored: Stored) -> Stored:
        cached = self._cache.get(stored.rv)
        if cached is not None and cached.obj.get("metadata") is stored.obj.get("metadata"):
            return cached
        obj = self.converter.from_storage(stored.obj)
        view = Stored(obj, encode(obj), stored.rv)
        self._cache[stored.rv] = view
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return view

    def _view_event(self, event: Event) -> Event:
        obj = self.converter.from_storage(event.obj)
        prev = self._view(event.prev) if event.prev is not None else None
        return Event(event.type, event.key, Stored(obj, encode(obj), event.rv), prev)

    def _to_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.converter.to_storage(obj)
