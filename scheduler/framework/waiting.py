"""Pods held at Permit, and the handle plugins use to let them go or turn them back.

A Permit plugin that answers WAIT names a timeout; the pod's binding cycle then awaits
:meth:`WaitingPod.wait`. The pod proceeds once every waiting plugin has called :meth:`allow`, is
rejected when any calls :meth:`reject`, and is rejected with ``rejected due to timeout after
waiting <d> at plugin <p>`` (upstream's wording) when the earliest timeout passes on the
injected clock first.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from fakeapi.clock import Clock
from fakeapi.objects import Obj
from fakeapi.scheduler.framework.status import Code, Status
from fakeapi.timefmt import go_duration

__all__ = ["WaitingPod", "go_duration"]


class WaitingPod:
    def __init__(self, *, pod: Obj, timeouts: Mapping[str, float]) -> None:
        self.pod = pod
        self.uid: str = (pod.get("metadata") or {}).get("uid", "")
        self.pending: dict[str, float] = dict(timeouts)
        self._result: asyncio.Future[Status | None] = asyncio.get_running_loop().create_future()

    def allow(self, plugin: str) -> None:
        self.pending.pop(plugin, None)
        if not self.pending and not self._result.done():
            self._result.set_result(None)

    def reject(self, plugin: str, message: str) -> None:
        if not self._result.done():
            self._result.set_result(Status(Code.UNSCHEDULABLE, (message,), plugin=plugin))

    @property
    def done(self) -> bool:
        return self._result.done()

    async def wait(self, *, clock: Clock) -> Status | None:
        """None when allowed; the rejecting status otherwise (timeouts included)."""
        if not self.pending and not self._result.done():
            self._result.set_result(None)
        if self._result.done():
            return self._result.result()
        plugin, timeout = min(self.pending.items(), key=lambda item: item[1])
        timer: asyncio.Future[None] = asyncio.ensure_future(clock.sleep(timeout))
        waiters: set[asyncio.Future[Any]] = {self._result, timer}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        if not self._result.done():
            self.reject(
                plugin,
                f"rejected due to timeout after waiting {go_duration(timeout)} at plugin {plugin}",
            )
        return self._result.result()
