"""A rate-limited work queue of keys, with client-go's guarantees, timed by an injected clock.

Controllers do not process events; they queue the *key* of what changed and later reconcile that
key from current state. The queue makes that safe and cheap, as client-go's does:

- **Dedupe.** A key queued several times before a worker takes it is handed out once.
- **One worker per key.** A key being processed is not handed out again; if it is added meanwhile
  it is marked dirty and re-queued when the worker calls :meth:`WorkQueue.done`, so the change is
  not lost and two workers never reconcile the same object concurrently.
- **Delays and backoff.** :meth:`~WorkQueue.add_after` adds a key once a delay has passed on the
  clock (the earliest pending time wins); :meth:`~WorkQueue.add_rate_limited` delays it by the
  rate limiter's answer — per-key exponential backoff from 5 ms doubling up to 1000 s by default,
  client-go's item limiter — until :meth:`~WorkQueue.forget` resets the key after a success.

- **Shutdown.** :meth:`~WorkQueue.shutdown` stops intake and lets workers finish what is queued;
  :meth:`~WorkQueue.shutdown_with_drain` also waits until no key is being processed, so a
  component stopping does not abandon a half-done reconcile.
- **Metrics.** Given a Prometheus registry, the queue reports client-go's workqueue metrics under
  its ``name``: depth, adds, retries, time queued and time in processing.

Every delay is a sleep on the :class:`~fakeapi.clock.Clock`, so with a ``FakeClock`` a test moves
time by hand and nothing waits on the wall clock.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections import deque
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from fakeapi.clock import Clock, RealClock

__all__ = ["ItemExponentialBackoff", "RateLimiter", "WorkQueue"]

K = TypeVar("K", bound=Hashable)


class RateLimiter(Protocol):
    """Decides how long a key waits before its next retry."""

    def when(self, key: Hashable) -> float:
        """Seconds to wait before retrying ``key``; counts this as one more failure."""
        ...

    def forget(self, key: Hashable) -> None:
        """Stop tracking ``key`` (it succeeded): its next failure starts from the base delay."""
        ...

    def num_requeues(self, key: Hashable) -> int:
        """How many failures of ``key`` are being counted."""
        ...


class ItemExponentialBackoff:
    """Per-key delay ``base_delay * 2**failures``, capped at ``max_delay``."""

    def __init__(self, *, base_delay: float = 0.005, max_delay: float = 1000.0) -> None:
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._failures: dict[Hashable, int] = {}

    def when(self, key: Hashable) -> float:
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        if failures > 62:  # 2**63 overflows Go's int64; beyond it the cap applies anyway
            return self.max_delay
        return min(math.ldexp(self.base_delay, failures), self.max_delay)

    def forget(self, key: Hashable) -> None:
        self._failures.pop(key, None)

    def num_requeues(self, key: Hashable) -> int:
        return self._failures.get(key, 0)


#: client-go's workqueue histogram buckets: 1 µs to 10 s by powers of ten
_DURATION_BUCKETS = tuple(10.0**exp for exp in range(-8, 2))


class _QueueMetrics:
    """client-go's workqueue metrics, registered once per Prometheus registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ("name",)
        self.depth = Gauge(
            "workqueue_depth", "Current depth of workqueue", labels, registry=registry
        )
        self.adds = Counter(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            labels,
            registry=registry,
        )
        self.retries = Counter(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            labels,
            registry=registry,
        )
        self.queue_duration = Histogram(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested.",
            labels,
            buckets=_DURATION_BUCKETS,
            registry=registry,
        )
        self.work_duration = Histogram(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes.",
            labels,
            buckets=_DURATION_BUCKETS,
            registry=registry,
        )


_METRICS: weakref.WeakKeyDictionary[CollectorRegistry, _QueueMetrics] = weakref.WeakKeyDictionary()


def _metrics_for(registry: CollectorRegistry) -> _QueueMetrics:
    metrics = _METRICS.get(registry)
    if metrics is None:
        metrics = _METRICS[registry] = _QueueMetrics(registry)
    return metrics


class WorkQueue(Generic[K]):
    """Keys waiting to be processed; :meth:`get` hands them out, :meth:`done` takes them back.

    A worker loop::

        while (key := await queue.get()) is not None:
            try:
                await reconcile(key)
            except Exception:
                queue.add_rate_limited(key)
            else:
                queue.forget(key)
            finally:
                queue.done(key)
    """

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        rate_limiter: RateLimiter | None = None,
        name: str = "",
        metrics: CollectorRegistry | None = None,
    ) -> None:
        self.name = name
        self.clock: Clock = clock or RealClock()
        self.rate_limiter: RateLimiter = rate_limiter or ItemExponentialBackoff()
        self._queue: deque[K] = deque()
        #: keys that need processing: queued, or added again while being processed
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        #: keys waiting for a delay to pass, and when (clock.monotonic) they become ready
        self._waiting: dict[K, float] = {}
        self._timers: set[asyncio.Task[None]] = set()
        self._getters: deque[asyncio.Future[None]] = deque()
        self._shutting_down = False
        self._drained: asyncio.Event | None = None
        #: when each queued key was added, and when each key in processing was handed out
        self._added_at: dict[K, float] = {}
        self._started_at: dict[K, float] = {}
        self._metrics = _metrics_for(metrics) if metrics is not None else None
        if self._metrics is not None:
            # the depth is read when scraped, not set on every add and get
            queue_ref = weakref.ref(self._queue)
            self._metrics.depth.labels(name).set_function(
                lambda: float(len(queue) if (queue := queue_ref()) is not None else 0)
            )
            self._adds = self._metrics.adds.labels(name)
            self._retries = self._metrics.retries.labels(name)
            self._queue_duration = self._metrics.queue_duration.labels(name)
            self._work_duration = self._metrics.work_duration.labels(name)

    def __len__(self) -> int:
        """Keys ready to be handed out (not those being processed or waiting for a delay)."""
        return len(self._queue)

    @property
    def processing(self) -> int:
        return len(self._processing)

    @property
    def waiting(self) -> int:
        """Keys scheduled by :meth:`add_after` / :meth:`add_rate_limited` that are not yet due."""
        return len(self._waiting)

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    # --- adding ------------------------------------------------------------------------------
    def add(self, key: K) -> None:
        """Queue ``key`` unless it is already queued; ignored after :meth:`shutdown`."""
        if self._shutting_down or key in self._dirty:
            return
        self._dirty.add(key)
        if self._metrics is not None:
            self._adds.inc()
            self._added_at.setdefault(key, self.clock.monotonic())
        if key in self._processing:
            return  # re-queued by done()
        self._enqueue(key)

    def _enqueue(self, key: K) -> None:
        self._queue.append(key)
        self._wake_one()

    def add_after(self, key: K, delay: float) -> None:
        """Queue ``key`` once ``delay`` seconds of clock time have passed.

        If the key is already waiting, the earlier of the two times is kept.
        """
        if self._shutting_down:
            return
        if delay <= 0:
            self.add(key)
            return
        ready_at = self.clock.monotonic() + delay
        pending = self._waiting.get(key)
        if pending is not None and pending <= ready_at:
            return
        self._waiting[key] = ready_at
        task = asyncio.get_running_loop().create_task(self._add_when_ready(key, ready_at))
        self._timers.add(task)
        task.add_done_callback(self._timers.discard)

    async def _add_when_ready(self, key: K, ready_at: float) -> None:
        # the deadline was fixed when the key was added: time that passed before this task
        # first ran (a FakeClock advanced right after add_after) still counts
        await self.clock.sleep(ready_at - self.clock.monotonic())
        if self._waiting.get(key) != ready_at:
            return  # superseded by an earlier add_after
        del self._waiting[key]
        self.add(key)

    def add_rate_limited(self, key: K) -> None:
        """Queue ``key`` after the rate limiter's delay (one more failure for its backoff)."""
        if self._shutting_down:
            return
        if self._metrics is not None:
            self._retries.inc()
        self.add_after(key, self.rate_limiter.when(key))

    def forget(self, key: K) -> None:
        """The key succeeded: reset its backoff. Does not remove it from the queue."""
        self.rate_limiter.forget(key)

    def num_requeues(self, key: K) -> int:
        return self.rate_limiter.num_requeues(key)

    # --- processing --------------------------------------------------------------------------
    async def get(self) -> K | None:
        """The next key (now being processed), waiting for one if needed.

        Returns None once the queue is shut down and no key is left to hand out.
        """
        while not self._queue:
            if self._shutting_down:
                return None
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._getters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                with_wakeup = waiter.done() and not waiter.cancelled()
                if not waiter.done():
                    waiter.cancel()
                if with_wakeup:
                    self._wake_one()  # pass on the wakeup this cancelled getter consumed
                raise
        key = self._queue.popleft()
        self._processing.add(key)
        self._dirty.discard(key)
        if self._metrics is not None:
            now = self.clock.monotonic()
            self._queue_duration.observe(now - self._added_at.pop(key, now))
            self._started_at[key] = now
        if self._queue:
            self._wake_one()
        return key

    def done(self, key: K) -> None:
        """Processing of ``key`` finished; if it was added meanwhile, it is queued again."""
        self._processing.discard(key)
        if self._metrics is not None:
            now = self.clock.monotonic()
            self._work_duration.observe(now - self._started_at.pop(key, now))
        if key in self._dirty:
            self._enqueue(key)
        elif not self._processing and self._drained is not None:
            self._drained.set()

    def shutdown(self) -> None:
        """Stop accepting keys, drop pending delays and wake every waiting :meth:`get`.

        Keys already queued are still handed out; after that :meth:`get` returns None.
        """
        self._shutting_down = True
        for task in list(self._timers):
            task.cancel()
        self._waiting.clear()
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    async def shutdown_with_drain(self) -> None:
        """:meth:`shutdown`, then wait until every key handed out has been marked done."""
        self.shutdown()
        if not self._processing:
            return
        self._drained = asyncio.Event()
        await self._drained.wait()

    def _wake_one(self) -> None:
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
