"""The disruption controller: how many pods each PodDisruptionBudget lets go right now.

As upstream's ``pkg/controller/disruption``. Keys are ``namespace/name`` of budgets, queued by
their own changes and by every change of a pod they select. For a budget, from current state:

- **expected pods**: with an integer ``minAvailable``, the pods the selector matches; otherwise
  the scale of their controllers (a ReplicaSet's owning Deployment, else the ReplicaSet, a
  ReplicationController, a StatefulSet), each counted once. A selected pod without such a
  controller makes the sync fail (``SyncFailed``);
- **desired healthy**: ``minAvailable`` (a percentage of the expected pods, rounded up) or the
  expected pods less ``maxUnavailable`` (rounded up);
- **current healthy**: selected pods that are Ready, not being deleted and not recorded in
  ``status.disruptedPods`` (evictions the API server allowed that have not happened yet; an
  entry is dropped when its pod goes, or after two minutes);
- **disruptions allowed**: current less desired healthy, never below zero, and the
  ``DisruptionAllowed`` condition (``SufficientPods`` or ``InsufficientPods``).

The eviction subresource reads this status and takes a disruption from it
(:mod:`fakeapi.registry.kinds.pod_disruption`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    DEPLOYMENTS,
    NAMESPACE_INDEX,
    POD_DISRUPTION_BUDGETS,
    PODS,
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    STATEFUL_SETS,
    Client,
    InformerFactory,
)
from fakeapi.client.informer import namespace_index
from fakeapi.clock import Clock
from fakeapi.controllers.indexes import ensure_index
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, controller_ref, meta, object_key, text
from fakeapi.rules.conditions import set_status_condition
from fakeapi.rules.intstr import scaled_value
from fakeapi.rules.podutil import is_pod_ready
from fakeapi.selectors import LabelSelector, SelectorError, label_selector_from_api
from fakeapi.timefmt import parse_time

__all__ = ["DELETION_TIMEOUT", "DisruptionController"]

#: upstream's DeletionTimeout: how long an allowed eviction may take before it is forgotten
DELETION_TIMEOUT = 120.0
DISRUPTION_ALLOWED = "DisruptionAllowed"


class _SyncFailedError(Exception):
    """The budget's numbers cannot be worked out (a pod without a scalable controller)."""


def _budget_selector(budget: Obj) -> LabelSelector | None:
    """v1: no selector selects nothing, an empty one every pod of the namespace."""
    selector = as_dict(budget.get("spec")).get("selector")
    if selector is None:
        return None
    try:
        return label_selector_from_api(as_dict(selector))
    except (SelectorError, ValueError):
        return None


def _labels(obj: Obj) -> dict[str, str]:
    return {k: text(v) for k, v in as_dict(meta(obj).get("labels")).items()}


class DisruptionController(ControllerComponent):
    """Keeps PodDisruptionBudgets' status."""

    name = "disruption-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
    ) -> None:
        self.client = client
        self.clock = clock
        self.controller = Controller(
            name="disruption", reconcile=self.reconcile, clock=clock, workers=1, metrics=metrics
        )
        self.budgets = informers.informer(POD_DISRUPTION_BUDGETS)
        self.pods = informers.informer(PODS)
        self.scalers = {
            resource.kind: informers.informer(resource)
            for resource in (REPLICA_SETS, DEPLOYMENTS, REPLICATION_CONTROLLERS, STATEFUL_SETS)
        }
        ensure_index(self.budgets, NAMESPACE_INDEX, namespace_index)
        ensure_index(self.pods, NAMESPACE_INDEX, namespace_index)
        self.informers = [self.budgets, self.pods, *self.scalers.values()]
        self.controller.watch(self.budgets, on_delete=False)
        self.pods.add_handler(
            on_add=self._pod_changed,
            on_update=self._pod_updated,
            on_delete=self._pod_changed,
        )

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        self._pod_changed(old)
        self._pod_changed(new)

    def _pod_changed(self, pod: Obj) -> None:
        labels = _labels(pod)
        for budget in self.budgets.by_index(NAMESPACE_INDEX, text(meta(pod).get("namespace"))):
            selector = _budget_selector(budget)
            if selector is not None and selector.matches(labels):
                self.controller.enqueue(object_key(budget))

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        budget = self.budgets.get(key)
        if budget is None or meta(budget).get("deletionTimestamp"):
            return None
        namespace = text(meta(budget).get("namespace"))
        selector = _budget_selector(budget)
        pods = [] if selector is None else [
            p for p in self.pods.by_index(NAMESPACE_INDEX, namespace)
            if selector.matches(_labels(p))
        ]
        old = as_dict(budget.get("status"))
        now = self.clock.now()
        generation = meta(budget).get("generation", 0)
        try:
            expected, desired = self._expectations(budget, pods)
        except _SyncFailedError as failure:
            failed = dict(old)
            failed["observedGeneration"] = generation
            failed["disruptionsAllowed"] = 0
            failed["conditions"] = set_status_condition(
                old.get("conditions") or [], type=DISRUPTION_ALLOWED, status="False",
                reason="SyncFailed", message=str(failure), now=now,
                observed_generation=generation,
            )
            await self._write(budget, failed)
            return Result(requeue=True)
        disrupted, recheck = self._disrupted(old, pods, now)
        healthy = sum(
            1 for p in pods
            if is_pod_ready(p) and not meta(p).get("deletionTimestamp")
            and text(meta(p).get("name")) not in disrupted
        )
        allowed = max(healthy - desired, 0) if expected > 0 else 0
        status: dict[str, Any] = {"observedGeneration": generation}
        if disrupted:
            status["disruptedPods"] = disrupted
        status.update(disruptionsAllowed=allowed, currentHealthy=healthy, desiredHealthy=desired,
                      expectedPods=expected)
        reason = "SufficientPods" if allowed > 0 else "InsufficientPods"
        status["conditions"] = set_status_condition(
            old.get("conditions") or [], type=DISRUPTION_ALLOWED,
            status="True" if allowed > 0 else "False", reason=reason, message="", now=now,
            observed_generation=generation,
        )
        await self._write(budget, status)
        return Result(requeue_after=recheck) if recheck is not None else None

    async def _write(self, budget: Obj, status: dict[str, Any]) -> None:
        if status != as_dict(budget.get("status")):
            await self.client.update_status(POD_DISRUPTION_BUDGETS,
                                            body={**budget, "status": status})

    def _disrupted(
        self, old: Mapping[str, Any], pods: list[Obj], now: Any
    ) -> tuple[dict[str, str], float | None]:
        """``buildDisruptedPodMap``: the entries still pending, and when the first expires."""
        by_name = {text(meta(p).get("name")): p for p in pods}
        kept: dict[str, str] = {}
        recheck: float | None = None
        for name, stamp in as_dict(old.get("disruptedPods")).items():
            pod = by_name.get(name)
            if pod is None or meta(pod).get("deletionTimestamp"):
                continue
            try:
                expires = parse_time(text(stamp)) + timedelta(seconds=DELETION_TIMEOUT)
            except ValueError:
                continue
            left = (expires - now) / timedelta(seconds=1)
            if left <= 0:
                continue
            kept[name] = text(stamp)
            recheck = left if recheck is None else min(recheck, left)
        return kept, recheck

    def _expectations(self, budget: Obj, pods: list[Obj]) -> tuple[int, int]:
        """(expected pods, desired healthy pods)."""
        spec = as_dict(budget.get("spec"))
        max_unavailable = spec.get("maxUnavailable")
        min_available = spec.get("minAvailable")
        if max_unavailable is not None:
            expected = self._expected_scale(pods)
            try:
                unavailable = scaled_value(max_unavailable, expected, round_up=True)
            except ValueError as err:
                raise _SyncFailedError(str(err)) from err
            return expected, max(expected - unavailable, 0)
        if isinstance(min_available, int):
            return len(pods), min_available
        if min_available is not None:
            expected = self._expected_scale(pods)
            try:
                return expected, scaled_value(min_available, expected, round_up=True)
            except ValueError as err:
                raise _SyncFailedError(str(err)) from err
        return len(pods), 0

    def _expected_scale(self, pods: list[Obj]) -> int:
        """``getExpectedScale``: the summed scale of the pods' controllers, each once."""
        scales: dict[str, int] = {}
        for pod in pods:
            found = self._controller_scale(pod)
            if found is None:
                name = text(meta(pod).get("name"))
                raise _SyncFailedError(f'found no controllers for pod "{name}"')
            uid, replicas = found
            scales[uid] = replicas
        return sum(scales.values())

    def _controller_scale(self, pod: Obj) -> tuple[str, int] | None:
        ref = controller_ref(pod)
        if ref is None:
            return None
        namespace = text(meta(pod).get("namespace"))
        kind = text(ref.get("kind"))
        informer = self.scalers.get(kind)
        if informer is None:
            return None
        owner = informer.get(f"{namespace}/{text(ref.get('name'))}")
        if owner is None or meta(owner).get("uid") != ref.get("uid"):
            return None
        if kind == "ReplicaSet":
            parent = controller_ref(owner)
            if parent is not None and parent.get("kind") == "Deployment":
                deployment = self.scalers["Deployment"].get(
                    f"{namespace}/{text(parent.get('name'))}"
                )
                if deployment is not None and meta(deployment).get("uid") == parent.get("uid"):
                    owner = deployment
        replicas = as_dict(owner.get("spec")).get("replicas")
        return text(meta(owner).get("uid")), replicas if isinstance(replicas, int) else 1
