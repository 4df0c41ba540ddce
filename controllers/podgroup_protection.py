"""The podgroup-protection controller: a PodGroup goes only once none of its pods can still run.

Every PodGroup is created with the finalizer ``scheduling.k8s.io/podgroup-protection`` (the
apiserver's PodGroupProtection admission adds it). For a PodGroup being deleted, this controller
removes the finalizer once every pod that belongs to it (``spec.workloadRef.podGroupName``, or
upstream's ``spec.schedulingGroup.podGroupName``) has finished (``Succeeded`` or ``Failed``) or is
gone; until then the group, and the reservations its shared claims hold for it, stay. A PodGroup
that lacks the finalizer and is not being deleted (made before the finalizer existed) gets it.

Keys are ``namespace/name`` of PodGroups: a PodGroup's own changes queue it, and so does every
add, update and delete of a pod that belongs to it. The pods come from an index of the shared
pod informer; before the finalizer is removed they are listed once more from the API, so a pod
the cache has not seen yet still holds the group.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from prometheus_client import CollectorRegistry

from fakeapi import features
from fakeapi.client import POD_GROUPS, PODS, Client, Informer, InformerFactory, is_not_found
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import POD_GROUP_INDEX, ensure_index, pod_group_keys
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.models.scheduling import POD_GROUP_PROTECTION_FINALIZER
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, is_deleting, meta, text
from fakeapi.rules.podgroups import pod_group_name

__all__ = ["PodGroupProtectionController", "pod_may_run"]

_TERMINAL = ("Succeeded", "Failed")


def pod_may_run(pod: Obj) -> bool:
    """Whether a pod has not reached a terminal phase: it may still use what its group holds."""
    return as_dict(pod.get("status")).get("phase") not in _TERMINAL


class PodGroupProtectionController(ControllerComponent):
    """Adds the protection finalizer to PodGroups and removes it once their pods are done."""

    name = "podgroup-protection-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        workers: int = 2,
    ) -> None:
        self.client = client
        self.controller = Controller(
            name="podgroup_protection",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        self.informers: list[Informer] = []
        if not features.enabled(dict(feature_gates or {}), "GenericWorkload"):
            return  # no PodGroups are served
        self.pod_groups = informers.informer(POD_GROUPS)
        self.pods = informers.informer(PODS)
        self.informers = [self.pod_groups, self.pods]
        ensure_index(self.pods, POD_GROUP_INDEX, pod_group_keys)
        self.controller.watch(self.pod_groups, on_delete=False)
        self.pods.add_handler(
            on_add=self._pod_changed,
            on_update=lambda _old, new: self._pod_changed(new),
            on_delete=self._pod_changed,
        )

    def _pod_changed(self, pod: Obj) -> None:
        for key in pod_group_keys(pod):
            self.controller.enqueue(key)

    async def reconcile(self, key: str) -> Result | None:
        group = self.pod_groups.get(key)
        if group is None:
            return None
        finalizers = [text(f) for f in as_list(meta(group).get("finalizers"))]
        protected = POD_GROUP_PROTECTION_FINALIZER in finalizers
        if not is_deleting(group):
            if not protected:
                updated = deep_copy(group)
                meta(updated)["finalizers"] = [*finalizers, POD_GROUP_PROTECTION_FINALIZER]
                await self._update(updated)
            return None
        if not protected or await self._in_use(key, group):
            return None
        updated = deep_copy(group)
        meta(updated)["finalizers"] = [f for f in finalizers if f != POD_GROUP_PROTECTION_FINALIZER]
        await self._update(updated)
        return None

    async def _in_use(self, key: str, group: Obj) -> bool:
        if any(pod_may_run(pod) for pod in self.pods.by_index(POD_GROUP_INDEX, key)):
            return True
        # the cache may lag behind a pod just created for the group: ask the API before letting go
        namespace, name = text(meta(group).get("namespace")), text(meta(group).get("name"))
        listed = await self.client.list_all(PODS, namespace=namespace)
        return any(pod_group_name(pod) == name and pod_may_run(pod) for pod in listed.items)

    async def _update(self, group: Obj) -> None:
        try:
            await self.client.update(POD_GROUPS, body=group)
        except Exception as exc:
            if not is_not_found(exc):  # a conflict: the next event (or the retry) reads anew
                raise
