"""The scheduling queue: active, backoff and unschedulable pods, moved by cluster events.

Shaped like kube-scheduler's ``PriorityQueue`` with SchedulerQueueingHints on:

* **activeQ** — a heap ordered by the QueueSort plugin; :meth:`SchedulingQueue.pop` waits on it.
  PreEnqueue runs before a pod enters; a pod it rejects is *gated* and waits in the unschedulable
  pool (counted as ``gated`` in ``scheduler_pending_pods``).
* **backoffQ** — pods whose last attempt failed, until ``1 s · 2^(attempts−1)`` (at most 10 s)
  has passed since that failure; flushed to activeQ every second of the injected clock. While
  activeQ is empty, the pod whose backoff ends first is taken at once (SchedulerPopFromBackoffQ,
  beta and on upstream since 1.33), unless it failed with an error: an idle scheduler does not
  wait out a backoff.
* **unschedulable pool** — pods rejected by plugins. They leave it only when a cluster event
  arrives that one of the *rejecting* plugins registered and whose queueing hint answers QUEUE
  (then to backoffQ while their backoff lasts, else to activeQ), when a plugin activates them, or
  by upstream's safety net: a pod waiting longer than 5 minutes is flushed (checked every 30 s).
  Pods that failed with an error skip the pool and always back off. The pool is filed by the
  plugins that rejected each pod and by the keys of the hints' event indexes (``EventIndex``), so an
  event asks the hints only about pods it can concern (upstream asks about every waiting pod of
  the rejecting plugins; the answers are the same).
* **in-flight events** — from pop until :meth:`done`, a pod is in flight; events of interest
  that arrive meanwhile are kept, and when the attempt fails they are replayed through the
  rejecting plugins' hints, so a change that happened during the attempt (a slice published while
  the pod was being filtered) is not lost.

All times come from the injected clock; nothing polls cluster state.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fakeapi.clock import Clock
from fakeapi.objects import Obj
from fakeapi.scheduler.framework.events import (
    UNSCHEDULABLE_TIMEOUT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventIndex,
    EventResource,
    QueueingHint,
    cluster_event,
    pod_update_actions,
)
from fakeapi.scheduler.framework.runtime import Framework
from fakeapi.scheduler.framework.status import Status
from fakeapi.scheduler.framework.types import PodInfo, QueuedPodInfo

__all__ = [
    "BACKOFF_FLUSH_INTERVAL",
    "INITIAL_BACKOFF",
    "MAX_BACKOFF",
    "MAX_UNSCHEDULABLE_DURATION",
    "SchedulingQueue",
    "UNSCHEDULABLE_FLUSH_INTERVAL",
]

log = logging.getLogger("fakeapi.scheduler.queue")

INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 10.0
BACKOFF_FLUSH_INTERVAL = 1.0
UNSCHEDULABLE_FLUSH_INTERVAL = 30.0
MAX_UNSCHEDULABLE_DURATION = 300.0


class _ActiveEntry:
    __slots__ = ("less", "qpi", "removed")

    def __init__(self, qpi: QueuedPodInfo, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]):
        self.qpi = qpi
        self.less = less
        self.removed = False

    def __lt__(self, other: _ActiveEntry) -> bool:
        return self.less(self.qpi, other.qpi)


@dataclass(slots=True)
class _Event:
    event: ClusterEvent
    old: Obj | None
    new: Obj | None


#: per plugin, the registrations an event matches
_PluginRegistrations = tuple[tuple[str, tuple[ClusterEventWithHint, ...]], ...]


@dataclass(slots=True)
class _Filing:
    """Where a pod of the unschedulable pool is filed (to take it out again)."""

    seq: int
    rejectors: frozenset[str]
    keys: list[tuple[str, frozenset[str] | None]]


class SchedulingQueue:
    def __init__(
        self,
        *,
        framework: Framework,
        clock: Clock,
        pop_from_backoff: bool = True,
        on_gated: Callable[[QueuedPodInfo, Status], None] | None = None,
    ) -> None:
        self.framework = framework
        #: told of every PreEnqueue rejection (the scheduler reports it in the pod's status)
        self.on_gated = on_gated
        self.clock = clock
        self.pop_from_backoff = pop_from_backoff
        self._less = framework.queue_sort.less
        self._active: list[_ActiveEntry] = []
        self._active_by_uid: dict[str, _ActiveEntry] = {}
        self._backoff: list[tuple[float, int, str]] = []
        self._backoff_pods: dict[str, QueuedPodInfo] = {}
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._gated: set[str] = set()
        self._in_flight: dict[str, int] = {}
        self._in_flight_pods: dict[str, QueuedPodInfo] = {}
        self._events: deque[_Event] = deque()
        self._events_start = 0
        self._seq = itertools.count()
        self._wakeup = asyncio.Event()
        self._closed = False
        interesting = ActionType(0)
        self._interesting: dict[EventResource, ActionType] = {}
        for registrations in framework.events.values():
            for reg in registrations:
                current = self._interesting.get(reg.event.resource, interesting)
                self._interesting[reg.event.resource] = current | reg.event.action
        # the registrations of a plugin that an event matches, per (plugin, event): every event
        # is checked against each waiting pod's rejectors, so matching once per kind of event
        # keeps a move pass at a dict lookup per pod and rejector
        self._matching: dict[tuple[str, ClusterEvent], tuple[ClusterEventWithHint, ...]] = {}
        self._plugins_for: dict[ClusterEvent, _PluginRegistrations] = {}
        #: whether any plugin registered for an event, per event (a few kinds of event arrive
        #: with every pod: worked out once each)
        self._interest: dict[ClusterEvent, bool] = {}
        # the unschedulable pool filed by rejecting plugin and by index key
        self._indexes: dict[str, EventIndex] = {
            reg.index.name: reg.index
            for registrations in framework.events.values()
            for reg in registrations
            if reg.index is not None
        }
        self._filings: dict[str, _Filing] = {}
        self._rejected_by: dict[str, set[str]] = {}
        self._rejected_by_nobody: set[str] = set()
        self._by_key: dict[str, dict[str, set[str]]] = {name: {} for name in self._indexes}
        self._any_key: dict[str, set[str]] = {name: set() for name in self._indexes}

    # -- reading --------------------------------------------------------------------------------
    def _park(self, qpi: QueuedPodInfo) -> None:
        """Into the unschedulable pool (gated or rejected)."""
        uid = qpi.uid
        filing = self._unfile(uid)
        self._unschedulable[uid] = qpi
        self._file(qpi, filing.seq if filing is not None else next(self._seq))
        if qpi.gated:
            self._gated.add(uid)
        else:
            self._gated.discard(uid)

    def _unpark(self, uid: str) -> QueuedPodInfo | None:
        self._gated.discard(uid)
        self._unfile(uid)
        return self._unschedulable.pop(uid, None)

    @staticmethod
    def _rejectors(qpi: QueuedPodInfo) -> set[str]:
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if qpi.gated and qpi.gating_plugin:
            rejectors.add(qpi.gating_plugin)
        return rejectors

    def _file(self, qpi: QueuedPodInfo, seq: int) -> None:
        uid = qpi.uid
        rejectors = frozenset(self._rejectors(qpi))
        for plugin in rejectors:
            self._rejected_by.setdefault(plugin, set()).add(uid)
        if not rejectors:
            self._rejected_by_nobody.add(uid)
        keys: list[tuple[str, frozenset[str] | None]] = []
        for name, index in self._indexes.items():
            pod_keys = index.pod_keys(qpi.pod)
            if pod_keys is None:
                self._any_key[name].add(uid)
            else:
                by_key = self._by_key[name]
                for key in pod_keys:
                    by_key.setdefault(key, set()).add(uid)
            keys.append((name, pod_keys))
        self._filings[uid] = _Filing(seq, rejectors, keys)

    def _unfile(self, uid: str) -> _Filing | None:
        filing = self._filings.pop(uid, None)
        if filing is None:
            return None
        for plugin in filing.rejectors:
            _discard(self._rejected_by, plugin, uid)
        self._rejected_by_nobody.discard(uid)
        for name, pod_keys in filing.keys:
            if pod_keys is None:
                self._any_key[name].discard(uid)
            else:
                for key in pod_keys:
                    _discard(self._by_key[name], key, uid)
        return filing

    def pending_counts(self) -> dict[str, int]:
        gated = len(self._gated)
        return {
            "active": len(self._active_by_uid),
            "backoff": len(self._backoff_pods),
            "unschedulable": len(self._unschedulable) - gated,
            "gated": gated,
        }

    def where(self, uid: str) -> str | None:
        """Which part of the queue holds the pod ("active", "backoff", "unschedulable",
        "gated", "in-flight"), or None."""
        if uid in self._active_by_uid:
            return "active"
        if uid in self._backoff_pods:
            return "backoff"
        if uid in self._unschedulable:
            return "gated" if self._unschedulable[uid].gated else "unschedulable"
        if uid in self._in_flight:
            return "in-flight"
        return None

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.where(uid) is not None

    # -- adding and removing pods ---------------------------------------------------------------
    def add(self, pod: Obj) -> None:
        """A new pod for this scheduler."""
        now = self.clock.monotonic()
        qpi = QueuedPodInfo(info=PodInfo(pod), timestamp=now)
        if qpi.uid in self:
            self.update(pod, pod)
            return
        self._to_active(qpi)

    def update(self, old: Obj, new: Obj) -> None:
        uid = (new.get("metadata") or {}).get("uid", "")
        known = self._queued(uid)
        info = (
            known.info.for_version(new, spec=new.get("spec") or {})
            if known is not None
            else PodInfo(new)
        )
        entry = self._active_by_uid.get(uid)
        if entry is not None:
            entry.removed = True
            entry.qpi.info = info
            self._push_active(entry.qpi)
            return
        if uid in self._backoff_pods:
            self._backoff_pods[uid].info = info
            return
        if uid in self._in_flight_pods:
            self._in_flight_pods[uid].info = info
        event = cluster_event(
            EventResource.UNSCHEDULED_POD, pod_update_actions(old, new), "UnscheduledPodUpdate"
        )
        if uid in self._in_flight:
            self._record(event, old, new)
            return
        qpi = self._unschedulable.get(uid)
        if qpi is None:
            self.add(new)
            return
        qpi.info = info
        if self._worth_retrying(qpi, event, old, new):
            self._unpark(uid)
            self._requeue(qpi)
        else:
            self._park(qpi)  # filed again: its keys may have changed

    def _queued(self, uid: str) -> QueuedPodInfo | None:
        entry = self._active_by_uid.get(uid)
        if entry is not None:
            return entry.qpi
        return (
            self._backoff_pods.get(uid)
            or self._in_flight_pods.get(uid)
            or self._unschedulable.get(uid)
        )

    def delete(self, pod: Obj) -> None:
        uid = (pod.get("metadata") or {}).get("uid", "")
        entry = self._active_by_uid.pop(uid, None)
        if entry is not None:
            entry.removed = True
        self._backoff_pods.pop(uid, None)
        self._unpark(uid)

    # -- popping --------------------------------------------------------------------------------
    async def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule (now in flight), or None once the queue is closed."""
        while True:
            while self._active:
                entry = heapq.heappop(self._active)
                if entry.removed:
                    continue
                del self._active_by_uid[entry.qpi.uid]
                return self._start_attempt(entry.qpi)
            if self._closed:
                return None
            if self.pop_from_backoff:
                backing_off = self._pop_backoff()
                if backing_off is not None:
                    return self._start_attempt(backing_off)
            self._wakeup.clear()
            await self._wakeup.wait()

    def _start_attempt(self, qpi: QueuedPodInfo) -> QueuedPodInfo:
        if qpi.initial_timestamp is None:
            qpi.initial_timestamp = qpi.timestamp
        qpi.attempts += 1
        self._in_flight[qpi.uid] = self._events_start + len(self._events)
        self._in_flight_pods[qpi.uid] = qpi
        return qpi

    def _pop_backoff(self) -> QueuedPodInfo | None:
        """The backing-off pod whose backoff ends first, leaving those that failed with an
        error (upstream keeps them in a backoff queue of their own); one PreEnqueue rejects is
        gated instead, as on its way to activeQ."""
        kept: list[tuple[float, int, str]] = []
        found: QueuedPodInfo | None = None
        while self._backoff and found is None:
            entry = heapq.heappop(self._backoff)
            qpi = self._backoff_pods.get(entry[2])
            if qpi is None:
                continue  # left backoffQ already
            if qpi.failed_with_error:
                kept.append(entry)
                continue
            del self._backoff_pods[entry[2]]
            if self._admitted(qpi):
                found = qpi
        for entry in kept:
            heapq.heappush(self._backoff, entry)
        return found

    def done(self, uid: str) -> None:
        """The pod's attempt is over (bound, or put back); forget its in-flight events."""
        self._in_flight.pop(uid, None)
        self._in_flight_pods.pop(uid, None)
        oldest = min(self._in_flight.values(), default=self._events_start + len(self._events))
        while self._events_start < oldest and self._events:
            self._events.popleft()
            self._events_start += 1
        if not self._in_flight:
            self._events_start += len(self._events)
            self._events.clear()

    def close(self) -> None:
        self._closed = True
        self._wakeup.set()

    # -- after a failed attempt -------------------------------------------------------------------
    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo) -> None:
        """Put back a pod whose attempt failed (its ``unschedulable_plugins`` say who rejected
        it): to backoffQ when it failed with an error or an event during the attempt makes it
        worth another try, else to the unschedulable pool."""
        uid = qpi.uid
        start = self._in_flight.get(uid)
        qpi.last_failure = self.clock.monotonic()
        qpi.timestamp = qpi.last_failure
        if uid in self._active_by_uid or uid in self._backoff_pods or uid in self._unschedulable:
            self.done(uid)
            return
        retry = qpi.failed_with_error
        if not retry and start is not None:
            for recorded in itertools.islice(
                self._events, max(0, start - self._events_start), None
            ):
                if self._worth_retrying(qpi, recorded.event, recorded.old, recorded.new):
                    retry = True
                    break
        self.done(uid)
        if retry:
            self._requeue(qpi)
        else:
            self._park(qpi)

    # -- events ---------------------------------------------------------------------------------
    def on_event(
        self, event: ClusterEvent, old: Obj | None, new: Obj | None, *, exclude: str = ""
    ) -> None:
        """A cluster change: wake the unschedulable pods it may help (and remember it for pods in
        flight); ``exclude`` is a pod the event must not move (the one that caused it)."""
        if not self._of_interest(event):
            return
        if self._in_flight:
            self._record(event, old, new)
        if not self._unschedulable:
            return
        if event is UNSCHEDULABLE_TIMEOUT:
            candidates = list(self._unschedulable.values())
        else:
            near = self._candidates(event, old, new)
            if not near:
                return  # the usual answer: no waiting pod can be helped by this event
            filings = self._filings
            candidates = [
                self._unschedulable[uid] for uid in sorted(near, key=lambda u: filings[u].seq)
            ]
        moved = [
            qpi
            for qpi in candidates
            if qpi.uid != exclude and self._worth_retrying(qpi, event, old, new)
        ]
        for qpi in moved:
            self._unpark(qpi.uid)
            self._requeue(qpi)

    def activate(self, pods: Iterable[Obj]) -> None:
        """Move these pods to activeQ now, wherever they wait (upstream ``Activate``)."""
        for pod in pods:
            uid = (pod.get("metadata") or {}).get("uid", "")
            qpi = self._unpark(uid) or self._backoff_pods.pop(uid, None)
            if qpi is not None:
                self._to_active(qpi)

    def _of_interest(self, event: ClusterEvent) -> bool:
        known = self._interest.get(event)
        if known is None:
            known = self._interest[event] = self._registered_for(event)
        return known

    def _registered_for(self, event: ClusterEvent) -> bool:
        if event is UNSCHEDULABLE_TIMEOUT:
            return True
        for resource in (event.resource, EventResource.WILDCARD):
            if self._interesting.get(resource, ActionType(0)) & event.action:
                return True
        if event.resource in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD):
            return bool(self._interesting.get(EventResource.POD, ActionType(0)) & event.action)
        return False

    def _record(self, event: ClusterEvent, old: Obj | None, new: Obj | None) -> None:
        self._events.append(_Event(event, old, new))

    def _candidates(self, event: ClusterEvent, old: Obj | None, new: Obj | None) -> set[str]:
        """The waiting pods whose hints ``event`` can make answer QUEUE: pods nobody rejected,
        and pods rejected by a plugin with a matching registration, narrowed by its index."""
        found = set(self._rejected_by_nobody)
        for plugin, registrations in self._plugins_matching(event):
            rejected = self._rejected_by.get(plugin)
            if not rejected:
                continue
            for registration in registrations:
                index = registration.index
                event_keys = None if index is None else index.event_keys(old, new)
                if index is None or event_keys is None:
                    found |= rejected
                    break
                found |= rejected & self._any_key[index.name]
                by_key = self._by_key[index.name]
                for key in event_keys:
                    filed = by_key.get(key)
                    if filed:
                        found |= rejected & filed
        return found

    def _plugins_matching(self, event: ClusterEvent) -> _PluginRegistrations:
        found = self._plugins_for.get(event)
        if found is None:
            found = tuple(
                (plugin, registrations)
                for plugin in self.framework.events
                if (registrations := self._registrations_matching(plugin, event))
            )
            self._plugins_for[event] = found
        return found

    def _worth_retrying(
        self, qpi: QueuedPodInfo, event: ClusterEvent, old: Obj | None, new: Obj | None
    ) -> bool:
        if event is UNSCHEDULABLE_TIMEOUT:
            return True
        rejectors = self._rejectors(qpi)
        if not rejectors:
            return True
        for name in rejectors:
            for registration in self._registrations_matching(name, event):
                if registration.hint is None:
                    return True
                try:
                    if registration.hint(qpi.pod, old, new) is QueueingHint.QUEUE:
                        return True
                except Exception:
                    log.exception("queueing hint of %s failed; queueing the pod", name)
                    return True
        return False

    def _registrations_matching(
        self, plugin: str, event: ClusterEvent
    ) -> tuple[ClusterEventWithHint, ...]:
        key = (plugin, event)
        found = self._matching.get(key)
        if found is None:
            found = tuple(
                registration
                for registration in self.framework.events.get(plugin, ())
                if registration.event.matches(event)
            )
            self._matching[key] = found
        return found

    # -- moving ------------------------------------------------------------------------------------
    def backoff_duration(self, qpi: QueuedPodInfo) -> float:
        duration = INITIAL_BACKOFF
        for _ in range(1, qpi.attempts):
            duration *= 2
            if duration >= MAX_BACKOFF:
                return MAX_BACKOFF
        return duration

    def _backoff_expiry(self, qpi: QueuedPodInfo) -> float:
        return qpi.last_failure + self.backoff_duration(qpi) if qpi.attempts else 0.0

    def _requeue(self, qpi: QueuedPodInfo) -> None:
        expiry = self._backoff_expiry(qpi)
        if expiry > self.clock.monotonic():
            self._backoff_pods[qpi.uid] = qpi
            heapq.heappush(self._backoff, (expiry, next(self._seq), qpi.uid))
            if self.pop_from_backoff:
                self._wakeup.set()  # an idle scheduler takes it at once
        else:
            self._to_active(qpi)

    def _admitted(self, qpi: QueuedPodInfo) -> bool:
        """PreEnqueue lets the pod in; a pod it rejects is gated in the unschedulable pool."""
        status = self.framework.run_pre_enqueue(qpi.pod)
        if status is not None:
            qpi.gated = True
            qpi.gating_plugin = status.plugin
            self._park(qpi)
            if self.on_gated is not None:
                self.on_gated(qpi, status)
            return False
        qpi.gated = False
        qpi.gating_plugin = ""
        return True

    def _to_active(self, qpi: QueuedPodInfo) -> None:
        if self._admitted(qpi):
            qpi.timestamp = self.clock.monotonic()
            self._push_active(qpi)

    def _push_active(self, qpi: QueuedPodInfo) -> None:
        entry = _ActiveEntry(qpi, self._less)
        self._active_by_uid[qpi.uid] = entry
        heapq.heappush(self._active, entry)
        self._wakeup.set()

    def flush_backoff_completed(self) -> None:
        now = self.clock.monotonic()
        while self._backoff and self._backoff[0][0] <= now:
            _, _, uid = heapq.heappop(self._backoff)
            qpi = self._backoff_pods.pop(uid, None)
            if qpi is not None:
                self._to_active(qpi)

    def flush_unschedulable_left_over(self) -> None:
        now = self.clock.monotonic()
        stale = [
            qpi
            for qpi in self._unschedulable.values()
            if now - qpi.timestamp > MAX_UNSCHEDULABLE_DURATION
        ]
        for qpi in stale:
            self._unpark(qpi.uid)
            qpi.timestamp = now
            self._requeue(qpi)

    async def run_flushers(self) -> None:
        """Upstream's two timers: backoff every second, the unschedulable pool every 30 s."""
        next_unschedulable = self.clock.monotonic() + UNSCHEDULABLE_FLUSH_INTERVAL
        while not self._closed:
            await self.clock.sleep(BACKOFF_FLUSH_INTERVAL)
            self.flush_backoff_completed()
            if self.clock.monotonic() >= next_unschedulable:
                next_unschedulable = self.clock.monotonic() + UNSCHEDULABLE_FLUSH_INTERVAL
                self.flush_unschedulable_left_over()


def _discard(index: dict[str, set[str]], key: str, uid: str) -> None:
    members = index.get(key)
    if members is not None:
        members.discard(uid)
        if not members:
            del index[key]
