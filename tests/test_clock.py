"""A FakeClock sleep counts from when it is called, as real time would.

``asyncio.ensure_future(clock.sleep(t))`` starts the sleep a loop iteration later; a test that
advances the clock in between (the scheduler's binding wait, its Permit timeout and the in-process
watch timeout all start their timers so) must still wake it. Counting from the first step instead
left such a timer asleep for ever: the binding-timeout test of the scheduler hung on a loaded
machine when the test's advance ran before the timer's first step.
"""

from __future__ import annotations

import asyncio

from fakeapi.clock import FakeClock


async def _let_the_loop_run() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_an_advance_before_a_sleeps_first_step_counts_towards_it():
    clock = FakeClock()
    timer = asyncio.ensure_future(clock.sleep(600))
    clock.advance(601)  # before the timer's coroutine has run at all
    await _let_the_loop_run()
    assert timer.done()


async def test_a_sleep_wakes_when_its_time_is_reached_and_not_before():
    clock = FakeClock()
    timer = asyncio.ensure_future(clock.sleep(10))
    await _let_the_loop_run()
    clock.advance(9.5)
    await _let_the_loop_run()
    assert not timer.done()
    clock.advance(0.5)
    await _let_the_loop_run()
    assert timer.done()
