"""Injected time: everything that waits or stamps a time asks a :class:`Clock`.

Tests and the sandbox pass a :class:`FakeClock` and decide when time moves; production code uses
:class:`RealClock`. Nothing in fakeapi, the controllers, the scheduler or the kubelets reads the
wall clock directly.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

__all__ = ["Clock", "RealClock", "FakeClock"]


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""

    def monotonic(self) -> float:
        """Seconds on a monotonic scale, for measuring intervals."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time."""


class RealClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class FakeClock:
    """A clock that moves only when told; sleepers wake when :meth:`advance` passes their time."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._elapsed = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._elapsed

    def sleep(self, seconds: float) -> Coroutine[Any, Any, None]:
        """Wait until ``seconds`` after the call. The wake-up time is fixed when ``sleep`` is
        called, not when the coroutine first runs: a timer started with
        ``ensure_future(clock.sleep(t))`` first runs a loop iteration later, and an
        :meth:`advance` in between must count towards it, as real time would."""
        return self._sleep_until(self._elapsed + seconds)

    async def _sleep_until(self, deadline: float) -> None:
        if deadline <= self._elapsed:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (deadline, next(self._seq), future))
        await future

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every sleeper whose deadline has passed."""
        self._elapsed += seconds
        self._now += timedelta(seconds=seconds)
        while self._sleepers and self._sleepers[0][0] <= self._elapsed:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    @property
    def sleepers(self) -> int:
        return sum(1 for _, _, f in self._sleepers if not f.done())
