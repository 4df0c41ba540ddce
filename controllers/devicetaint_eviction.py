"""Device taint eviction (gate DRADeviceTaints): pods on NoExecute-tainted devices are deleted.

Keys are ``pod:<ns>/<name>`` and ``rule:<name>``. For a pod, from current state: resolve the
claims it uses, take every allocated device of those claims, collect the device's ``NoExecute``
taints (slice taints and, with DRADeviceTaintRules, DeviceTaintRules) and judge each against the
allocation result's tolerations (:mod:`fakeapi.controllers.devicetaints`). The earliest eviction
time wins: in the past → evict now, in the future → look again then (on the injected clock).

Eviction is what upstream's ``pkg/controller/devicetainteviction`` does: set the pod condition
``DisruptionTarget=True`` (reason ``DeletionByDeviceTaintManager``), then delete the pod with
a uid precondition. The claim controller deallocates the claim once its pods are gone.

**Which pods use a claim.** An index of pods by the claims their spec and status name; for a
claim reserved for a PodGroup, every pod of that group that refers to the claim through
``podGroupResourceClaim``. So all pods sharing a claim — by name, through a KEP-5194 consumer
or through their PodGroup — are evicted, scheduled or not.

**Nothing tainted, nothing to do.** While no slice taints a device and no DeviceTaintRule
exists (an index of tainted slices says so), pod and claim changes queue nothing: a taint that
appears or goes reaches every pod it concerns through the slice and rule handlers.

**DeviceTaintRule status.** ``EvictionInProgress`` with upstream's reasons and messages
(PodsPendingEviction, Completed, NotStarted, NoEffect, OtherEffect), refreshed at most every
``RULE_STATUS_PERIOD`` seconds.
"""

from __future__ import annotations

import random
from collections import Counter as Tally
from collections.abc import Mapping
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Histogram

from fakeapi import features
from fakeapi.client import (
    DEVICE_TAINT_RULES,
    POD_GROUPS,
    PODS,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Client,
    Informer,
    InformerFactory,
    LegacyEventRecorder,
)
from fakeapi.clock import Clock
from fakeapi.controllers.devicetaint_status import rule_condition
from fakeapi.controllers.devicetaints import (
    Taint,
    eviction_time,
    rule_matches,
    rule_taint,
    slice_taints,
)
from fakeapi.controllers.eviction import evict_pod
from fakeapi.controllers.indexes import (
    CLAIM_POOL_INDEX,
    POD_CLAIMS_INDEX,
    POD_GROUP_INDEX,
    SLICE_POOL_INDEX,
    allocated_pools,
    allocation_results,
    ensure_index,
    pod_claim_keys,
    pod_group_keys,
    pool_key,
    slice_pools,
)
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, meta, object_key, text
from fakeapi.rules.claims import SCHEDULING_GROUP
from fakeapi.rules.conditions import find_status_condition
from fakeapi.rules.podgroups import group_claim_entries, pod_group_name
from fakeapi.timefmt import parse_time

__all__ = ["DeviceTaintEvictionController", "RULE_STATUS_PERIOD"]

RULE_STATUS_PERIOD = 10.0

#: slices with at least one tainted device, all under one value
_TAINTED_INDEX = "device-taint-eviction/tainted"
_TAINTED = "tainted"


def _tainted(slice_obj: Obj) -> list[str]:
    devices = as_list(as_dict(slice_obj.get("spec")).get("devices"))
    return [_TAINTED] if any(as_dict(d).get("taints") for d in devices) else []


def _ns(obj: Obj) -> str:
    return text(meta(obj).get("namespace"))


def _terminal(pod: Obj) -> bool:
    return as_dict(pod.get("status")).get("phase") in ("Succeeded", "Failed")


class DeviceTaintEvictionController(ControllerComponent):
    """Evicts pods whose devices carry untolerated NoExecute taints."""

    name = "device-taint-eviction-controller"

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
        gates = dict(feature_gates or {})
        self.enabled = features.enabled(gates, "DRADeviceTaints")
        self.client = client
        self.clock = clock
        self.events = LegacyEventRecorder(client, component=self.name, clock=clock)
        #: pods whose eviction waits for a toleration to run out (cancelled with an event)
        self._scheduled: set[str] = set()
        self.informers: list[Informer] = []
        self.controller = Controller(
            name="device_taint_eviction",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        #: pods evicted per DeviceTaintRule uid since this controller started
        self.evicted_by_rule: Tally[str] = Tally()
        self.metrics = metrics
        if not self.enabled:
            return
        self.pods = informers.informer(PODS)
        self.claims = informers.informer(RESOURCE_CLAIMS)
        self.slices = informers.informer(RESOURCE_SLICES)
        self.rules: Informer | None = (
            informers.informer(DEVICE_TAINT_RULES)
            if features.enabled(gates, "DRADeviceTaintRules")
            else None
        )
        self.pod_groups: Informer | None = (
            informers.informer(POD_GROUPS)
            if features.enabled(gates, "WorkloadPodGroupResourceClaimTemplate")
            else None
        )
        self.informers = [
            i for i in (self.pods, self.claims, self.slices, self.rules, self.pod_groups) if i
        ]
        ensure_index(self.pods, POD_CLAIMS_INDEX, pod_claim_keys)
        ensure_index(self.pods, POD_GROUP_INDEX, pod_group_keys)
        ensure_index(self.slices, SLICE_POOL_INDEX, slice_pools)
        ensure_index(self.claims, CLAIM_POOL_INDEX, allocated_pools)
        ensure_index(self.slices, _TAINTED_INDEX, _tainted)
        if metrics is not None:
            self._deletions = Counter(
                "device_taint_eviction_controller_pod_deletions",
                "Total number of Pods deleted by DeviceTaintEvictionController since its start.",
                registry=metrics,
            )
            self._latency = Histogram(
                "device_taint_eviction_controller_pod_deletion_duration_seconds",
                "Latency, in seconds, between the time when a device taint effect has been "
                "activated and a Pod's deletion via DeviceTaintEvictionController.",
                buckets=(0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240),
                registry=metrics,
            )
            self.controller.own_metrics(self._deletions, self._latency)
        self.pods.add_handler(
            on_add=self._pod_changed, on_update=lambda _o, new: self._pod_changed(new)
        )
        self.claims.add_handler(on_add=self._claim_changed, on_update=self._claim_updated)
        self.slices.add_handler(on_add=self._slice_changed, on_update=self._slice_updated)
        if self.rules is not None:
            self.rules.add_handler(
                on_add=self._rule_changed,
                on_update=lambda _o, new: self._rule_changed(new),
                on_delete=self._rule_changed,
            )

    def start(self) -> None:
        if self.enabled:
            self.controller.start()

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    # --- which pods use which claims -----------------------------------------------------------
    def _pod_claims(self, pod: Obj) -> list[str]:
        """``ns/name`` of every claim the pod uses."""
        keys = set(pod_claim_keys(pod))
        group = (
            self.pod_groups.get(f"{_ns(pod)}/{pod_group_name(pod)}")
            if (self.pod_groups is not None and pod_group_name(pod))
            else None
        )
        if group is not None:
            by_entry = {
                text(as_dict(e).get("name")): text(as_dict(e).get("resourceClaimName"))
                for e in as_list(as_dict(group.get("spec")).get("resourceClaims"))
            }
            for entry in group_claim_entries(pod, group):
                name = by_entry.get(text(entry.get("podGroupResourceClaim")))
                if name:
                    keys.add(f"{_ns(pod)}/{name}")
        return sorted(keys)

    def pods_of_claim(self, claim: Obj) -> list[str]:
        key = object_key(claim)
        pods = set(self.pods.index_keys(POD_CLAIMS_INDEX, key))
        for ref in as_list(as_dict(claim.get("status")).get("reservedFor")):
            ref = as_dict(ref)
            if ref.get("apiGroup") == SCHEDULING_GROUP and ref.get("resource") == "podgroups":
                for pod_key in self.pods.index_keys(
                    POD_GROUP_INDEX, f"{_ns(claim)}/{ref.get('name')}"
                ):
                    pod = self.pods.get(pod_key)
                    if pod is not None and key in self._pod_claims(pod):
                        pods.add(pod_key)
        return sorted(pods)

    # --- event handlers ------------------------------------------------------------------------
    def _nothing_tainted(self) -> bool:
        """No slice taints a device and no DeviceTaintRule exists: a pod or claim change cannot
        call for an eviction, and the slice and rule handlers queue every pod a taint's arrival
        or departure concerns (those waiting for an eviction included)."""
        return not self.slices.index_keys(_TAINTED_INDEX, _TAINTED) and (
            self.rules is None or len(self.rules) == 0
        )

    def _pod_changed(self, pod: Obj) -> None:
        if not as_list(as_dict(pod.get("spec")).get("resourceClaims")):
            return
        key = object_key(pod)
        if key in self._scheduled or not self._nothing_tainted():
            self.controller.enqueue("pod:" + key)

    def _claim_changed(self, claim: Obj) -> None:
        if not self._nothing_tainted():
            self._queue_pods_of(claim)

    def _queue_pods_of(self, claim: Obj) -> None:
        if allocation_results(claim):
            for pod_key in self.pods_of_claim(claim):
                self.controller.enqueue("pod:" + pod_key)

    def _claim_updated(self, old: Obj, new: Obj) -> None:
        if as_dict(old.get("status")) != as_dict(new.get("status")):
            self._claim_changed(new)

    def _slice_changed(self, slice_obj: Obj) -> None:
        for pool in slice_pools(slice_obj):
            for claim in self.claims.by_index(CLAIM_POOL_INDEX, pool):
                self._queue_pods_of(claim)

    def _slice_updated(self, old: Obj, new: Obj) -> None:
        if as_dict(old.get("spec")) != as_dict(new.get("spec")):
            self._slice_changed(new)

    def _rule_changed(self, rule: Obj) -> None:
        for claim in self.claims.list():
            if any(
                rule_matches(
                    rule, text(r.get("driver")), text(r.get("pool")), text(r.get("device"))
                )
                for r in allocation_results(claim)
            ):
                self._queue_pods_of(claim)
        if self.rules is not None and self.rules.get(object_key(rule)) is not None:
            self.controller.enqueue("rule:" + object_key(rule))

    # --- taints --------------------------------------------------------------------------------
    def _device_taints(self, driver: str, pool: str, device: str) -> list[Taint]:
        pool_slices = self.slices.by_index(SLICE_POOL_INDEX, pool_key(driver, pool))
        taints = slice_taints(pool_slices, device)
        if self.rules is not None:
            taints += [
                rule_taint(r) for r in self.rules.list() if rule_matches(r, driver, pool, device)
            ]
        return taints

    def evictions(self, pod: Obj, *, now: datetime) -> list[tuple[datetime, Taint]]:
        """Every (time, taint) that requires the pod to go, over all devices of its claims."""
        out: list[tuple[datetime, Taint]] = []
        for claim_key in self._pod_claims(pod):
            claim = self.claims.get(claim_key)
            if claim is None:
                continue
            for result in allocation_results(claim):
                tolerations = [as_dict(t) for t in as_list(result.get("tolerations"))]
                for taint in self._device_taints(
                    text(result.get("driver")), text(result.get("pool")), text(result.get("device"))
                ):
                    when = eviction_time(taint, tolerations, now=now)
                    if when is not None:
                        out.append((when, taint))
        return out

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        kind, _, rest = key.partition(":")
        if kind == "rule":
            return await self._sync_rule(rest)
        pod = self.pods.get(rest)
        if pod is None or meta(pod).get("deletionTimestamp") or _terminal(pod):
            self._scheduled.discard(rest)
            return None
        now = self.clock.now()
        evictions = self.evictions(pod, now=now)
        if not evictions:
            if rest in self._scheduled:  # the taint went or is tolerated now: as upstream says
                self._scheduled.discard(rest)
                self.events.event(
                    regarding=pod, type="Normal", reason="DeviceTaintManagerEviction",
                    note="Cancelling deletion",
                )
            return None
        when = min(t for t, _ in evictions)
        if when > now:
            self._scheduled.add(rest)
            return Result(requeue_after=(when - now).total_seconds())
        self._scheduled.discard(rest)
        await self._evict(pod)
        for rule_uid in {taint.rule_uid for t, taint in evictions if t <= now and taint.rule_uid}:
            self.evicted_by_rule[rule_uid] += 1
            if self.rules is not None:
                for rule in self.rules.list():
                    if meta(rule).get("uid") == rule_uid:
                        key = "rule:" + object_key(rule)
                        self.controller.enqueue_after(key, RULE_STATUS_PERIOD)
        if self.metrics is not None:
            self._deletions.inc()
            self._latency.observe(max(0.0, (now - when).total_seconds()))
        return None

    async def _evict(self, cached: Obj) -> None:
        m = meta(cached)
        pod = await self.client.get(PODS, namespace=m.get("namespace"), name=text(m.get("name")))
        if meta(pod).get("uid") != m.get("uid") or meta(pod).get("deletionTimestamp"):
            return
        self.events.event(
            regarding=pod, type="Normal", reason="DeviceTaintManagerEviction",
            note="Marking for deletion",
        )
        await evict_pod(
            client=self.client,
            pod=pod,
            reason="DeletionByDeviceTaintManager",
            message="Device Taint manager: deleting due to NoExecute taint",
            now=self.clock.now(),
        )

    async def _sync_rule(self, name: str) -> Result | None:
        if self.rules is None:
            return None
        rule = self.rules.get(name)
        if rule is None:
            return None
        now = self.clock.now()
        generation = meta(rule).get("generation")
        conditions = [as_dict(c) for c in as_list(as_dict(rule.get("status")).get("conditions"))]
        existing = find_status_condition(conditions, "EvictionInProgress")
        if existing is not None and existing.get("observedGeneration") == generation:
            since = (now - parse_time(text(existing.get("lastTransitionTime")))).total_seconds()
            if since < RULE_STATUS_PERIOD:
                return Result(requeue_after=RULE_STATUS_PERIOD - since)
        condition = rule_condition(self, rule, now=now)
        if existing is not None and all(
            existing.get(k) == condition.get(k)
            for k in ("status", "reason", "message", "observedGeneration")
        ):
            return None
        updated = deep_copy(rule)
        updated["status"] = {
            **as_dict(updated.get("status")),
            "conditions": [c for c in conditions if c.get("type") != "EvictionInProgress"]
            + [condition],
        }
        await self.client.update_status(DEVICE_TAINT_RULES, body=updated)
        return None
