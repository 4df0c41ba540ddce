"""Your own components inside the cluster: ``Cluster(extra_components=[factory, ...])``.

A factory is called with the component's :class:`~fakeapi.cluster.components.ComponentContext`
— the same the built-in components get: its own in-process client writing as its name, the
shared informers, the clock, a random source seeded from the cluster's seed, an event recorder,
a logger and ``spawn`` for its tasks — and returns the component: an object with ``async
start()`` and ``async stop()``. The assembler starts user components after the built-in ones
(in the order given) and stops them before, so a controller written by a user sees a whole
cluster from its first reconcile to its last.

:class:`ExtraComponent` is how the assembler holds one. A failure to make, start or stop it is
recorded for the test's failure report and raised with a note naming the component (a failed
stop once the whole cluster has stopped); failures while it runs are recorded by its supervisor.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from fakeapi.cluster.components import Component, ComponentContext

__all__ = ["ComponentFactory", "ExtraComponent"]

#: makes a user's component from its context
ComponentFactory = Callable[[ComponentContext], Component]


def _check_component(name: str, component: Any) -> Component:
    for method in ("start", "stop"):
        if not inspect.iscoroutinefunction(getattr(component, method, None)):
            raise TypeError(
                f"component {name!r}: its factory returned {type(component).__name__}, which "
                f"has no async {method}()"
            )
    return component  # type: ignore[no-any-return]


class ExtraComponent:
    """A user's component as the assembler runs it (see the module docstring)."""

    def __init__(self, name: str, factory: ComponentFactory, context: ComponentContext) -> None:
        self.name = name
        self.context = context
        self._factory = factory
        #: what the factory made (None until started)
        self.component: Component | None = None

    async def start(self) -> None:
        try:
            self.component = _check_component(self.name, self._factory(self.context))
            await self.component.start()
        except Exception as exc:
            self.context.supervisor.record(f"failed to start: {exc!r}", exc)
            exc.add_note(f"while starting component {self.name!r}")
            raise

    async def stop(self) -> None:
        try:
            if self.component is not None:
                await self.component.stop()
        except Exception as exc:
            self.context.supervisor.record(f"failed to stop: {exc!r}", exc)
            exc.add_note(f"while stopping component {self.name!r}")
            raise
        finally:
            await self.context.supervisor.close()
