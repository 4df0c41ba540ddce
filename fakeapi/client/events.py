"""Record events.k8s.io/v1 Events the way client-go's ``tools/events`` recorder does.

Components report what they did (``Scheduled``, ``FailedScheduling``, ``Killing``...) as Events
about an object. :meth:`EventRecorder.event` never blocks and never fails the caller: events are
queued and written by one background task, best effort, as in client-go.

**Series.** Events are grouped by (action, reason, reporting controller, regarding, related); the
note is deliberately not part of the key, as upstream. The first occurrence is created as is. The
second turns it into a series (``series.count: 2``), written at once as a patch of the same
Event. Later occurrences only count up in memory; every :data:`SERIES_REFRESH` seconds (30
minutes, upstream's heartbeat) the recorder writes the current count of each live series, and a
series not seen for :data:`SERIES_FINISH` seconds (6 minutes) gets its final count written and is
forgotten, so its next occurrence starts a new Event. All times come from the injected clock.

Event names are ``<regarding name>.<hex nanoseconds>``, in the regarding object's namespace
(``default`` for cluster-scoped objects), and carry ``reportingController`` and
``reportingInstance`` (``<controller>-<hostname>`` unless given, as client-go's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from fakeapi.client.client import Client
from fakeapi.client.errors import is_already_exists, is_not_found
from fakeapi.client.resource import EVENTS_K8S_IO, Resource
from fakeapi.clock import Clock, RealClock
from fakeapi.objects import Obj
from fakeapi.timefmt import format_micro_time

__all__ = [
    "SERIES_FINISH",
    "SERIES_REFRESH",
    "EventRecorder",
    "QueuedEventWriter",
    "object_reference",
    "unique_stamp",
]

log = logging.getLogger("fakeapi.client.events")

SERIES_REFRESH = 30 * 60.0
SERIES_FINISH = 6 * 60.0

EventType = Literal["Normal", "Warning"]

#: the last nanosecond stamp given to an Event name in this process: names stay unique when many
#: recorders stamp events at the same instant (always the case on a FakeClock that stands still)
_last_stamp = 0


def unique_stamp(moment: datetime) -> int:
    """Nanoseconds of ``moment``, later than any stamp given before in this process (an
    Event's name is ``<regarding name>.<hex stamp>``)."""
    global _last_stamp
    _last_stamp = max(int(moment.timestamp() * 1e9), _last_stamp + 1)
    return _last_stamp


def object_reference(obj: Obj, *, api_version: str = "", kind: str = "") -> dict[str, Any]:
    """An ``ObjectReference`` to ``obj`` (apiVersion and kind from the object unless given)."""
    meta = obj.get("metadata") or {}
    ref: dict[str, Any] = {}
    for key, value in (
        ("apiVersion", api_version or obj.get("apiVersion")),
        ("kind", kind or obj.get("kind")),
        ("name", meta.get("name")),
        ("namespace", meta.get("namespace")),
        ("uid", meta.get("uid")),
        ("resourceVersion", meta.get("resourceVersion")),
    ):
        if value:
            ref[key] = value
    return ref


def _ref_key(ref: dict[str, Any] | None) -> tuple[Any, ...]:
    if not ref:
        return ()
    get = ref.get
    return (
        get("apiVersion", ""), get("kind", ""), get("namespace", ""), get("name", ""),
        get("uid", ""), get("fieldPath", ""),
    )


@dataclass(slots=True)
class _Recorded:
    """An Event as last written, and how its series stands."""

    body: Obj
    last_observed: float
    count: int = 1
    written_count: int = 1


class QueuedEventWriter:
    """What every recorder shares: writes queued by :meth:`_submit` (an operation, an Event,
    one more value) and made, in order and best effort, by one background task."""

    def __init__(self, client: Client, *, component: str, clock: Clock | None) -> None:
        self.client = client
        self.component = component
        self.clock: Clock = clock or RealClock()
        self._pending: asyncio.Queue[tuple[str, Obj, Any]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    def _submit(self, op: str, body: Obj, extra: Any) -> None:
        self._pending.put_nowait((op, body, extra))
        if self._writer is None or self._writer.done():
            loop = asyncio.get_running_loop()
            self._writer = loop.create_task(self._write_all(), name=f"events {self.component}")

    async def _write_all(self) -> None:
        while not self._pending.empty():
            op, body, extra = self._pending.get_nowait()
            try:
                await self._write(op, body, extra)
            except Exception as exc:  # best effort, as client-go: never fail the caller
                log.warning("%s: could not record event %s: %s", self.component, op, exc)
            finally:
                self._pending.task_done()

    async def _write(self, op: str, body: Obj, extra: Any) -> None:
        raise NotImplementedError

    async def _create(self, resource: Resource, body: Obj, about: str) -> str:
        """Create the Event ``body`` (about the object named ``about``); its name, which is
        stamped again when another recorder named an event after the same instant."""
        meta = body["metadata"]
        try:
            await self.client.create(resource, body=body, namespace=meta["namespace"])
        except Exception as exc:
            if not is_already_exists(exc):
                raise
            meta["name"] = f"{about}.{unique_stamp(self.clock.now()):x}"
            await self.client.create(resource, body=body, namespace=meta["namespace"])
        return str(meta["name"])

    def _background_tasks(self) -> list[asyncio.Task[None] | None]:
        return [self._writer]

    async def flush(self) -> None:
        """Wait until every event recorded so far has been written (or given up on)."""
        await self._pending.join()

    async def close(self) -> None:
        """Write what is pending, then stop; later events are ignored."""
        self._closed = True
        await self.flush()
        for task in self._background_tasks():
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._writer = None


class EventRecorder(QueuedEventWriter):
    """Queue Events for one reporting component; a background task writes them."""

    def __init__(
        self,
        client: Client,
        *,
        component: str,
        clock: Clock | None = None,
        instance: str = "",
    ) -> None:
        super().__init__(client, component=component, clock=clock)
        # client-go's default: the controller and the host it runs on
        self.instance = instance or f"{component}-{socket.gethostname()}"
        self._series: dict[tuple[Any, ...], _Recorded] = {}
        self._heartbeat: asyncio.Task[None] | None = None

    # --- recording -----------------------------------------------------------------------------
    def event(
        self,
        *,
        regarding: Obj,
        type: EventType,
        reason: str,
        action: str,
        note: str = "",
        related: Obj | None = None,
        field_path: str = "",
    ) -> None:
        """Record that ``action`` happened to ``regarding`` for ``reason``; returns at once.

        ``field_path`` names the part of the object the event is about (a kubelet's
        ``spec.containers{app}``); events about different parts never join one series.
        """
        if self._closed:
            return
        ref = object_reference(regarding)
        if field_path:
            ref["fieldPath"] = field_path
        related_ref = object_reference(related) if related is not None else None
        key = (action, reason, self.component, _ref_key(ref), _ref_key(related_ref))
        now = self.clock.monotonic()
        recorded = self._series.get(key)
        if recorded is not None and now - recorded.last_observed > SERIES_FINISH:
            # finished: its final count is written and this occurrence starts a new Event (the
            # heartbeat sweeps the other quiet series; checking only this key keeps recording
            # constant-time however many series there are)
            del self._series[key]
            self._write_count(recorded)
            recorded = None
        if recorded is not None:
            recorded.count += 1
            recorded.last_observed = now
            if recorded.count == 2:
                recorded.written_count = 2
                self._submit("series", recorded.body, 2)
            return
        body = self._new_event(ref, related_ref, type=type, reason=reason, action=action, note=note)
        self._series[key] = _Recorded(body=body, last_observed=now)
        self._submit("create", body, 1)

    def _new_event(
        self,
        regarding: dict[str, Any],
        related: dict[str, Any] | None,
        *,
        type: str,
        reason: str,
        action: str,
        note: str,
    ) -> Obj:
        now = self.clock.now()
        ns = unique_stamp(now)
        body: Obj = {
            "apiVersion": EVENTS_K8S_IO.api_version,
            "kind": "Event",
            "metadata": {
                "name": f"{regarding.get('name', '')}.{ns:x}",
                "namespace": regarding.get("namespace") or "default",
            },
            "eventTime": format_micro_time(now),
            "reportingController": self.component,
            "reportingInstance": self.instance,
            "action": action,
            "reason": reason,
            "regarding": regarding,
            "note": note[:1024],  # upstream rejects longer notes
            "type": type,
        }
        if related is not None:
            body["related"] = related
        return body

    def _forget_finished(self, now: float) -> None:
        """Drop series quiet for :data:`SERIES_FINISH`, writing a final count not yet written."""
        finished = [k for k, r in self._series.items() if now - r.last_observed > SERIES_FINISH]
        for key in finished:
            self._write_count(self._series.pop(key))

    def _write_count(self, recorded: _Recorded) -> None:
        if recorded.count >= 2 and recorded.count != recorded.written_count:
            recorded.written_count = recorded.count
            self._submit("series", recorded.body, recorded.count)

    def _submit(self, op: str, body: Obj, extra: Any) -> None:
        super()._submit(op, body, extra)
        if self._heartbeat is None:
            loop = asyncio.get_running_loop()
            self._heartbeat = loop.create_task(self._refresh_series(), name="event series")

    def _background_tasks(self) -> list[asyncio.Task[None] | None]:
        return [self._heartbeat, self._writer]

    # --- writing -------------------------------------------------------------------------------

    async def _write(self, op: str, body: Obj, extra: Any) -> None:
        count: int = extra
        meta = body["metadata"]
        if op == "create":
            await self._create(EVENTS_K8S_IO, body, body["regarding"].get("name", ""))
            return
        series = {"count": count, "lastObservedTime": format_micro_time(self.clock.now())}
        try:
            await self.client.patch(
                EVENTS_K8S_IO,
                name=meta["name"],
                namespace=meta["namespace"],
                patch={"series": series},
                patch_type="merge",
            )
        except Exception as exc:
            if not is_not_found(exc):
                raise
            await self.client.create(
                EVENTS_K8S_IO, body={**body, "series": series}, namespace=meta["namespace"]
            )

    async def _refresh_series(self) -> None:
        """Every :data:`SERIES_FINISH` seconds finish quiet series; every
        :data:`SERIES_REFRESH` seconds write the running count of the others."""
        last_refresh = self.clock.monotonic()
        while True:
            await self.clock.sleep(SERIES_FINISH)
            now = self.clock.monotonic()
            self._forget_finished(now)
            if now - last_refresh >= SERIES_REFRESH:
                last_refresh = now
                for recorded in self._series.values():
                    self._write_count(recorded)

    async def close(self) -> None:
        await super().close()
        self._heartbeat = None
