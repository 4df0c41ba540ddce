"""The resourceclaim controller: claims from templates, for pods and for PodGroups (KEP-5729).

Three kinds of keys share one queue, as upstream's ``pkg/controller/resourceclaim`` does:

- ``pod:<ns>/<name>`` — for each ``spec.resourceClaims`` entry with a
  ``resourceClaimTemplateName``, make sure exactly one claim exists (annotation
  ``resource.kubernetes.io/pod-claim-name``, controller owner reference to the pod) and record its
  name in ``status.resourceClaimStatuses``; for an entry with ``podGroupResourceClaim``, or one
  identical to an entry of the pod's PodGroup (upstream's KEP-5729,
  :func:`fakeapi.rules.podgroups.group_claim_entries`), record the claim generated for the
  PodGroup instead (waiting for the PodGroup to be seen). Pods being deleted are left alone.
- ``podgroup:<ns>/<name>`` — one claim per template entry of ``spec.resourceClaims``, owned by
  the PodGroup, annotated ``resource.kubernetes.io/podgroup-claim-name``, recorded in the group's
  ``status.resourceClaimStatuses``; then the group's pods are queued to record it too.
- ``claim:<ns>/<name>`` — reservations, deallocation, the finalizer, vanished owners
  (:mod:`fakeapi.controllers.resourceclaim_cleanup`).

**Never two claims for one owner's entry**: see :mod:`fakeapi.controllers.resourceclaim_generate`
(look up by recorded name, owner index and a memo before creating). A retry after a failed status
write therefore finds the claim it made instead of making another one.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter

from fakeapi import features
from fakeapi.client import (
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    WORKLOADS,
    Client,
    Informer,
    InformerFactory,
    LegacyEventRecorder,
)
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import (
    OWNER_UID_INDEX,
    POD_CLAIMS_INDEX,
    POD_GROUP_INDEX,
    ensure_index,
    pod_claim_keys,
    pod_group_keys,
)
from fakeapi.controllers.resourceclaim_cleanup import ClaimCleanup, pod_is_done
from fakeapi.controllers.resourceclaim_generate import (
    GENERATED_INDEX,
    ClaimGenerator,
    generated_for,
)
from fakeapi.controllers.resourceclaim_metrics import ClaimCollector
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.dra_metrics import resourceclaim_creates
from fakeapi.objects import (
    Obj,
    as_dict,
    as_list,
    controller_ref,
    deep_copy,
    is_deleting,
    meta,
    object_key,
    owner_uids,
    text,
)
from fakeapi.rules.claims import (
    POD_CLAIM_ANNOTATION,
    PODGROUP_CLAIM_ANNOTATION,
    SCHEDULING_GROUP,
    can_be_reserved,
    is_reserved_for,
    is_reserved_for_any_pod,
    pod_group_reference,
    pod_reference,
    reserved_for_uids,
)
from fakeapi.rules.podgroups import group_claim_entries, may_use_group_claims, pod_group_name

__all__ = ["FIELD_MANAGER", "ResourceClaimController"]

#: the source of the controller's Events, as upstream's resourceclaim controller names it
EVENT_SOURCE = "resource_claim"

log = logging.getLogger("fakeapi.controllers.resourceclaim")

FIELD_MANAGER = "ResourceClaimController"
_RESERVED_INDEX = "resourceclaim-controller/reserved-for"
def _group_key(group: Obj) -> str | None:
    return None if is_deleting(group) else "podgroup:" + object_key(group)


def _statuses(obj: Obj) -> dict[str, str]:
    return {
        text(s.get("name")): text(s.get("resourceClaimName"))
        for s in (
            as_dict(x) for x in as_list(as_dict(obj.get("status")).get("resourceClaimStatuses"))
        )
        if s.get("name")
    }


class ResourceClaimController(ControllerComponent):
    """Creates, records and cleans up ResourceClaims for pods and PodGroups."""

    name = "resourceclaim-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        workers: int = 4,
    ) -> None:
        self.client = client
        self.rng = rng
        self.gates = dict(feature_gates or {})
        self.pods = informers.informer(PODS)
        self.claims = informers.informer(RESOURCE_CLAIMS)
        self.templates = informers.informer(RESOURCE_CLAIM_TEMPLATES)
        self.groups_enabled = features.enabled(self.gates, "WorkloadPodGroupResourceClaimTemplate")
        self.pod_groups: Informer | None = (
            informers.informer(POD_GROUPS) if self.groups_enabled else None
        )
        #: KEP-5194 consumers this controller can see disappear
        self.workloads: Informer | None = (
            informers.informer(WORKLOADS)
            if features.enabled(self.gates, "DRAReservedForWorkloads")
            else None
        )
        self.informers = [
            i
            for i in (self.pods, self.claims, self.templates, self.pod_groups, self.workloads)
            if i
        ]
        ensure_index(self.claims, GENERATED_INDEX, generated_for)
        ensure_index(self.claims, _RESERVED_INDEX, reserved_for_uids)
        ensure_index(self.claims, OWNER_UID_INDEX, owner_uids)
        ensure_index(self.pods, POD_GROUP_INDEX, pod_group_keys)
        ensure_index(self.pods, POD_CLAIMS_INDEX, pod_claim_keys)
        self.controller = Controller(
            name="resource_claim",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        self.cleanup = ClaimCleanup(
            client=client, claims=self.claims, pods=self.pods, pod_groups=self.pod_groups
        )
        self.events = LegacyEventRecorder(client, component=EVENT_SOURCE, clock=clock)
        self.metrics = metrics
        self._creates: Counter | None = None
        if metrics is not None:
            collector = ClaimCollector(self.claims)
            metrics.register(collector)
            # shared with the scheduler, which counts its extended-resource claims in it
            self._creates = resourceclaim_creates(metrics)
            self.controller.own_metrics(collector)
        self.generator = ClaimGenerator(
            client=client,
            claims=self.claims,
            templates=self.templates,
            rng=rng,
            gates=self.gates,
            events=self.events,
            creates=self._creates,
        )
        self.pods.add_handler(
            on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._owner_gone
        )
        self.claims.add_handler(
            on_add=self._claim_changed,
            on_update=lambda _old, new: self._claim_changed(new),
            on_delete=self._claim_deleted,
        )
        if self.workloads is not None:
            self.workloads.add_handler(on_delete=self._consumer_deleted)
        if self.pod_groups is not None:
            self.controller.watch(self.pod_groups, key=_group_key, on_delete=False)
            self.pod_groups.add_handler(
                on_update=lambda _old, group: self._group_deleting(group),
                on_delete=self._owner_gone,
            )

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    # --- event handlers: queue keys ----------------------------------------------------------
    def _pod_added(self, pod: Obj) -> None:
        if pod_is_done(pod):  # it will never use its claims again: clean up, make none
            self._owner_gone(pod)
        elif as_list(as_dict(pod.get("spec")).get("resourceClaims")) and not is_deleting(pod):
            self.controller.enqueue("pod:" + object_key(pod))

    def _pod_updated(self, _old: Obj, pod: Obj) -> None:
        self._pod_added(pod)

    def _owner_gone(self, owner: Obj) -> None:
        """Claims reserved for or generated for a pod that will not run any more, or for a
        PodGroup that was deleted; and, for a pod of a PodGroup being deleted, the group's."""
        uid = text(meta(owner).get("uid"))
        for index in (_RESERVED_INDEX, OWNER_UID_INDEX):
            for key in self.claims.index_keys(index, uid):
                self.controller.enqueue("claim:" + key)
        group_name = pod_group_name(owner)
        if group_name and self.pod_groups is not None:
            group = self.pod_groups.get(f"{meta(owner).get('namespace')}/{group_name}")
            if group is not None:
                self._group_deleting(group)

    def _group_deleting(self, group: Obj) -> None:
        """A PodGroup being deleted may leave its claims' reservations (its last member gone)."""
        if is_deleting(group):
            for key in self.claims.index_keys(_RESERVED_INDEX, text(meta(group).get("uid"))):
                self.controller.enqueue("claim:" + key)

    def _consumer_deleted(self, consumer: Obj) -> None:
        for key in self.claims.index_keys(_RESERVED_INDEX, text(meta(consumer).get("uid"))):
            self.controller.enqueue("claim:" + key)

    def _claim_changed(self, claim: Obj) -> None:
        status = as_dict(claim.get("status"))
        m = meta(claim)
        if (
            status.get("reservedFor")
            or status.get("allocation")
            or m.get("finalizers")
            or (m.get("ownerReferences"))
        ):
            self.controller.enqueue("claim:" + object_key(claim))
        if status.get("allocation"):  # pods bound without the scheduler may need a reservation
            for pod_key in self.pods.index_keys(POD_CLAIMS_INDEX, object_key(claim)):
                pod = self.pods.get(pod_key)
                if pod is not None and as_dict(pod.get("spec")).get("nodeName"):
                    self.controller.enqueue("pod:" + pod_key)

    def _claim_deleted(self, claim: Obj) -> None:
        ref = controller_ref(claim)
        ns = text(meta(claim).get("namespace"))
        if ref is None:
            return
        if ref.get("kind") == "Pod":
            self.controller.enqueue(f"pod:{ns}/{ref.get('name')}")
        elif ref.get("kind") == "PodGroup":
            self.controller.enqueue(f"podgroup:{ns}/{ref.get('name')}")

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        kind, _, rest = key.partition(":")
        ns, _, name = rest.partition("/")
        if kind == "claim":
            await self.cleanup.sync(ns, name)
            return None
        if kind == "pod":
            return await self._sync_pod(ns, name)
        if kind == "podgroup":
            return await self._sync_group(ns, name)
        return None

    async def _sync_pod(self, ns: str, name: str) -> Result | None:
        pod = self.pods.get(f"{ns}/{name}")
        if pod is None or is_deleting(pod) or pod_is_done(pod):
            return None
        recorded = _statuses(pod)
        wanted = dict(recorded)
        retry = False
        group = self._group_of(pod)
        if group is None and self.pod_groups is not None and may_use_group_claims(pod):
            # an entry identical to one of the group's is the group's claim: wait for the group
            # rather than give the pod a claim of its own
            return Result(requeue=True)
        for entry in group_claim_entries(pod, group):
            entry_name = text(entry.get("name"))
            if entry.get("resourceClaimTemplateName"):
                claim_name = await self.generator.ensure(
                    owner=pod,
                    owner_kind=("v1", "Pod"),
                    annotation=POD_CLAIM_ANNOTATION,
                    entry_name=entry_name,
                    template=text(entry.get("resourceClaimTemplateName")),
                    recorded=recorded.get(entry_name),
                )
                if claim_name is None:
                    retry = True
                else:
                    wanted[entry_name] = claim_name
            elif entry.get("podGroupResourceClaim"):
                claim_name = self._group_claim_for_pod(pod, text(entry["podGroupResourceClaim"]))
                if claim_name:
                    wanted[entry_name] = claim_name
        if wanted != recorded:
            await self._apply_statuses(PODS, pod, "v1", "Pod", wanted)
        if as_dict(pod.get("spec")).get("nodeName"):
            await self._reserve_for_scheduled_pod(pod, wanted)
        return Result(requeue=True) if retry else None

    async def _reserve_for_scheduled_pod(self, pod: Obj, generated: dict[str, str]) -> None:
        """A pod bound without the scheduler (``spec.nodeName`` set by its creator) whose claim
        is allocated but not reserved for it gets the reservation the scheduler would have
        written: the pod, or its PodGroup for a group claim. Claims reserved for any pod or for
        a non-pod consumer (KEP-5194) and full lists are left alone."""
        ns = text(meta(pod).get("namespace"))
        group = self._group_of(pod)
        for entry in group_claim_entries(pod, group):
            entry_name = text(entry.get("name"))
            reference = pod_reference(pod)
            claim_name = text(entry.get("resourceClaimName")) or generated.get(entry_name, "")
            if entry.get("podGroupResourceClaim"):
                if group is None:
                    continue
                reference = pod_group_reference(group)
                by_entry = {
                    text(as_dict(e).get("name")): text(as_dict(e).get("resourceClaimName"))
                    for e in as_list(as_dict(group.get("spec")).get("resourceClaims"))
                }
                claim_name = by_entry.get(text(entry["podGroupResourceClaim"])) or claim_name
            claim = self.claims.get(f"{ns}/{claim_name}") if claim_name else None
            if claim is None:
                continue
            status = as_dict(claim.get("status"))
            allocation = status.get("allocation")
            reserved = [as_dict(r) for r in as_list(status.get("reservedFor"))]
            if (
                not isinstance(allocation, dict)
                or is_reserved_for_any_pod(claim)
                or is_reserved_for(claim, uid=reference["uid"])
                or any(
                    (r.get("apiGroup") or "", r.get("resource")) not in (("", "pods"),)
                    and r.get("apiGroup") != SCHEDULING_GROUP
                    for r in reserved
                )
                or not can_be_reserved(claim)
            ):
                continue
            updated = deep_copy(claim)
            updated["status"]["reservedFor"] = [*reserved, reference]
            await self.client.update_status(RESOURCE_CLAIMS, body=updated)

    def _group_of(self, pod: Obj) -> Obj | None:
        """The pod's PodGroup as the informer has it (None: no group, or not seen yet)."""
        name = pod_group_name(pod)
        if self.pod_groups is None or not name:
            return None
        group: Obj | None = self.pod_groups.get(f"{meta(pod).get('namespace')}/{name}")
        return group

    def _group_claim_for_pod(self, pod: Obj, entry_name: str) -> str:
        if self.pod_groups is None:
            return ""
        group = self.pod_groups.get(f"{meta(pod).get('namespace')}/{pod_group_name(pod)}")
        if group is None:
            return ""
        for entry in as_list(as_dict(group.get("spec")).get("resourceClaims")):
            if as_dict(entry).get("name") == entry_name and entry.get("resourceClaimTemplateName"):
                found = self.generator.find(group, PODGROUP_CLAIM_ANNOTATION, entry_name)
                return found or _statuses(group).get(entry_name, "")
        return ""

    async def _sync_group(self, ns: str, name: str) -> Result | None:
        assert self.pod_groups is not None
        group = self.pod_groups.get(f"{ns}/{name}")
        if group is None or is_deleting(group):
            return None
        recorded = _statuses(group)
        wanted = dict(recorded)
        retry = False
        for entry in (
            as_dict(e) for e in as_list(as_dict(group.get("spec")).get("resourceClaims"))
        ):
            entry_name = text(entry.get("name"))
            template = text(entry.get("resourceClaimTemplateName"))
            if not template:
                continue
            claim_name = await self.generator.ensure(
                owner=group,
                owner_kind=(POD_GROUPS.api_version, "PodGroup"),
                annotation=PODGROUP_CLAIM_ANNOTATION,
                entry_name=entry_name,
                template=template,
                recorded=recorded.get(entry_name),
            )
            if claim_name is None:
                retry = True
            else:
                wanted[entry_name] = claim_name
        if wanted != recorded:
            await self._apply_statuses(
                POD_GROUPS, group, POD_GROUPS.api_version, "PodGroup", wanted
            )
        for key in self.pods.index_keys(POD_GROUP_INDEX, f"{ns}/{name}"):
            self.controller.enqueue("pod:" + key)
        return Result(requeue=True) if retry else None

    async def _apply_statuses(
        self, resource: Any, owner: Obj, api_version: str, kind: str, wanted: dict[str, str]
    ) -> None:
        body = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {
                "name": meta(owner).get("name"),
                "namespace": meta(owner).get("namespace"),
                "uid": meta(owner).get("uid"),
            },
            "status": {
                "resourceClaimStatuses": [
                    {"name": entry, "resourceClaimName": claim}
                    for entry, claim in sorted(wanted.items())
                ]
            },
        }
        await self.client.apply(
            resource, body=body, subresource="status", field_manager=FIELD_MANAGER, force=True
        )
