"""Route changes of a shared informer to the kubelets they concern, in O(1) per change.

All kubelets of a process share the informers of the whole cluster (one list + watch of pods,
nodes, slices and claims, shared with the scheduler and controllers) instead of each watching
its own node's objects: 500 nodes then cost no extra watches, and a pod update is not filtered
500 times. A :class:`Dispatcher` is the one handler a kind of routing needs on an informer: it
maps each object to keys (a pod to its ``spec.nodeName``, a claim to ``namespace/name``) and
calls only the callbacks subscribed to those keys. For an update, subscribers of the old and the
new keys are called (a pod that just got its node is news to that node).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

from fakeapi.client import Informer
from fakeapi.objects import Obj

__all__ = ["Dispatcher", "field_key"]

Callback = Callable[[Obj], None]
KeyFunc = Callable[[Obj], Iterable[str]]
_DISPATCHERS: weakref.WeakKeyDictionary[Informer, dict[str, Dispatcher]] = (
    weakref.WeakKeyDictionary()
)


def field_key(*path: str) -> KeyFunc:
    """Keys = the non-empty string at ``path`` (``field_key("spec", "nodeName")``)."""

    def keys(obj: Obj) -> list[str]:
        value: Any = obj
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        return [value] if isinstance(value, str) and value else []

    return keys


class Dispatcher:
    """Calls ``callback(obj)`` of the subscribers of each key of an added/updated/deleted obj."""

    def __init__(self, informer: Informer, keys: KeyFunc) -> None:
        self.keys = keys
        self._subscribers: dict[str, dict[Callback, int]] = {}
        informer.add_handler(
            on_add=self._changed,
            on_update=self._updated,
            on_delete=self._changed,
        )

    @classmethod
    def of(cls, informer: Informer, *, name: str, keys: KeyFunc) -> Dispatcher:
        """The dispatcher ``name`` of ``informer`` (created on first use with ``keys``)."""
        by_name = _DISPATCHERS.setdefault(informer, {})
        dispatcher = by_name.get(name)
        if dispatcher is None:
            dispatcher = by_name[name] = cls(informer, keys)
        return dispatcher

    def _call(self, keys: Iterable[str], obj: Obj) -> None:
        called: set[Callback] = set()
        for key in keys:
            for callback in list(self._subscribers.get(key, ())):
                if callback not in called:
                    called.add(callback)
                    callback(obj)

    def _changed(self, obj: Obj) -> None:
        if self._subscribers:
            self._call(self.keys(obj), obj)

    def _updated(self, old: Obj, new: Obj) -> None:
        if self._subscribers:
            self._call([*self.keys(new), *self.keys(old)], new)

    def subscribe(self, key: str, callback: Callback) -> None:
        """Count one more interest of ``callback`` in ``key``."""
        counts = self._subscribers.setdefault(key, {})
        counts[callback] = counts.get(callback, 0) + 1

    def unsubscribe(self, key: str, callback: Callback) -> None:
        counts = self._subscribers.get(key)
        if counts is None or callback not in counts:
            return
        counts[callback] -= 1
        if counts[callback] <= 0:
            del counts[callback]
        if not counts:
            del self._subscribers[key]
