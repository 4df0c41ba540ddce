"""The garbage collector: owner references, cascading deletion and the orphan finalizer.

Upstream's collector keeps a graph of every object's owners; here the graph is two indexes on
the shared informers — objects by uid and objects by the uids they name as owners — so looking
up "the dependents of X" or "the object with uid U" is a dictionary lookup, and the graph is
rebuilt for free by every informer list. Keys are ``<qualified plural>|<ns>/<name>``.

A reconcile of one object, from current state:

- **Deleting with ``orphan``** (``propagationPolicy: Orphan``): remove the owner reference to it
  from every dependent, then remove the finalizer.
- **Deleting with ``foregroundDeletion``**: queue every dependent (they see their owner
  "waiting for dependents" and delete themselves); once no dependent with
  ``blockOwnerDeletion: true`` on its reference to this owner remains, remove the finalizer and
  the apiserver removes the object.
- **Has owner references**: sort the owners into *solid* (exist with the same uid and are not
  waiting for dependents), *dangling* (gone, or another uid under the name — confirmed with a
  live GET, since a lagging cache must not delete anything) and *waiting* (deleting in the
  foreground). With a solid owner the dangling and waiting references are removed and the
  object stays; without one it is deleted (uid precondition), in the foreground if it has
  dependents of its own and an owner waits for it (its references are made non-blocking first
  only when one of those dependents is itself deleting in the foreground: a cycle, as
  upstream's check), otherwise with the policy its own ``orphan``/``foregroundDeletion``
  finalizer asks for, else in the background.
- **Owner in the wrong namespace.** A namespaced owner must be in the dependent's namespace:
  when the owner's uid is found in another namespace the dependent gets a Warning
  ``OwnerRefInvalidNamespace``; a cluster-scoped object naming a namespaced owner is never
  deleted (upstream forgets it), a namespaced one finds its owner absent.

Owners of kinds this cluster does not serve are treated as solid: nothing is deleted on a guess.
Background deletion needs nothing special: the owner simply disappears, and its dependents,
queued by the deletion event, find their owner dangling.

Custom resources join the graph while the collector runs, as upstream's collector adds monitors
for the kinds discovery shows: an established CustomResourceDefinition gets an informer of its
kind (indexed and handled as the built-in ones), and once it has listed, every object naming
an owner of that kind is looked at again (one looked at before may have found an owner that went
unseen). When the definition goes, its informer stops, an owner of that kind is dangling from
then on (its kind is not served, so it cannot exist), and the objects naming one are queued.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    ALL_RESOURCES,
    CUSTOM_RESOURCE_DEFINITIONS,
    EVENTS,
    Client,
    Informer,
    InformerFactory,
    LegacyEventRecorder,
    Preconditions,
    PropagationPolicy,
    Resource,
    is_not_found,
)
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import OWNER_UID_INDEX, ensure_index
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, as_list, meta, object_key, owner_uids, text
from fakeapi.rules.definitions import served_kind

__all__ = ["COLLECTED_RESOURCES", "GarbageCollector"]

log = logging.getLogger("fakeapi.controllers.garbage_collector")

#: every served kind whose objects may own or depend on others (events are left out, as upstream)
COLLECTED_RESOURCES: tuple[Resource, ...] = tuple(r for r in ALL_RESOURCES if r is not EVENTS)
ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
_UID_INDEX = "garbage-collector/uid"


def _uid(obj: Obj) -> list[str]:
    uid = text(meta(obj).get("uid"))
    return [uid] if uid else []


def _refs(obj: Obj) -> list[dict[str, Any]]:
    return [as_dict(r) for r in as_list(meta(obj).get("ownerReferences"))]


def _finalizers(obj: Obj) -> list[str]:
    return [text(f) for f in as_list(meta(obj).get("finalizers"))]


def _group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


class GarbageCollector(ControllerComponent):
    """Deletes dependents whose owners are gone and runs the foreground and orphan policies."""

    name = "garbage-collector-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        resources: Sequence[Resource] = COLLECTED_RESOURCES,
        workers: int = 4,
    ) -> None:
        self.client = client
        self.events = LegacyEventRecorder(client, component=self.name, clock=clock)
        self.resources = {r.qualified_plural: r for r in resources}
        self.by_kind = {(r.group, r.kind): r for r in resources}
        # the queue first: a handler added to an informer that has already synced is told
        # about every cached object at once
        self.controller = Controller(
            name="garbage_collector_attempt_to_delete",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        self.caches: dict[str, Informer] = {}
        for resource in resources:
            informer = informers.informer(resource)
            ensure_index(informer, _UID_INDEX, _uid)
            ensure_index(informer, OWNER_UID_INDEX, owner_uids)
            self.caches[resource.qualified_plural] = informer
        for plural, informer in self.caches.items():
            self._watch(plural, informer)
        self.informers = list(self.caches.values())
        self._factory = informers
        #: custom kinds (qualified plurals) whose definition is gone
        self._gone: set[str] = set()
        self._rechecks: set[asyncio.Task[None]] = set()
        self._stopping: set[asyncio.Task[None]] = set()
        definitions = self.caches.get(CUSTOM_RESOURCE_DEFINITIONS.qualified_plural)
        if definitions is not None:
            definitions.add_handler(
                on_add=self._follow_definition,
                on_update=lambda _old, new: self._follow_definition(new),
                on_delete=self._forget_definition,
            )

    async def stop(self) -> None:
        await super().stop()
        for task in self._rechecks:
            task.cancel()
        await asyncio.gather(*self._rechecks, *self._stopping, return_exceptions=True)
        await self.events.close()

    # --- custom kinds --------------------------------------------------------------------------
    def _follow_definition(self, definition: Obj) -> None:
        kind = served_kind(definition)
        if kind is None:
            return
        resource = Resource(*kind)
        plural = resource.qualified_plural
        known = self.resources.get(plural)
        if known == resource and plural not in self._gone:
            return
        self._gone.discard(plural)
        self.resources[plural] = resource
        self.by_kind[(resource.group, resource.kind)] = resource
        informer = self.caches.get(plural)
        if informer is not None and informer.resource != resource:
            self._stop_later(informer)  # another version to act through
        if informer is None or informer.resource != resource:
            informer = self._factory.informer(resource)
            ensure_index(informer, _UID_INDEX, _uid)
            ensure_index(informer, OWNER_UID_INDEX, owner_uids)
            self.caches[plural] = informer
            self._watch(plural, informer)
        informer.start()
        self._track(self._recheck_dependents_once_synced(informer, resource))

    async def _recheck_dependents_once_synced(self, informer: Informer, resource: Resource) -> None:
        """Look again at every object owned by an object of a kind just followed: one looked
        at before the informer listed may have found its owner alive, which has gone since
        without the informer ever seeing it."""
        await informer.wait_synced()
        self._enqueue_owned_by(resource)

    def _enqueue_owned_by(self, resource: Resource) -> None:
        """Queue every object that names an owner of ``resource``'s kind."""
        for plural, cache in list(self.caches.items()):
            for obj in cache.list():
                if any(
                    _group_of(text(ref.get("apiVersion"))) == resource.group
                    and ref.get("kind") == resource.kind
                    for ref in _refs(obj)
                ):
                    self.controller.enqueue(f"{plural}|{object_key(obj)}")

    def _forget_definition(self, definition: Obj) -> None:
        spec, names = as_dict(definition.get("spec")), as_dict(
            as_dict(definition.get("status")).get("acceptedNames")
        )
        plural = f"{text(names.get('plural'))}.{text(spec.get('group'))}"
        informer = self.caches.get(plural)
        if informer is None or plural in self._gone or plural not in self.resources:
            return
        self._gone.add(plural)
        self._enqueue_owned_by(self.resources[plural])
        self._stop_later(informer)

    def _stop_later(self, informer: Informer) -> None:
        self._track(informer.stop(), self._stopping)

    def _track(
        self, work: Coroutine[Any, Any, None], tasks: set[asyncio.Task[None]] | None = None
    ) -> None:
        """Run ``work`` beside the handlers; :meth:`stop` waits for the informers it stops
        and cancels the rest."""
        task = asyncio.get_running_loop().create_task(work)
        kept = self._rechecks if tasks is None else tasks
        kept.add(task)
        task.add_done_callback(kept.discard)

    # --- the graph ---------------------------------------------------------------------------
    def _keys_of(self, index: str, uid: str) -> list[str]:
        return [
            f"{plural}|{key}"
            for plural, informer in self.caches.items()
            for key in informer.index_keys(index, uid)
        ]

    def _cached(self, key: str) -> Obj | None:
        plural, _, obj_key = key.partition("|")
        return self.caches[plural].get(obj_key)

    def _enqueue_owners(self, obj: Obj) -> None:
        for uid in owner_uids(obj):
            for key in self._keys_of(_UID_INDEX, uid):
                self.controller.enqueue(key)

    def _enqueue_dependents(self, obj: Obj) -> None:
        for key in self._keys_of(OWNER_UID_INDEX, text(meta(obj).get("uid"))):
            self.controller.enqueue(key)

    # --- event handlers ------------------------------------------------------------------------
    def _interesting(self, obj: Obj) -> bool:
        m = meta(obj)
        return bool(m.get("ownerReferences")) or bool(
            m.get("deletionTimestamp") and {ORPHAN, FOREGROUND} & set(_finalizers(obj))
        )

    def _watch(self, plural: str, informer: Informer) -> None:
        def changed(obj: Obj) -> None:
            if self._interesting(obj):
                self.controller.enqueue(f"{plural}|{object_key(obj)}")

        def added(obj: Obj) -> None:
            changed(obj)
            # dependents decided while this owner was not yet cached look again (as upstream's
            # graph turns a virtual owner node into a real one)
            self._enqueue_dependents(obj)

        def updated(old: Obj, new: Obj) -> None:
            om, nm = meta(old), meta(new)
            refs_changed = om.get("ownerReferences") != nm.get("ownerReferences")
            if (
                refs_changed
                or om.get("deletionTimestamp") != nm.get("deletionTimestamp")
                or om.get("finalizers") != nm.get("finalizers")
            ):
                changed(new)
            if refs_changed:
                self._enqueue_owners(old)  # an owner may be waiting for this one to let go

        def deleted(obj: Obj) -> None:
            self._enqueue_dependents(obj)
            self._enqueue_owners(obj)

        informer.add_handler(on_add=added, on_update=updated, on_delete=deleted)

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        plural, _, obj_key = key.partition("|")
        resource = self.resources.get(plural)
        if resource is None or plural in self._gone:
            return None
        obj = self.caches[plural].get(obj_key)
        if obj is None:
            return None
        finalizers = _finalizers(obj)
        if meta(obj).get("deletionTimestamp"):
            if ORPHAN in finalizers:
                await self._orphan_dependents(resource, obj)
            elif FOREGROUND in finalizers:
                await self._delete_dependents(resource, obj)
            return None
        if _refs(obj):
            await self._attempt_to_delete(resource, obj)
        return None

    async def _patch_meta(self, resource: Resource, obj: Obj, changes: dict[str, Any]) -> None:
        """A merge patch of metadata, conditional on the version we decided from."""
        m = meta(obj)
        patch = {"metadata": {**changes, "resourceVersion": m.get("resourceVersion")}}
        await self.client.patch(
            resource, name=text(m.get("name")), namespace=m.get("namespace"), patch=patch
        )

    async def _orphan_dependents(self, resource: Resource, owner: Obj) -> None:
        uid = text(meta(owner).get("uid"))
        for key in self._keys_of(OWNER_UID_INDEX, uid):
            plural, _, dep_key = key.partition("|")
            dependent = self.caches[plural].get(dep_key)
            if dependent is None:
                continue
            refs = [r for r in _refs(dependent) if r.get("uid") != uid]
            try:
                await self._patch_meta(
                    self.resources[plural], dependent, {"ownerReferences": refs or None}
                )
            except Exception as exc:
                if not is_not_found(exc):
                    raise
        rest = [f for f in _finalizers(owner) if f != ORPHAN]
        await self._patch_meta(resource, owner, {"finalizers": rest or None})

    async def _delete_dependents(self, resource: Resource, owner: Obj) -> None:
        uid = text(meta(owner).get("uid"))
        blocking = 0
        for key in self._keys_of(OWNER_UID_INDEX, uid):
            plural, _, dep_key = key.partition("|")
            dependent = self.caches[plural].get(dep_key)
            if dependent is None:
                continue
            if any(
                r.get("uid") == uid and r.get("blockOwnerDeletion") is True
                for r in _refs(dependent)
            ):
                blocking += 1
            if not meta(dependent).get("deletionTimestamp"):
                self.controller.enqueue(key)
        if blocking == 0:
            rest = [f for f in _finalizers(owner) if f != FOREGROUND]
            await self._patch_meta(resource, owner, {"finalizers": rest or None})

    async def _owner_state(self, dependent: Obj, ref: dict[str, Any]) -> str:
        """``solid``, ``dangling``, ``waiting`` or ``invalid`` (a namespaced owner of a
        cluster-scoped object)."""
        owner_resource = self.by_kind.get(
            (_group_of(text(ref.get("apiVersion"))), text(ref.get("kind")))
        )
        if owner_resource is None:
            return "solid"
        ns = text(meta(dependent).get("namespace")) if owner_resource.namespaced else None
        if owner_resource.namespaced and not ns:
            # a cluster-scoped object cannot have a namespaced owner: never deleted for it
            self._report_invalid_namespace(owner_resource, dependent, ref)
            return "invalid"
        if owner_resource.qualified_plural in self._gone:
            return "dangling"  # a custom kind whose definition is gone: no object of it exists
        name = text(ref.get("name"))
        owner = self.caches[owner_resource.qualified_plural].get(f"{ns}/{name}" if ns else name)
        if owner is None or meta(owner).get("uid") != ref.get("uid"):
            try:
                owner = await self.client.get(owner_resource, name=name, namespace=ns)
            except Exception as exc:
                if not is_not_found(exc):
                    raise
                owner = None
        if owner is None or meta(owner).get("uid") != ref.get("uid"):
            if owner_resource.namespaced:
                self._report_invalid_namespace(owner_resource, dependent, ref)
            return "dangling"
        if meta(owner).get("deletionTimestamp") and FOREGROUND in _finalizers(owner):
            return "waiting"
        return "solid"

    def _report_invalid_namespace(
        self, owner_resource: Resource, dependent: Obj, ref: dict[str, Any]
    ) -> None:
        """A Warning on ``dependent`` when its namespaced owner (by uid) lives in another
        namespace, worded as upstream's garbage collector."""
        uid = text(ref.get("uid"))
        ns = text(meta(dependent).get("namespace"))
        cache = self.caches[owner_resource.qualified_plural]
        if not any(
            text(meta(owner).get("namespace")) != ns
            for key in cache.index_keys(_UID_INDEX, uid)
            if (owner := cache.get(key)) is not None
        ):
            return
        identity = (
            f"[{text(ref.get('apiVersion'))}/{text(ref.get('kind'))}, namespace: {ns}, "
            f"name: {text(ref.get('name'))}, uid: {uid}]"
        )
        self.events.event(
            regarding=dependent,
            type="Warning",
            reason="OwnerRefInvalidNamespace",
            note=f'ownerRef {identity} does not exist in namespace "{ns}"',
        )

    async def _attempt_to_delete(self, resource: Resource, obj: Obj) -> None:
        states = [(ref, await self._owner_state(obj, ref)) for ref in _refs(obj)]
        if any(state == "invalid" for _, state in states):
            return  # an error no retry resolves: upstream forgets the object
        solid = [ref for ref, state in states if state == "solid"]
        waiting = [ref for ref, state in states if state == "waiting"]
        m = meta(obj)
        if solid:
            if len(solid) < len(states):
                await self._patch_meta(resource, obj, {"ownerReferences": solid})
            return
        policy: PropagationPolicy
        dependents = [
            dependent
            for key in self._keys_of(OWNER_UID_INDEX, text(m.get("uid")))
            if (dependent := self._cached(key)) is not None
        ]
        if waiting and dependents:
            # it goes in the foreground, after its own dependents; only a dependent that
            # itself waits for its dependents could make that a cycle: then let go of the owner
            if any(
                meta(d).get("deletionTimestamp") and FOREGROUND in _finalizers(d)
                for d in dependents
            ):
                unblocked = [
                    {**ref, "blockOwnerDeletion": False} if ref in waiting else ref
                    for ref, _ in states
                ]
                if unblocked != _refs(obj):
                    await self._patch_meta(resource, obj, {"ownerReferences": unblocked})
            policy = "Foreground"
        elif ORPHAN in _finalizers(obj):
            policy = "Orphan"
        elif FOREGROUND in _finalizers(obj):
            policy = "Foreground"
        else:
            policy = "Background"
        log.debug("deleting %s %s (%s): no owner left", resource, object_key(obj), policy)
        await self.client.delete(
            resource,
            name=text(m.get("name")),
            namespace=m.get("namespace"),
            propagation_policy=policy,
            preconditions=Preconditions(uid=text(m.get("uid"))),
        )
