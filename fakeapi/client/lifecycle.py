"""Ending a component's background tasks: the one stop step every component spells the same way.

A component (controller workers, a kubelet's loops, a driver's publisher) owns asyncio tasks it
started; its ``stop()`` must leave none running, or a test's event loop closes over live tasks.
Cancelling is not enough — a cancelled task still has to be awaited to have ended — and awaiting
it raises the :class:`asyncio.CancelledError` that was asked for. :func:`end_tasks` does both,
optionally after a grace period in which the tasks may finish what they are doing (a worker
in the middle of a reconcile, after its queue was shut down).

The grace period is measured on the event loop's clock, not on an injected
:class:`~fakeapi.clock.Clock`: it bounds how long a stop may hang in real time, whatever a
``FakeClock`` says.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection
from typing import Any

__all__ = ["end_tasks"]


async def end_tasks(tasks: Collection[asyncio.Task[Any]], *, grace: float = 0.0) -> None:
    """Wait up to ``grace`` seconds for ``tasks`` to finish by themselves, cancel those still
    running, and return once every one of them has ended.

    The cancellations asked for are not re-raised. The tasks cancelled are awaited, so one
    that had already failed raises its exception here; a task that finished within the grace
    period is not awaited."""
    if not tasks:
        return
    pending: Collection[asyncio.Task[Any]] = tasks
    if grace > 0:
        _done, pending = await asyncio.wait(tasks, timeout=grace)
    for task in pending:
        task.cancel()
    for task in pending:
        with contextlib.suppress(asyncio.CancelledError):
            await task
