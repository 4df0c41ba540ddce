"""WorkQueue semantics (client-go's rate-limited queue), with time moved by hand.

Every delay runs on a ``FakeClock``; the tests only let the event loop turn (``settle``) and never
wait on the wall clock (``wait_for`` bounds guard against hangs only).
"""

from __future__ import annotations

import asyncio

import pytest

from fakeapi.client import ItemExponentialBackoff, WorkQueue
from fakeapi.clock import FakeClock


async def settle() -> None:
    """Let every ready task run (timers woken by the clock, waiting getters)."""
    for _ in range(10):
        await asyncio.sleep(0)


async def take(queue: WorkQueue[str]) -> str | None:
    return await asyncio.wait_for(queue.get(), 5)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def queue(clock: FakeClock) -> WorkQueue[str]:
    return WorkQueue(clock=clock, name="test")


async def test_keys_are_deduplicated_and_handed_out_in_order(queue: WorkQueue[str]) -> None:
    for key in ("a", "b", "a", "c", "b"):
        queue.add(key)
    assert len(queue) == 3
    assert [await take(queue) for _ in range(3)] == ["a", "b", "c"]
    assert len(queue) == 0
    assert queue.processing == 3


async def test_a_key_added_while_processing_is_requeued_by_done(queue: WorkQueue[str]) -> None:
    queue.add("a")
    assert await take(queue) == "a"
    queue.add("a")
    queue.add("a")
    assert len(queue) == 0  # not handed out twice while a worker holds it
    queue.done("a")
    assert len(queue) == 1
    assert await take(queue) == "a"
    queue.done("a")
    assert len(queue) == 0 and queue.processing == 0


async def test_two_workers_never_hold_the_same_key(queue: WorkQueue[str]) -> None:
    queue.add("a")
    first = await take(queue)
    second = asyncio.create_task(queue.get())
    queue.add("a")
    queue.add("b")
    assert await asyncio.wait_for(second, 5) == "b"
    assert first == "a"
    queue.done("a")
    assert await take(queue) == "a"


async def test_get_waits_for_a_key(queue: WorkQueue[str]) -> None:
    waiting = asyncio.create_task(queue.get())
    await settle()
    assert not waiting.done()
    queue.add("a")
    assert await asyncio.wait_for(waiting, 5) == "a"


async def test_a_cancelled_get_does_not_swallow_a_key(queue: WorkQueue[str]) -> None:
    cancelled = asyncio.create_task(queue.get())
    other = asyncio.create_task(queue.get())
    await settle()
    queue.add("a")  # wakes the first getter ...
    cancelled.cancel()  # ... which is cancelled before it runs
    assert await asyncio.wait_for(other, 5) == "a"


async def test_add_after_waits_for_the_clock(queue: WorkQueue[str], clock: FakeClock) -> None:
    queue.add_after("a", 10)
    queue.add_after("b", 0)
    await settle()
    assert await take(queue) == "b"
    assert queue.waiting == 1
    clock.advance(9.9)
    await settle()
    assert len(queue) == 0
    clock.advance(0.1)
    await settle()
    assert len(queue) == 1 and queue.waiting == 0
    assert await take(queue) == "a"


async def test_add_after_counts_time_that_passed_before_the_timer_ran(
    queue: WorkQueue[str], clock: FakeClock
) -> None:
    queue.add_after("a", 5)
    clock.advance(5)  # before the event loop ever turns
    await settle()
    assert len(queue) == 1


async def test_the_earliest_pending_time_wins(queue: WorkQueue[str], clock: FakeClock) -> None:
    queue.add_after("a", 10)
    queue.add_after("a", 2)
    queue.add_after("a", 5)
    await settle()
    clock.advance(2)
    await settle()
    assert len(queue) == 1
    assert await take(queue) == "a"
    queue.done("a")
    clock.advance(20)
    await settle()
    assert len(queue) == 0  # the superseded timers do not add it again


def test_item_backoff_doubles_from_5ms_up_to_1000s() -> None:
    backoff = ItemExponentialBackoff()
    delays = [backoff.when("k") for _ in range(20)]
    assert delays[:4] == [0.005, 0.01, 0.02, 0.04]
    assert delays[-1] == 1000.0
    assert max(delays) == 1000.0
    assert backoff.num_requeues("k") == 20
    assert backoff.when("other") == 0.005
    backoff.forget("k")
    assert backoff.num_requeues("k") == 0
    assert backoff.when("k") == 0.005
    for _ in range(100):
        assert backoff.when("many") <= 1000.0


async def test_add_rate_limited_backs_off_per_key_until_forgotten(
    queue: WorkQueue[str], clock: FakeClock
) -> None:
    for expected in (0.005, 0.01, 0.02):
        queue.add_rate_limited("a")
        await settle()
        clock.advance(expected / 2)
        await settle()
        assert len(queue) == 0
        clock.advance(expected / 2)
        await settle()
        assert await take(queue) == "a"
        queue.done("a")
    assert queue.num_requeues("a") == 3
    queue.forget("a")
    assert queue.num_requeues("a") == 0
    queue.add_rate_limited("a")
    await settle()
    clock.advance(0.005)
    await settle()
    assert len(queue) == 1


async def test_shutdown_drains_queued_keys_then_returns_none(
    queue: WorkQueue[str], clock: FakeClock
) -> None:
    queue.add("a")
    queue.add_after("later", 1)
    await settle()
    queue.shutdown()
    assert queue.shutting_down
    queue.add("b")  # ignored
    assert await take(queue) == "a"
    assert await take(queue) is None
    clock.advance(5)
    await settle()
    assert len(queue) == 0 and queue.waiting == 0


async def test_shutdown_wakes_every_waiting_worker(queue: WorkQueue[str]) -> None:
    workers = [asyncio.create_task(queue.get()) for _ in range(3)]
    await settle()
    queue.shutdown()
    assert await asyncio.wait_for(asyncio.gather(*workers), 5) == [None, None, None]


async def test_a_worker_loop_retries_failures_with_backoff(
    queue: WorkQueue[str], clock: FakeClock
) -> None:
    attempts: list[str] = []

    async def reconcile(key: str) -> None:
        attempts.append(key)
        if len(attempts) < 3:
            raise RuntimeError("not yet")

    async def worker() -> None:
        while (key := await queue.get()) is not None:
            try:
                await reconcile(key)
            except RuntimeError:
                queue.add_rate_limited(key)
            else:
                queue.forget(key)
            finally:
                queue.done(key)

    running = asyncio.create_task(worker())
    queue.add("a")
    await settle()
    assert attempts == ["a"]
    clock.advance(0.005)
    await settle()
    assert attempts == ["a", "a"]
    clock.advance(0.01)
    await settle()
    assert attempts == ["a", "a", "a"]
    assert queue.num_requeues("a") == 0
    queue.shutdown()
    await asyncio.wait_for(running, 5)
