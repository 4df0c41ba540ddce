"""What the assembler keeps for each component it runs, so that a component's failures are seen.

A component's errors rarely fail the test on the spot: a reconcile that raises in a background
task, a handler that logs and retries, a start that half worked. The test then times out waiting
for something the component never did, and the reason is gone with the cluster. So each
component gets a :class:`ComponentSupervisor` (through its context) that

- runs the tasks it spawns (:meth:`~ComponentSupervisor.spawn`) and records any that dies with
  an exception; they are cancelled when the component stops;
- gives it a logger whose warnings and errors are recorded too (:attr:`~ComponentSupervisor.log`);
- makes its events.k8s.io recorder on first use, reporting as the component.

Recorded errors go to one list per cluster, which the cluster's failure report shows (the
pytest plugin adds it to a failing test's report). Plain slotted classes: this module is on the
path of every cluster start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import traceback
from collections.abc import Callable, Coroutine, MutableMapping
from typing import Any, TypeVar

from fakeapi.client import EventRecorder

__all__ = ["ComponentError", "ComponentSupervisor", "MAX_RECORDED_ERRORS"]

T = TypeVar("T")

#: errors a cluster keeps (the oldest go first); a component failing in a loop fills no memory
MAX_RECORDED_ERRORS = 100
#: traceback lines kept per error: where it was raised, not the whole stack
_TRACEBACK_LINES = 12


def _traceback(exc: BaseException) -> str:
    lines = "".join(traceback.format_exception(exc)).rstrip().splitlines()
    if len(lines) > _TRACEBACK_LINES:
        lines = ["...", *lines[-_TRACEBACK_LINES:]]
    return "\n".join(lines)


class ComponentError:
    """One failure of a component: what failed, and the traceback when there was one."""

    __slots__ = ("component", "details", "message")

    def __init__(self, component: str, message: str, details: str = "") -> None:
        self.component = component
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return f"{self.component}: {self.message}"

    def __repr__(self) -> str:
        return f"ComponentError({self.component!r}, {self.message!r})"


class _RecordingLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """The component's logger; what it logs at WARNING or above is also recorded."""

    def __init__(self, logger: logging.Logger, supervisor: ComponentSupervisor) -> None:
        super().__init__(logger, {})
        self._supervisor = supervisor

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        if level >= logging.WARNING:
            text = str(msg) % args if args else str(msg)
            exc_info = kwargs.get("exc_info")
            exc: BaseException | None = None
            if isinstance(exc_info, BaseException):
                exc = exc_info
            elif exc_info:
                exc = sys.exc_info()[1]
            self._supervisor.record(text, exc)
        super().log(level, msg, *args, **kwargs)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, Any]:
        return msg, kwargs


class ComponentSupervisor:
    """The tasks, errors, logger and event recorder of one running component (see the module
    docstring)."""

    def __init__(
        self,
        *,
        component: str,
        errors: list[ComponentError],
        make_recorder: Callable[[], EventRecorder],
    ) -> None:
        self.component = component
        self._errors = errors
        self._make_recorder = make_recorder
        self._recorder: EventRecorder | None = None
        self._log: logging.LoggerAdapter | None = None  # type: ignore[type-arg]
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def recorder(self) -> EventRecorder:
        """An events.k8s.io recorder reporting as the component, made on first use."""
        if self._recorder is None:
            self._recorder = self._make_recorder()
        return self._recorder

    @property
    def log(self) -> logging.LoggerAdapter:  # type: ignore[type-arg]
        """``fakeapi.components.<name>``; warnings and errors also go to the failure report."""
        if self._log is None:
            logger = logging.getLogger(f"fakeapi.components.{self.component}")
            self._log = _RecordingLog(logger, self)
        return self._log

    def record(self, message: str, exc: BaseException | None = None) -> None:
        """Note a failure of the component for the report."""
        details = _traceback(exc) if exc is not None else ""
        self._errors.append(ComponentError(self.component, message, details))
        del self._errors[:-MAX_RECORDED_ERRORS]

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run ``coro`` as a task of the component: cancelled when it stops, and recorded (and
        logged) if it ends with an exception."""
        task_name = f"{self.component} {name}" if name else self.component
        task = asyncio.get_running_loop().create_task(coro, name=task_name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.log.error("task %s failed: %r", task.get_name(), exc, exc_info=exc)

    async def close(self) -> None:
        """Cancel the component's tasks and close its recorder (after its own stop)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._recorder is not None:
            await self._recorder.close()
