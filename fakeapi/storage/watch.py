"""Watch fan-out: a watcher is a filter plus a bounded queue that writers fill synchronously.

Writers never wait for readers. Each change is offered to every watcher of its resource at write
time; the watcher applies its filter against the old and new state (so an object that stops
matching is delivered as DELETED and one that starts matching as ADDED, as upstream's watch cache
does) and appends to its queue. A reader drains the whole queue at once, so a burst becomes one
batch (one socket write). A watcher whose queue grows past its bound is closed: a slow reader
loses its stream, it never stalls writers or grows memory without bound.

A watcher whose selector pins a field to one value (``spec.nodeName=node-7``, as every kubelet's
pod watch does) can carry a :class:`WatchIndex`: the storage then files it under that value and
offers an event only to the watchers filed under the old or new object's value, so a write costs
the same with 500 such watchers as with one. The index only narrows who is asked; each watcher
still applies its whole predicate.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeapi.storage.events import Event, encode

__all__ = ["Watcher", "WatchIndex", "Delivery", "Predicate"]

Predicate = Callable[[dict[str, Any]], bool]
#: (event type, object, encoded object)
Delivery = tuple[str, dict[str, Any], bytes]


@dataclass(frozen=True, slots=True)
class WatchIndex:
    """``field`` must read ``value`` for an object to match the watcher's predicate.

    ``extract`` reads the field from a stored object; watchers of one resource that index the
    same field must share the same ``extract`` (the storage keeps one per field).
    """

    field: str
    value: str
    extract: Callable[[dict[str, Any]], str]


def _restamp(obj: dict[str, Any], rv: int) -> tuple[dict[str, Any], bytes]:
    meta = dict(obj.get("metadata") or {})
    meta["resourceVersion"] = str(rv)
    new = dict(obj)
    new["metadata"] = meta
    return new, encode(new)


class Watcher:
    """One watch on one resource, optionally limited to a key prefix and a predicate."""

    __slots__ = (
        "_convert",
        "_detach",
        "_waiters",
        "closed",
        "max_queue",
        "overflowed",
        "predicate",
        "prefix",
        "queue",
    )

    def __init__(
        self,
        *,
        prefix: str,
        predicate: Predicate | None,
        max_queue: int,
        detach: Callable[[Watcher], None],
        convert: Callable[[Event], Event] | None = None,
    ) -> None:
        self.prefix = prefix
        self.predicate = predicate
        self.max_queue = max_queue
        self.queue: deque[Delivery] = deque()
        self.closed = False
        self.overflowed = False
        #: the futures of the coroutines in :meth:`wait`
        self._waiters: list[asyncio.Future[bool]] = []
        self._detach = detach
        #: reshapes events of a resource served from another resource's table
        self._convert = convert

    def offer(self, event: Event) -> None:
        """Filter ``event`` and queue what this watcher must see (called by writers)."""
        if self.closed or (self.prefix and not event.key.startswith(self.prefix)):
            return
        if self._convert is not None:
            event = self._convert(event)
        pred = self.predicate
        if pred is None:
            self._push(event.delivery)
            return
        etype = event.type
        if etype == "ADDED":
            if pred(event.obj):
                self._push(event.delivery)
        elif etype == "DELETED":
            if pred(event.prev.obj if event.prev is not None else event.obj):
                self._push(event.delivery)
        else:
            now = pred(event.obj)
            before = event.prev is not None and pred(event.prev.obj)
            if now and before:
                self._push(event.delivery)
            elif now:
                self._push(("ADDED", event.obj, event.raw))
            elif before:
                assert event.prev is not None
                obj, raw = _restamp(event.prev.obj, event.rv)
                self._push(("DELETED", obj, raw))

    def push_initial(self, delivery: Delivery) -> None:
        self._push(delivery)

    def _push(self, delivery: Delivery) -> None:
        queue = self.queue
        queue.append(delivery)
        size = len(queue)
        if size > self.max_queue:
            self.overflowed = True
            self.close()
        elif size == 1 and self._waiters:  # the reader is woken once per batch
            self.wake()

    def drain(self) -> list[Delivery]:
        """Everything queued so far, oldest first."""
        items = list(self.queue)
        self.queue.clear()
        return items

    def wake(self) -> None:
        """Let :meth:`wait` return now, with or without something queued (a reader's timer
        calls this to look at its clock)."""
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(True)

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until something is queued, the watcher closes or :meth:`wake` is called; False
        on timeout.

        A future per wait, and a timer only with a ``timeout``: ``asyncio.wait_for`` would wrap
        each wait in a task of its own, and a watch stream waits once per batch it writes.
        """
        if self.queue or self.closed:
            return True
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiters.append(waiter)
        timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
        try:
            return await waiter
        finally:
            self._waiters.remove(waiter)
            if timer is not None:
                timer.cancel()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._detach(self)
            self.wake()


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)
