"""end_tasks: a component's background tasks have all ended when its stop() returns."""

from __future__ import annotations

import asyncio

import pytest

from fakeapi.client import end_tasks


async def _forever() -> None:
    await asyncio.Event().wait()


async def test_running_tasks_are_cancelled_and_have_ended_on_return() -> None:
    tasks = [asyncio.create_task(_forever()) for _ in range(3)]
    await asyncio.sleep(0)
    await end_tasks(tasks)
    assert all(task.done() and task.cancelled() for task in tasks)


async def test_the_grace_period_lets_a_task_finish_by_itself() -> None:
    release = asyncio.Event()
    finished: list[str] = []

    async def finishing() -> None:
        await release.wait()
        finished.append("done")

    task = asyncio.create_task(finishing())
    asyncio.get_running_loop().call_soon(release.set)
    await end_tasks([task], grace=5.0)
    assert finished == ["done"]
    assert not task.cancelled()


async def test_a_task_still_running_after_the_grace_period_is_cancelled() -> None:
    task = asyncio.create_task(_forever())
    await end_tasks([task], grace=0.01)
    assert task.cancelled()


async def test_a_task_that_had_failed_raises_its_error() -> None:
    async def failing() -> None:
        raise RuntimeError("broken loop")

    task = asyncio.create_task(failing())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="broken loop"):
        await end_tasks([task])


async def test_no_tasks_is_nothing_to_do() -> None:
    await end_tasks([])
    await end_tasks([], grace=5.0)
