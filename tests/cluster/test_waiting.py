"""fakeapi.cluster.eventually: wait by letting the loop run, or by moving a fake clock."""

from __future__ import annotations

import asyncio

import pytest

from fakeapi.clock import FakeClock, RealClock
from fakeapi.cluster import eventually
from fakeapi.cluster.waiting import advance, settle


async def test_eventually_returns_what_the_check_returned_once_it_is_truthy() -> None:
    seen: list[str] = []

    async def write_later() -> None:
        await asyncio.sleep(0)
        seen.append("written")

    task = asyncio.create_task(write_later())
    assert await eventually(lambda: list(seen)) == ["written"]

    async def first() -> str | None:
        return seen[0] if seen else None

    assert await eventually(first) == "written"
    await task


async def test_eventually_moves_a_fake_clock_in_steps_until_the_condition_holds() -> None:
    clock = FakeClock()
    woke: list[float] = []

    async def sleeper() -> None:
        await clock.sleep(5)
        woke.append(clock.monotonic())

    task = asyncio.create_task(sleeper())
    await eventually(lambda: woke, clock=clock, step=1.0, timeout=60)
    assert woke == [5.0]
    assert clock.monotonic() == 5.0  # no further than needed
    await task


async def test_without_a_step_eventually_leaves_the_clock_alone() -> None:
    clock = FakeClock()
    with pytest.raises(TimeoutError):
        await eventually(lambda: clock.monotonic() > 0, timeout=0.01)
    assert clock.monotonic() == 0.0


async def test_the_timeout_message_says_what_was_awaited_and_what_the_check_returned() -> None:
    pods: list[str] = []
    with pytest.raises(TimeoutError) as lambda_error:
        await eventually(lambda: "web" in pods, timeout=0.01)
    assert str(lambda_error.value) == (
        'timed out after 0.01s waiting for lambda: "web" in pods; the check last returned False'
    )

    async def pod_running() -> list[str]:
        return pods

    with pytest.raises(TimeoutError, match=r"after 2s of clock time waiting for pod_running; "
                                           r"the check last returned \[\]"):
        await eventually(pod_running, clock=FakeClock(), step=0.5, timeout=2)

    with pytest.raises(TimeoutError, match="waiting for the web pod to run"):
        await eventually(pod_running, what="the web pod to run", timeout=0.01)


async def test_only_a_fake_clock_can_be_stepped() -> None:
    with pytest.raises(TypeError, match="only a FakeClock can be moved, not RealClock"):
        await eventually(lambda: True, clock=RealClock(), step=1)
    with pytest.raises(TypeError, match="only a FakeClock can be moved"):
        await eventually(lambda: True, step=1)
    with pytest.raises(ValueError, match="step must be positive"):
        await eventually(lambda: True, clock=FakeClock(), step=0)


async def test_advance_moves_in_steps_and_lets_each_woken_task_run() -> None:
    clock = FakeClock()
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            await clock.sleep(1)
            ticks.append(clock.monotonic())

    task = asyncio.create_task(ticker())
    await settle()
    await advance(clock, 3, step=1)
    assert ticks == [1.0, 2.0, 3.0]
    await advance(clock, 3)  # one move: the ticker wakes once
    assert ticks == [1.0, 2.0, 3.0, 6.0]
    task.cancel()
