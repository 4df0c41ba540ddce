"""The StatefulSet controller: pods with stable names, made and replaced in order.

As upstream's ``pkg/controller/statefulset``. Keys are ``namespace/name`` of StatefulSets,
queued by their own and their pods' changes. A reconcile:

1. syncs the template history (:mod:`~fakeapi.controllers.history`): the update revision is
   the current template's, the current revision the one ``status.currentRevision`` names;
2. gives every ordinal in ``[start, start + replicas)`` a pod ``<set>-<ordinal>`` with its
   identity (labels ``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index``
   and ``controller-revision-hash`` = its revision's name, host name = pod name, subdomain =
   ``serviceName``) made from the current revision below the partition and the update revision
   at or above it;
3. with ``OrderedReady`` creates one pod at a time in ordinal order and waits for it to be
   Running and Ready (available, with ``minReadySeconds``) before the next; ``Parallel`` creates
   them all at once. Failed or finished pods are deleted and made again;
4. deletes pods beyond the replica count, highest ordinal first (one at a time when ordered);
5. rolls out a new template (RollingUpdate) from the highest ordinal down to the partition, one
   pod at a time, each only once the others are healthy; OnDelete waits for users to delete;
6. writes the status; once every pod is at the update revision it becomes the current one.

PersistentVolumeClaims are not served: the volumes of ``volumeClaimTemplates`` are added to the
pods (claim ``<template>-<pod>``) and ``persistentVolumeClaimRetentionPolicy`` is accepted,
with no claims to create or delete.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    CONTROLLER_REVISIONS,
    NAMESPACE_INDEX,
    PODS,
    STATEFUL_SETS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    Preconditions,
    is_already_exists,
    is_not_found,
)
from fakeapi.client.informer import namespace_index
from fakeapi.clock import Clock
from fakeapi.controllers.history import (
    REVISION_HASH_LABEL,
    HashCollisionError,
    sync_history,
    truncate_history,
)
from fakeapi.controllers.indexes import OWNER_UID_INDEX, ensure_index
from fakeapi.controllers.podcontrol import claim, pod_from_template
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import (
    Obj,
    as_dict,
    as_list,
    controller_ref,
    deep_copy,
    meta,
    object_key,
    owner_uids,
    text,
)
from fakeapi.rules.controllerref import new_controller_ref
from fakeapi.rules.podutil import is_pod_available, is_pod_ready, pod_phase
from fakeapi.selectors import SelectorError, label_selector_from_api

__all__ = ["POD_INDEX_LABEL", "POD_NAME_LABEL", "StatefulSetController"]

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def _ordinal(set_name: str, pod: Obj) -> int | None:
    """The ordinal in ``<set>-<ordinal>``, or None for a pod not named so."""
    found = re.fullmatch(rf"{re.escape(set_name)}-(\d+)", text(meta(pod).get("name")))
    return int(found.group(1)) if found else None


def _revision_template(revision: Obj) -> dict[str, Any]:
    """The template a revision stores (``ApplyRevision``)."""
    template = dict(as_dict(as_dict(as_dict(revision.get("data")).get("spec")).get("template")))
    template.pop("$patch", None)
    return template


class StatefulSetController(ControllerComponent):
    """Keeps StatefulSets' ordinal pods."""

    name = "statefulset-controller"

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
        self.clock = clock
        self.events = LegacyEventRecorder(client, component="statefulset-controller",
                                          clock=clock)
        self.controller = Controller(
            name="statefulset", reconcile=self.reconcile, clock=clock, workers=workers,
            metrics=metrics,
        )
        self.sets = informers.informer(STATEFUL_SETS)
        self.pods = informers.informer(PODS)
        self.revisions = informers.informer(CONTROLLER_REVISIONS)
        ensure_index(self.pods, NAMESPACE_INDEX, namespace_index)
        ensure_index(self.revisions, OWNER_UID_INDEX, owner_uids)
        self.informers = [self.sets, self.pods, self.revisions]
        self.controller.watch(self.sets, on_delete=False)
        self.pods.add_handler(
            on_add=self._pod_changed,
            on_update=lambda _old, new: self._pod_changed(new),
            on_delete=self._pod_changed,
        )

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    def _pod_changed(self, pod: Obj) -> None:
        ref = controller_ref(pod)
        if ref is not None and ref.get("kind") == "StatefulSet":
            self.controller.enqueue(f"{text(meta(pod).get('namespace'))}/{text(ref.get('name'))}")

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        cached = self.sets.get(key)
        if cached is None:
            return None
        sts = deep_copy(cached)
        spec = as_dict(sts.get("spec"))
        try:
            selector = label_selector_from_api(as_dict(spec.get("selector")))
        except (SelectorError, ValueError):
            return None
        namespace = text(meta(sts).get("namespace"))
        pods = await claim(
            self.client, PODS, owner=sts,
            owner_ref=new_controller_ref(sts, api_version="apps/v1", kind="StatefulSet"),
            candidates=self.pods.by_index(NAMESPACE_INDEX, namespace),
            matches=lambda labels: not selector.empty and selector.matches(labels),
            owner_resource=STATEFUL_SETS,
        )
        collisions = as_dict(sts.get("status")).get("collisionCount")
        try:
            history = await sync_history(
                self.client, self.revisions, sts, api_version="apps/v1", kind="StatefulSet",
                template=spec.get("template"),
                collision_count=collisions if isinstance(collisions, int) else None,
            )
        except HashCollisionError:
            status = dict(as_dict(sts.get("status")))
            status["collisionCount"] = (collisions if isinstance(collisions, int) else 0) + 1
            await self.client.update_status(STATEFUL_SETS, body={**sts, "status": status})
            return Result(requeue=True)
        update = history.update
        current_name = text(as_dict(sts.get("status")).get("currentRevision"))
        current = next((r for r in history.revisions
                        if text(meta(r).get("name")) == current_name), update)
        if not meta(sts).get("deletionTimestamp"):
            await self._update_pods(sts, pods, current, update)
        limit = spec.get("revisionHistoryLimit")
        if isinstance(limit, int):
            live = {text(as_dict(meta(p).get("labels")).get(REVISION_HASH_LABEL)) for p in pods}
            live |= {text(meta(current).get("name")), text(meta(update).get("name"))}
            await truncate_history(self.client, history, live=live - {""}, limit=limit)
        return await self._write_status(sts, current, update)


    # --- pods ------------------------------------------------------------------------------
    def _healthy(self, sts: Obj, pod: Obj) -> bool:
        """Running, Ready, available for ``minReadySeconds`` and not being deleted."""
        min_ready = int(as_dict(sts.get("spec")).get("minReadySeconds") or 0)
        return (
            pod_phase(pod) == "Running"
            and not meta(pod).get("deletionTimestamp")
            and is_pod_available(pod, min_ready_seconds=min_ready, now=self.clock.now())
        )

    def _new_pod(self, sts: Obj, ordinal: int, revision: Obj) -> Obj:
        """``newVersionedStatefulSetPod``: the pod of ``ordinal`` from ``revision``."""
        spec = as_dict(sts.get("spec"))
        set_name = text(meta(sts).get("name"))
        name = f"{set_name}-{ordinal}"
        template = deep_copy(_revision_template(revision))
        template_meta = template.setdefault("metadata", {})
        template_meta["labels"] = {
            **as_dict(template_meta.get("labels")),
            POD_NAME_LABEL: name,
            POD_INDEX_LABEL: str(ordinal),
            REVISION_HASH_LABEL: text(meta(revision).get("name")),
        }
        pod_spec = template.setdefault("spec", {})
        pod_spec["hostname"] = name
        if spec.get("serviceName"):
            pod_spec["subdomain"] = spec["serviceName"]
        volumes = [as_dict(v) for v in as_list(pod_spec.get("volumes"))]
        names = {text(v.get("name")) for v in volumes}
        for claim_template in as_list(spec.get("volumeClaimTemplates")):
            claim_name = text(as_dict(as_dict(claim_template).get("metadata")).get("name"))
            if claim_name and claim_name not in names:
                volumes.append({"name": claim_name, "persistentVolumeClaim": {
                    "claimName": f"{claim_name}-{name}"}})
        if volumes:
            pod_spec["volumes"] = volumes
        return pod_from_template(
            template, namespace=text(meta(sts).get("namespace")),
            owner_ref=new_controller_ref(sts, api_version="apps/v1", kind="StatefulSet"),
            name=name,
        )

    async def _create(self, sts: Obj, pod: Obj) -> None:
        name = text(meta(pod).get("name"))
        try:
            await self.client.create(PODS, body=pod)
        except StatusError as exc:
            if is_already_exists(exc):
                return
            self.events.event(regarding=sts, type="Warning", reason="FailedCreate",
                              note=f"create Pod {name} in StatefulSet "
                              f"{text(meta(sts).get('name'))} failed error: {exc.message}")
            raise
        self.events.event(regarding=sts, type="Normal", reason="SuccessfulCreate",
                          note=f"create Pod {name} in StatefulSet "
                          f"{text(meta(sts).get('name'))} successful")

    async def _delete(self, sts: Obj, pod: Obj) -> None:
        name = text(meta(pod).get("name"))
        try:
            await self.client.delete(PODS, name=name, namespace=text(meta(pod).get("namespace")),
                                     preconditions=Preconditions(uid=text(meta(pod).get("uid"))))
        except StatusError as exc:
            if is_not_found(exc):
                return
            raise
        self.events.event(regarding=sts, type="Normal", reason="SuccessfulDelete",
                          note=f"delete Pod {name} in StatefulSet "
                          f"{text(meta(sts).get('name'))} successful")

    async def _update_pods(self, sts: Obj, pods: list[Obj], current: Obj, update: Obj) -> None:
        """``updateStatefulSet``: create, replace, condemn and roll pods, in order."""
        spec = as_dict(sts.get("spec"))
        set_name = text(meta(sts).get("name"))
        start = int(as_dict(spec.get("ordinals")).get("start") or 0)
        wanted = spec.get("replicas")
        replicas = wanted if isinstance(wanted, int) else 1
        ordered = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        strategy = as_dict(spec.get("updateStrategy"))
        rolling = strategy.get("type", "RollingUpdate") == "RollingUpdate"
        partition = int(as_dict(strategy.get("rollingUpdate")).get("partition") or 0)
        slots: dict[int, Obj] = {}
        condemned: list[tuple[int, Obj]] = []
        for pod in pods:
            ordinal = _ordinal(set_name, pod)
            if ordinal is None:
                continue
            if start <= ordinal < start + replicas:
                slots[ordinal] = pod
            else:
                condemned.append((ordinal, pod))
        condemned.sort(key=lambda entry: -entry[0])

        def revision_for(ordinal: int) -> Obj:
            return current if rolling and (ordinal - start) < partition else update

        for ordinal in range(start, start + replicas):
            slot = slots.get(ordinal)
            if slot is not None and pod_phase(slot) in ("Failed", "Succeeded") and not meta(
                slot
            ).get("deletionTimestamp"):
                await self._delete(sts, slot)
                if ordered:
                    return
                continue
            if slot is None:
                await self._create(sts, self._new_pod(sts, ordinal, revision_for(ordinal)))
                if ordered:
                    return
                continue
            if ordered and not self._healthy(sts, slot):
                return
        for _, doomed in condemned:
            if meta(doomed).get("deletionTimestamp"):
                if ordered:
                    return
                continue
            await self._delete(sts, doomed)
            if ordered:
                return
        if not rolling:
            return
        update_name = text(meta(update).get("name"))
        for ordinal in range(start + replicas - 1, start + partition - 1, -1):
            target = slots.get(ordinal)
            if target is None:
                return
            revision = text(as_dict(meta(target).get("labels")).get(REVISION_HASH_LABEL))
            if revision != update_name and not meta(target).get("deletionTimestamp"):
                await self._delete(sts, target)
                return
            if not self._healthy(sts, target):
                return

    # --- status --------------------------------------------------------------------------------
    async def _write_status(self, sts: Obj, current: Obj, update: Obj) -> Result | None:
        spec = as_dict(sts.get("spec"))
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.clock.now()
        set_name = text(meta(sts).get("name"))
        uid = text(meta(sts).get("uid"))
        pods = [
            p for p in self.pods.by_index(NAMESPACE_INDEX, text(meta(sts).get("namespace")))
            if as_dict(controller_ref(p)).get("uid") == uid and _ordinal(set_name, p) is not None
            and pod_phase(p) not in ("Failed", "Succeeded")
        ]
        current_name, update_name = text(meta(current).get("name")), text(meta(update).get("name"))
        revision_of = {
            object_key(p): text(as_dict(meta(p).get("labels")).get(REVISION_HASH_LABEL))
            for p in pods
        }
        status: dict[str, Any] = {
            "observedGeneration": meta(sts).get("generation", 0),
            "replicas": len(pods),
            "readyReplicas": sum(1 for p in pods if is_pod_ready(p)),
            "currentReplicas": sum(1 for p in pods if revision_of[object_key(p)] == current_name),
            "updatedReplicas": sum(1 for p in pods if revision_of[object_key(p)] == update_name),
            "currentRevision": current_name,
            "updateRevision": update_name,
            "availableReplicas": sum(
                1 for p in pods if is_pod_available(p, min_ready_seconds=min_ready, now=now)
            ),
        }
        old = as_dict(sts.get("status"))
        for name in ("collisionCount", "conditions"):
            if name in old:
                status[name] = old[name]
        strategy = as_dict(spec.get("updateStrategy")).get("type", "RollingUpdate")
        if (
            strategy == "RollingUpdate"
            and status["updatedReplicas"] == status["replicas"]
            and status["readyReplicas"] == status["replicas"]
        ):
            status["currentReplicas"] = status["updatedReplicas"]
            status["currentRevision"] = update_name
        for name in ("readyReplicas", "currentReplicas", "updatedReplicas"):
            if not status[name]:
                del status[name]
        if status != old:
            await self.client.update_status(STATEFUL_SETS, body={**sts, "status": status})
        if min_ready > 0 and status.get("readyReplicas") != status.get("availableReplicas"):
            return Result(requeue_after=float(min_ready))
        return None
