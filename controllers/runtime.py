"""The reconcile runtime every controller shares: a key queue, workers, and one retry switch.

A controller never acts on an event. Informer handlers turn each change into the *key* of the
object that needs looking at and put it on a :class:`~fakeapi.client.WorkQueue`; workers take
keys one at a time (the queue never hands the same key to two workers) and call the
reconciler, which re-reads current state from the informer caches and makes the world match.
Because the reconciler only ever looks at state, a missed event, a duplicate event, a restart
or a delay all end the same way: the next reconcile of the key converges.

What happens after a reconcile is decided in exactly one place, :meth:`Controller._process`:

=================================  =========================================================
the reconcile ...                  the key ...
=================================  =========================================================
returns ``Result()`` / None        is forgotten (its backoff reset)
returns ``Result(requeue_after)``  is forgotten and queued again after that many seconds
returns ``Result(requeue=True)``   is queued again with the rate limiter's backoff
raises a conflict (409)            is queued again at once (someone wrote first; the next
                                   reconcile reads their version), up to five times in a
                                   row, then with the rate limiter's backoff
raises not found (404)             is forgotten: the object (or its owner) is gone, and its
                                   deletion event brings whatever follows
raises anything else               is queued again with the rate limiter's backoff
=================================  =========================================================

All waiting happens on the injected clock, so tests drive backoffs with a ``FakeClock``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from prometheus_client import CollectorRegistry
from prometheus_client.registry import Collector

from fakeapi.client import Informer, WorkQueue, end_tasks, is_conflict, is_not_found
from fakeapi.clock import Clock
from fakeapi.objects import Obj, object_key

__all__ = ["Controller", "ControllerComponent", "Reconciler", "Result"]

log = logging.getLogger("fakeapi.controllers")

#: conflicts in a row that are retried at once before the backoff applies
IMMEDIATE_CONFLICT_RETRIES = 5


@dataclass(frozen=True, slots=True)
class Result:
    """What a successful reconcile asks for: nothing, a backoff retry, or a timed revisit."""

    requeue: bool = False
    requeue_after: float | None = None


class Reconciler(Protocol):
    """Makes the world match the desired state of one key; safe to call again at any time."""

    async def reconcile(self, key: str) -> Result | None: ...


class Controller:
    """A work queue of string keys, ``workers`` tasks draining it into ``reconcile``.

    ``name`` names the queue (and its ``workqueue_*`` metrics in ``metrics``). Keys may be added
    before :meth:`start` (they wait) and are ignored after :meth:`stop`. Collectors handed to
    :meth:`own_metrics` are unregistered from ``metrics`` by :meth:`stop`, so a controller made
    again over the same registry (the manager restarted) can register its metrics again.
    """

    def __init__(
        self,
        *,
        name: str,
        reconcile: Callable[[str], Awaitable[Result | None]],
        clock: Clock,
        workers: int = 1,
        metrics: CollectorRegistry | None = None,
    ) -> None:
        self.name = name
        self._reconcile = reconcile
        self.clock = clock
        self.workers = workers
        self.queue: WorkQueue[str] = _new_queue(name=name, clock=clock, metrics=metrics)
        self.metrics = metrics
        self._owned_metrics: list[Collector] = []
        self._tasks: list[asyncio.Task[None]] = []
        #: reconciles that raised an unexpected error (for tests and logs)
        self.errors = 0

    # --- adding keys -----------------------------------------------------------------------
    def enqueue(self, key: str) -> None:
        self.queue.add(key)

    def enqueue_after(self, key: str, delay: float) -> None:
        self.queue.add_after(key, delay)

    def watch(
        self,
        informer: Informer,
        *,
        key: Callable[[Obj], str | None] = object_key,
        on_delete: bool = True,
    ) -> None:
        """Queue ``key(obj)`` for every add, update (the new object) and — unless
        ``on_delete=False`` — delete on ``informer``; a key of None is skipped.

        The usual handler set of a controller whose keys are its objects' own; controllers
        that fan out (a claim change queues pods) register their own handlers."""

        def enqueue(obj: Obj) -> None:
            k = key(obj)
            if k is not None:
                self.enqueue(k)

        informer.add_handler(
            on_add=enqueue,
            on_update=lambda _old, new: enqueue(new),
            on_delete=enqueue if on_delete else None,
        )

    def own_metrics(self, *collectors: Collector) -> None:
        """Collectors the caller registered in ``metrics``, to unregister on :meth:`stop`."""
        self._owned_metrics.extend(collectors)

    # --- running -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return any(not task.done() for task in self._tasks)

    def start(self) -> None:
        if self._tasks:
            return
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._worker(), name=f"{self.name} worker {i}")
            for i in range(self.workers)
        ]

    async def stop(self) -> None:
        """Stop taking keys, let reconciles in progress finish, then end the workers; unregister
        the owned metrics."""
        self.queue.shutdown()
        owned, self._owned_metrics = self._owned_metrics, []
        if self.metrics is not None:
            for collector in owned:
                self.metrics.unregister(collector)
        tasks, self._tasks = self._tasks, []
        await end_tasks(tasks, grace=5.0)

    async def _worker(self) -> None:
        while (key := await self.queue.get()) is not None:
            try:
                await self._process(key)
            finally:
                self.queue.done(key)

    async def _process(self, key: str) -> None:
        """The one retry switch (see the module docstring)."""
        try:
            result = await self._reconcile(key)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_not_found(exc):
                log.debug("%s %s: %s", self.name, key, exc)
                self.queue.forget(key)
            elif is_conflict(exc):
                log.debug("%s %s: conflict, requeued: %s", self.name, key, exc)
                self._requeue_after_conflict(key)
            else:
                self.errors += 1
                log.warning("%s %s: %r; retrying", self.name, key, exc, exc_info=exc)
                self.queue.add_rate_limited(key)
            return
        if result is None or (not result.requeue and result.requeue_after is None):
            self.queue.forget(key)
        elif result.requeue_after is not None:
            self.queue.forget(key)
            self.queue.add_after(key, result.requeue_after)
        else:
            self.queue.add_rate_limited(key)

    def _requeue_after_conflict(self, key: str) -> None:
        """Someone wrote first: read their version and try again now. Counted like any
        failure, so a key that keeps conflicting falls back to the rate limiter's backoff."""
        delay = self.queue.rate_limiter.when(key)
        if self.queue.num_requeues(key) <= IMMEDIATE_CONFLICT_RETRIES:
            self.queue.add(key)
        else:
            self.queue.add_after(key, delay)


class ControllerComponent:
    """A controller as the manager runs it: a name, the informers it needs synced before it
    starts, and one :class:`Controller` that :meth:`start` and :meth:`stop` run. Controllers
    with more to stop (an event recorder) extend :meth:`stop`."""

    name: str
    informers: list[Informer]
    controller: Controller

    def start(self) -> None:
        self.controller.start()

    async def stop(self) -> None:
        await self.controller.stop()


def _new_queue(*, name: str, clock: Clock, metrics: CollectorRegistry | None) -> WorkQueue[str]:
    return WorkQueue(clock=clock, name=name, metrics=metrics)
