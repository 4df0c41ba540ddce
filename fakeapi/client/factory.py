"""Shared informers: one list + watch per resource and selector, however many components ask.

The scheduler, several controllers and every simulated kubelet want to know about pods, claims
and slices. Each asking for its own informer would multiply the watches and the memory of every
cache; client-go's ``SharedInformerFactory`` hands them all the same one, and so does
:class:`InformerFactory`. An informer is identified by (resource, namespace, label selector,
field selector): two components asking for the same get the same object and add their own
handlers and indexes to it (index names are shared, so name them by what they index).

Lifecycle, as a component uses it::

    pods = informers.informer(PODS)            # in __init__ or start(): ask for what you need
    pods.add_handler(on_add=..., on_update=..., on_delete=...)
    informers.start()                          # idempotent; later informers start on request
    await informers.wait_for_sync(pods, timeout=30)

The factory also gives **read-your-writes**: it observes its client's writes and puts each written
object into every informer of that resource whose namespace and selectors it matches, before the
watch event arrives (see :meth:`~fakeapi.client.Informer.observe`). Components that write through
the factory's client therefore never reconcile from a cache older than their own last write. A
component with its own client (its own field manager) passes it to :meth:`observe_writes_of`.

Every simulated kubelet has a pod informer for its own node (``spec.nodeName=<node>``), so a
cluster of 500 nodes has 500 pod informers. Routes whose field selector pins a field to a value
are therefore filed under that value: a written pod is checked against its own node's informers
only, not against all 500.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fakeapi.client.client import Client
from fakeapi.client.informer import Informer, Transform
from fakeapi.client.resource import Resource
from fakeapi.clock import Clock, RealClock
from fakeapi.objects import Obj
from fakeapi.selectors import parse_field_selector, parse_label_selector

__all__ = ["InformerFactory", "wait_for_sync"]


async def wait_for_sync(*informers: Informer, timeout: float | None = None) -> None:
    """Wait until every informer has listed once; TimeoutError (real seconds) if they do not."""

    async def all_synced() -> None:
        for informer in informers:
            await informer.wait_synced()

    async with asyncio.timeout(timeout):
        await all_synced()


def _field_value(obj: Obj, path: str) -> str:
    """The string form of the field at a dotted path (``spec.nodeName``), "" when absent."""
    value: object = obj
    for part in path.split("."):
        if not isinstance(value, dict):
            return ""
        value = value.get(part)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@dataclass(frozen=True, slots=True)
class _Key:
    resource: Resource
    namespace: str | None
    label_selector: str
    field_selector: str


class _Route:
    """Decides whether a written object belongs in one informer's cache."""

    __slots__ = ("fields", "informer", "labels", "namespace")

    def __init__(self, informer: Informer) -> None:
        self.informer = informer
        self.namespace = informer.namespace
        self.labels = parse_label_selector(informer.label_selector)
        self.fields = parse_field_selector(informer.field_selector)

    def matches(self, obj: Obj) -> bool:
        meta = obj.get("metadata") or {}
        if self.namespace is not None and meta.get("namespace") != self.namespace:
            return False
        if not self.labels.matches(meta.get("labels") or {}):
            return False
        if self.fields.empty:
            return True
        return self.fields.matches({f: _field_value(obj, f) for f in self.fields.fields})


class _Routes:
    """The routes of one resource: filed by a pinned field's value, or checked for every write."""

    __slots__ = ("by_value", "unfiled")

    def __init__(self) -> None:
        self.unfiled: list[_Route] = []
        #: field path -> pinned value -> routes
        self.by_value: dict[str, dict[str, list[_Route]]] = {}

    def add(self, route: _Route) -> None:
        for field, op, value in route.fields.requirements:
            if op == "=":
                self.by_value.setdefault(field, {}).setdefault(value, []).append(route)
                return
        self.unfiled.append(route)

    def candidates(self, obj: Obj) -> list[_Route]:
        """The routes that may match ``obj`` (each still checks its whole selection)."""
        found = list(self.unfiled)
        for field, routes in self.by_value.items():
            found.extend(routes.get(_field_value(obj, field), ()))
        return found


class InformerFactory:
    """Hands out shared :class:`Informer` s and starts, syncs and stops them together."""

    def __init__(
        self, client: Client, *, clock: Clock | None = None, transform: Transform | None = None
    ) -> None:
        self.client = client
        self.clock: Clock = clock or RealClock()
        #: applied by every informer of the factory (see :class:`Informer`)
        self.transform = transform
        self._informers: dict[_Key, Informer] = {}
        self._routes: dict[Resource, _Routes] = {}
        self._started = False
        self.observe_writes_of(client)

    def informer(
        self,
        resource: Resource,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Informer:
        """The shared informer for ``resource`` (in ``namespace``, or all) and these selectors.

        Created on first request; started at once if the factory already runs.
        """
        key = _Key(
            resource, namespace if resource.namespaced else None, label_selector, field_selector
        )
        informer = self._informers.get(key)
        if informer is None:
            informer = Informer(
                self.client,
                resource,
                namespace=key.namespace,
                label_selector=label_selector,
                field_selector=field_selector,
                clock=self.clock,
                transform=self.transform,
            )
            self._informers[key] = informer
            routes = self._routes.get(resource)
            if routes is None:
                routes = self._routes[resource] = _Routes()
            routes.add(_Route(informer))
            if self._started:
                informer.start()
        return informer

    @property
    def informers(self) -> list[Informer]:
        return list(self._informers.values())

    def observe_writes_of(self, client: Client) -> None:
        """Feed the objects ``client`` writes into the matching informers (read-your-writes)."""
        client.add_write_observer(self._written)

    def _written(self, resource: Resource, obj: Obj, deleted: bool) -> None:
        routes = self._routes.get(resource)
        if routes is None:
            return
        for route in routes.candidates(obj):
            if route.matches(obj):
                if deleted:
                    route.informer.observe_deleted(obj)
                else:
                    route.informer.observe(obj)

    def start(self) -> None:
        """Start every informer asked for so far, and any asked for later. Idempotent."""
        self._started = True
        for informer in self._informers.values():
            informer.start()

    async def wait_for_sync(self, *informers: Informer, timeout: float | None = None) -> None:
        """Wait for ``informers`` (every informer of the factory when none are named)."""
        await wait_for_sync(*(informers or tuple(self._informers.values())), timeout=timeout)

    async def stop(self) -> None:
        """Stop every informer; the caches keep their content and :meth:`start` resumes them
        from the last resourceVersion each saw."""
        self._started = False
        await asyncio.gather(*(informer.stop() for informer in self._informers.values()))
