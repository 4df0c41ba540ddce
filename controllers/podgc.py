"""The pod garbage collector: pods no kubelet will ever finish, removed as upstream's PodGC does.

As ``pkg/controller/podgc``, a level-based pass every ``check_period`` (``gcCheckPeriod``, 20 s) on
the injected clock:

- **Orphaned pods.** A pod bound to a node that does not exist. The node name is quarantined
  first (``quarantineTime``, 40 s), then looked up once more from the API; if it is still
  missing, each of its pods is marked ``Failed`` with the condition ``DisruptionTarget=True``
  (reason ``DeletionByPodGC``, message ``PodGC: node no longer exists``) and force-deleted (grace
  period 0). Their claims are then released by the resourceclaim controller as for any pod gone.
- **Unscheduled terminating pods.** A pod being deleted that was never bound has no kubelet to
  finish it: marked ``Failed`` and force-deleted at once.
- **Terminating pods on out-of-service nodes** (non-graceful node shutdown, KEP-2268). A pod
  being deleted whose node is not ``Ready`` and carries the taint
  ``node.kubernetes.io/out-of-service`` (any effect) has no kubelet to finish it: marked
  ``Failed`` and force-deleted, in the order below.
- **Terminated pods beyond the threshold.** When more than ``terminated_pod_threshold``
  (``--terminated-pod-gc-threshold``, 12500) pods are ``Succeeded`` or ``Failed``, they are
  deleted down to it: evicted ones first, then the oldest (names break ties).

The status write is a server-side apply of ``status.phase`` and the condition by the field
manager ``PodGC``, forced, as upstream's; a pod already ``Succeeded`` or ``Failed`` is only
deleted. The passes run in upstream's order: terminated, terminating on out-of-service nodes,
orphaned, unscheduled terminating.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import NODES, PODS, Client, InformerFactory, is_not_found
from fakeapi.clock import Clock
from fakeapi.controllers.eviction import DISRUPTION_TARGET
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.rules.nodes import node_ready_status
from fakeapi.timefmt import format_time

__all__ = ["CHECK_PERIOD", "QUARANTINE_TIME", "TERMINATED_POD_THRESHOLD", "PodGCController"]

CHECK_PERIOD = 20.0
QUARANTINE_TIME = 40.0
TERMINATED_POD_THRESHOLD = 12500
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
FIELD_MANAGER = "PodGC"
_TERMINAL = ("Succeeded", "Failed")
_PASS = "gc"


class PodGCController(ControllerComponent):
    """Force-deletes orphaned pods, terminating pods no kubelet will finish, and old terminated
    ones."""

    name = "pod-garbage-collector-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        check_period: float = CHECK_PERIOD,
        quarantine_time: float = QUARANTINE_TIME,
        terminated_pod_threshold: int = TERMINATED_POD_THRESHOLD,
    ) -> None:
        self.client = client
        self.clock = clock
        self.check_period = check_period
        self.quarantine_time = quarantine_time
        self.terminated_pod_threshold = terminated_pod_threshold
        self.pods = informers.informer(PODS)
        self.nodes = informers.informer(NODES)
        self.informers = [self.pods, self.nodes]
        #: node names pods are bound to that no Node had, and since when (monotonic)
        self._missing_since: dict[str, float] = {}
        self.controller = Controller(
            name="pod_garbage_collector",
            reconcile=self.reconcile,
            clock=clock,
            workers=1,
            metrics=metrics,
        )

    def start(self) -> None:
        super().start()
        self.controller.enqueue(_PASS)

    async def reconcile(self, key: str) -> Result | None:
        pods = self.pods.list()
        await self._gc_terminated(pods)
        await self._gc_terminating_out_of_service(pods)
        await self._gc_orphaned(pods)
        await self._gc_unscheduled_terminating(pods)
        return Result(requeue_after=self.check_period)

    async def _gc_terminated(self, pods: list[Obj]) -> None:
        if self.terminated_pod_threshold <= 0:
            return
        terminated = [p for p in pods if as_dict(p.get("status")).get("phase") in _TERMINAL]
        excess = len(terminated) - self.terminated_pod_threshold
        if excess <= 0:
            return
        terminated.sort(key=_deletion_order)
        for pod in terminated[:excess]:
            await self._fail_and_delete(pod, condition=None)

    async def _gc_terminating_out_of_service(self, pods: list[Obj]) -> None:
        stranded = [
            pod
            for pod in pods
            if meta(pod).get("deletionTimestamp")
            and _out_of_service(self.nodes.get(text(as_dict(pod.get("spec")).get("nodeName"))))
        ]
        stranded.sort(key=_deletion_order)
        for pod in stranded:
            await self._fail_and_delete(pod, condition=None)

    async def _gc_orphaned(self, pods: list[Obj]) -> None:
        now = self.clock.monotonic()
        bound_to = {text(as_dict(p.get("spec")).get("nodeName")) for p in pods} - {""}
        missing = {name for name in bound_to if self.nodes.get(name) is None}
        for name in list(self._missing_since):
            if name not in missing:
                del self._missing_since[name]
        gone: set[str] = set()
        for name in missing:
            since = self._missing_since.setdefault(name, now)
            if now - since >= self.quarantine_time and await self._still_missing(name):
                gone.add(name)
        if not gone:
            return
        condition = {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": "DeletionByPodGC",
            "message": "PodGC: node no longer exists",
        }
        for pod in pods:
            if text(as_dict(pod.get("spec")).get("nodeName")) in gone:
                await self._fail_and_delete(pod, condition=condition)

    async def _still_missing(self, name: str) -> bool:
        """The informer says the node is gone; the API has the last word (as upstream asks)."""
        try:
            await self.client.get(NODES, name=name)
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        return False

    async def _gc_unscheduled_terminating(self, pods: list[Obj]) -> None:
        for pod in pods:
            if meta(pod).get("deletionTimestamp") and not as_dict(pod.get("spec")).get("nodeName"):
                await self._fail_and_delete(pod, condition=None)

    async def _fail_and_delete(self, pod: Obj, *, condition: dict[str, Any] | None) -> None:
        """Upstream's ``markFailedAndDeletePodWithCondition``: ``Failed`` (with ``condition``)
        unless already terminal, then a delete with grace period 0."""
        m = meta(pod)
        namespace, name = text(m.get("namespace")), text(m.get("name"))
        try:
            if as_dict(pod.get("status")).get("phase") not in _TERMINAL:
                status: dict[str, Any] = {"phase": "Failed"}
                if condition is not None:
                    status["conditions"] = [
                        {**condition, "lastTransitionTime": format_time(self.clock.now())}
                    ]
                await self.client.apply(
                    PODS,
                    body={
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {"name": name, "namespace": namespace},
                        "status": status,
                    },
                    subresource="status",
                    field_manager=FIELD_MANAGER,
                    force=True,
                )
            await self.client.delete(PODS, namespace=namespace, name=name, grace_period_seconds=0)
        except Exception as exc:
            if not is_not_found(exc):
                raise


def _out_of_service(node: Obj | None) -> bool:
    """Upstream's test: the node is not Ready and has the out-of-service taint (any effect)."""
    if node is None:
        return False
    taints = as_list(as_dict(node.get("spec")).get("taints"))
    return node_ready_status(node) != "True" and any(
        as_dict(taint).get("key") == OUT_OF_SERVICE for taint in taints
    )


def _deletion_order(pod: Obj) -> tuple[bool, str, str]:
    """Upstream's ``byEvictionAndCreationTimestamp``: evicted pods, then by age, then name."""
    evicted = as_dict(pod.get("status")).get("reason") == "Evicted"
    m = meta(pod)
    return (not evicted, text(m.get("creationTimestamp")), text(m.get("name")))
