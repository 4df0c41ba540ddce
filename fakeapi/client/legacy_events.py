"""Record core/v1 Events the way client-go's ``tools/record`` recorder does.

The kubelet and kube-controller-manager's controllers still report through this older recorder
(the scheduler uses ``tools/events``, :class:`~fakeapi.client.EventRecorder`). Its Events carry
``source``, ``firstTimestamp``, ``lastTimestamp`` and ``count`` (so ``kubectl get events
--sort-by=.lastTimestamp`` and ``describe``'s ``(x5 over 2m)`` work) and no ``eventTime``, and
pass through client-go's correlator before anything is written:

* **Aggregation.** Events that differ only in their message (same source, object, type and
  reason) are counted per 10-minute window; from the tenth distinct message on, each is recorded
  as one shared Event whose message is ``(combined from similar events): <message>``.
* **De-duplication.** An Event equal to one recorded before (source, object and its field path,
  type, reason, message) is not created again: the earlier Event's ``count``, ``lastTimestamp``
  and ``message`` are patched.
* **Spam filter.** A source may record 25 Events about one object at once, then one every 5
  minutes (a token bucket per source and object); the rest are dropped, though they still count
  towards the next written ``count``.

Every cache holds at most 4096 entries, as client-go's LRU caches; times come from the injected
clock.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from fakeapi.client.client import Client
from fakeapi.client.errors import is_not_found
from fakeapi.client.events import EventType, QueuedEventWriter, object_reference, unique_stamp
from fakeapi.client.resource import EVENTS
from fakeapi.clock import Clock
from fakeapi.objects import Obj
from fakeapi.timefmt import format_time

__all__ = ["LegacyEventRecorder"]

CACHE_ENTRIES = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL = 600.0
SPAM_BURST = 25
SPAM_QPS = 1 / 300
AGGREGATE_PREFIX = "(combined from similar events): "


@dataclass(slots=True)
class _Similar:
    """Messages seen for one aggregation key in the current window."""

    messages: set[str] = field(default_factory=set)
    last: float = 0.0


@dataclass(slots=True)
class _Logged:
    """The Event an event key was last written as."""

    count: int
    first_timestamp: str
    name: str


@dataclass(slots=True)
class _Bucket:
    tokens: float
    last: float


class _Lru(OrderedDict[Any, Any]):
    """An LRU cache of at most :data:`CACHE_ENTRIES` entries."""

    def get_recent(self, key: Any) -> Any:
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
        return found

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        if len(self) > CACHE_ENTRIES:
            self.popitem(last=False)


class LegacyEventRecorder(QueuedEventWriter):
    """Queue core/v1 Events for one source (``component``, and ``host`` for a kubelet); a
    background task writes them. :meth:`event` takes the same arguments as
    :meth:`EventRecorder.event <fakeapi.client.EventRecorder.event>`; ``action`` and ``related``
    have no place in this recorder's Events, as in client-go's."""

    def __init__(
        self, client: Client, *, component: str, clock: Clock | None = None, host: str = ""
    ) -> None:
        super().__init__(client, component=component, clock=clock)
        self.host = host
        self._similar = _Lru()
        self._logged = _Lru()
        self._buckets = _Lru()

    def event(
        self,
        *,
        regarding: Obj,
        type: EventType,
        reason: str,
        action: str = "",
        note: str = "",
        related: Obj | None = None,
        field_path: str = "",
    ) -> None:
        """Record an Event about ``regarding`` (its part ``field_path``); returns at once."""
        if self._closed:
            return
        ref = object_reference(regarding)
        if field_path:
            ref["fieldPath"] = field_path
        now = self.clock.now()
        monotonic = self.clock.monotonic()
        obj = (
            ref.get("kind", ""), ref.get("namespace", ""), ref.get("name", ""),
            ref.get("uid", ""), ref.get("apiVersion", ""),
        )
        source = (self.component, self.host)
        message = note
        part = ref.get("fieldPath", "")
        key: tuple[Any, ...] = ("event", *source, *obj, part, type, reason, note)
        similar_key = (*source, *obj, type, reason)
        similar = self._similar.get_recent(similar_key)
        if similar is None or monotonic - similar.last > AGGREGATE_INTERVAL:
            similar = _Similar()
        similar.messages.add(note)
        similar.last = monotonic
        self._similar.put(similar_key, similar)
        if len(similar.messages) >= AGGREGATE_MAX_EVENTS:
            similar.messages.pop()  # the set grows no further
            key = ("aggregate", *similar_key)
            message = AGGREGATE_PREFIX + note
        stamp = format_time(now)
        logged = self._logged.get_recent(key)
        if logged is None:
            logged = _Logged(count=1, first_timestamp=stamp, name="")
            body = self._new_event(ref, type=type, reason=reason, message=message, stamp=stamp)
            logged.name = body["metadata"]["name"]
        else:
            logged.count += 1
            body = self._new_event(ref, type=type, reason=reason, message=message, stamp=stamp)
            body["metadata"]["name"] = logged.name
            body.update(firstTimestamp=logged.first_timestamp, count=logged.count)
        self._logged.put(key, logged)
        if not self._accept((*source, *obj), monotonic):
            return
        self._submit("patch" if logged.count > 1 else "create", body, logged)

    def _accept(self, spam_key: tuple[Any, ...], now: float) -> bool:
        """client-go's spam filter: a token bucket per source and object."""
        bucket = self._buckets.get_recent(spam_key)
        if bucket is None:
            bucket = _Bucket(tokens=SPAM_BURST, last=now)
        bucket.tokens = min(SPAM_BURST, bucket.tokens + (now - bucket.last) * SPAM_QPS)
        bucket.last = now
        self._buckets.put(spam_key, bucket)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def _new_event(
        self, ref: dict[str, Any], *, type: str, reason: str, message: str, stamp: str
    ) -> Obj:
        source = {"component": self.component}
        if self.host:
            source["host"] = self.host
        body: Obj = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{ref.get('name', '')}.{unique_stamp(self.clock.now()):x}",
                "namespace": ref.get("namespace") or "default",
            },
            "involvedObject": ref,
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
            "type": type,
            "reportingComponent": self.component,
        }
        if self.host:
            body["reportingInstance"] = self.host
        return body

    async def _write(self, op: str, body: Obj, extra: Any) -> None:
        logged: _Logged = extra
        meta = body["metadata"]
        if op == "patch":
            patch = {
                "count": body["count"],
                "lastTimestamp": body["lastTimestamp"],
                "message": body["message"],
            }
            try:
                await self.client.patch(
                    EVENTS,
                    name=meta["name"],
                    namespace=meta["namespace"],
                    patch=patch,
                    patch_type="strategic",
                )
                return
            except Exception as exc:
                if not is_not_found(exc):
                    raise
            # gone meanwhile (expired, deleted): written anew with the count it has reached
        logged.name = await self._create(EVENTS, body, body["involvedObject"].get("name", ""))
