"""The admission chain the registry runs on every create and update, before the strategy.

As kube-apiserver builds its chain and hands it to the generic registry, the chain is built where
the server is assembled (:func:`fakeapi.bootstrap.new_registry`) and passed to the store, which
runs it on creates and on updates of the resource itself; a ``status`` write or a delete is
admitted only by the plugins that look at every write (NodeRestriction), and costs nothing when
there are none. A plugin that names the resources it may handle is not asked about others, so a
write that no plugin can handle (a ResourceClaim, an Event, without NodeRestriction) costs
nothing either: no attributes are built.
Upstream's default plugin order puts ``Priority`` before ``DefaultTolerationSeconds``; the chain
keeps that order, and ``PodGroupProtection`` (which only touches PodGroups) follows them.
``ServiceAllocation`` stands in for the allocators of upstream's Service storage (virtual IPs,
node ports), which need to see the other Services as these plugins do.
:class:`RegistryReader` gives plugins read access to stored objects through the registry's own
resource table, so a plugin reads the same objects a ``GET`` would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fakeapi.auth.user import UserInfo
from fakeapi.objects import Obj
from fakeapi.registry.admission.default_toleration_seconds import DefaultTolerationSeconds
from fakeapi.registry.admission.interface import AdmissionPlugin, Attributes, Operation
from fakeapi.registry.admission.node_restriction import NodeRestriction
from fakeapi.registry.admission.podgroup_protection import PodGroupProtection
from fakeapi.registry.admission.priority import Priority
from fakeapi.registry.admission.service_allocation import ServiceAllocation

if TYPE_CHECKING:
    from fakeapi.registry.resource_table import ResourceTable, ResourceType
    from fakeapi.storage.interface import Storage

__all__ = ["AdmissionChain", "RegistryReader", "default_admission"]


class RegistryReader:
    """Reads cluster-scoped objects from storage through a resource table."""

    def __init__(self, *, resources: ResourceTable, storage: Storage) -> None:
        self._resources = resources
        self._storage = storage

    def list_objects(self, *, group: str, version: str, resource: str) -> list[Obj]:
        rt = self._resources.lookup(group, version, resource)
        if rt is None:
            return []
        return [stored.obj for stored in rt.store(self._storage).scan("", None, None)]


class AdmissionChain:
    """Runs each plugin that handles a write, in order; the first refusal ends the write."""

    def __init__(self, plugins: Sequence[AdmissionPlugin]) -> None:
        self.plugins = tuple(plugins)
        #: the plugins that see status writes and deletes too (none: those writes cost nothing)
        self._every_write = tuple(p for p in self.plugins if getattr(p, "every_write", False))
        #: (group, plural) -> the plugins (all, every-write) that may handle its writes
        self._candidates: dict[
            tuple[str, str], tuple[tuple[AdmissionPlugin, ...], tuple[AdmissionPlugin, ...]]
        ] = {}

    def _for(
        self, group: str, resource: str
    ) -> tuple[tuple[AdmissionPlugin, ...], tuple[AdmissionPlugin, ...]]:
        """The plugins that may handle writes of ``group``/``resource``, and those of them
        that see every write (what a plugin names as its ``resources`` never changes)."""
        found = self._candidates.get((group, resource))
        if found is None:
            def may_handle(plugin: Any) -> bool:
                names = getattr(plugin, "resources", None)
                return names is None or (group, resource) in names

            found = self._candidates[(group, resource)] = (
                tuple(p for p in self.plugins if may_handle(p)),
                tuple(p for p in self._every_write if may_handle(p)),
            )
        return found

    def admit(
        self,
        rt: ResourceType,
        obj: Obj,
        *,
        operation: Operation,
        old: Obj | None = None,
        subresource: str = "",
        namespace: str | None = None,
        dry_run: bool = False,
        name: str = "",
        user: UserInfo | None = None,
    ) -> None:
        """Let every plugin that handles this write change ``obj`` or raise a ``StatusError``."""
        plugins = self._for(rt.group, rt.plural)[0]
        if plugins:
            self._run(plugins, _attributes(
                rt, obj, operation=operation, old=old, subresource=subresource,
                namespace=namespace, dry_run=dry_run, name=name, user=user,
            ))

    def admit_every_write(
        self,
        rt: ResourceType,
        obj: Obj,
        *,
        operation: Operation,
        old: Obj | None = None,
        subresource: str = "",
        namespace: str | None = None,
        dry_run: bool = False,
        name: str = "",
        user: UserInfo | None = None,
    ) -> None:
        """A status write or a delete (``obj`` the stored object), for the plugins that look at
        every write; nothing at all when there are none."""
        plugins = self._for(rt.group, rt.plural)[1] if self._every_write else ()
        if plugins:
            self._run(plugins, _attributes(
                rt, obj, operation=operation, old=old, subresource=subresource,
                namespace=namespace, dry_run=dry_run, name=name, user=user,
            ))

    @staticmethod
    def _run(plugins: Sequence[AdmissionPlugin], attrs: Attributes) -> None:
        for plugin in plugins:
            if plugin.handles(attrs):
                plugin.admit(attrs)


def default_admission(
    *, resources: ResourceTable, storage: Storage, node_restriction: bool = False
) -> AdmissionChain:
    """The plugins upstream enables by default that change what DRA users see, in its order;
    ``node_restriction`` puts NodeRestriction first, as a cluster authorizing nodes has it."""
    reader = RegistryReader(resources=resources, storage=storage)
    restriction: list[AdmissionPlugin] = [NodeRestriction()] if node_restriction else []
    return AdmissionChain([
        *restriction,
        Priority(reader=reader),
        DefaultTolerationSeconds(),
        PodGroupProtection(),
        ServiceAllocation(reader=reader),
    ])


def _attributes(
    rt: ResourceType,
    obj: Obj,
    *,
    operation: Operation,
    old: Obj | None,
    subresource: str,
    namespace: str | None,
    dry_run: bool,
    name: str,
    user: UserInfo | None,
) -> Attributes:
    return Attributes(
        group=rt.group, resource=rt.plural, kind=rt.kind, operation=operation, obj=obj, old=old,
        subresource=subresource, namespace=namespace, dry_run=dry_run, name=name or "Unknown",
        user=user,
    )
