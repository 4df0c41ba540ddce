"""The ReplicaSet and ReplicationController controllers: keep N pods matching a selector.

As upstream's ``pkg/controller/replicaset`` (whose ReplicationController controller is the same
code over the older kind): keys are ``namespace/name`` of the owners, queued by their own
changes and by every change of a pod they control (or, for an orphan, might adopt). A reconcile,
from current state:

1. claims the namespace's active pods (adopting orphans the selector matches, releasing pods it
   no longer matches; :func:`~fakeapi.controllers.podcontrol.claim`);
2. when its expectations are satisfied (:mod:`~fakeapi.controllers.expectations`), creates the
   missing pods from the template in slow-start batches, or deletes the surplus, cheapest first
   (:mod:`~fakeapi.controllers.podranking`), at most 500 per reconcile;
3. writes the status: ``replicas``, ``fullyLabeledReplicas``, ``readyReplicas``,
   ``availableReplicas`` (ready for ``minReadySeconds``), ``terminatingReplicas``,
   ``observedGeneration`` and a ``ReplicaFailure`` condition while creates or deletes fail;
4. comes back after ``minReadySeconds`` when pods are ready but not yet available.

Events are upstream's (``SuccessfulCreate``, ``SuccessfulDelete``, ``FailedCreate``...), from
the component ``replicaset-controller`` (``replication-controller`` for the older kind).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    NAMESPACE_INDEX,
    PODS,
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    Resource,
)
from fakeapi.client.informer import namespace_index
from fakeapi.clock import Clock
from fakeapi.controllers.expectations import ControllerExpectations
from fakeapi.controllers.indexes import ensure_index
from fakeapi.controllers.podcontrol import (
    PodControl,
    claim,
    pod_from_template,
    pods_prefix,
    slow_start_batch,
)
from fakeapi.controllers.podranking import pods_to_delete
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, controller_ref, deep_copy, meta, object_key, text
from fakeapi.rules.conditions import find_status_condition
from fakeapi.rules.controllerref import new_controller_ref
from fakeapi.rules.podutil import (
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    is_pod_terminating,
)
from fakeapi.selectors import LabelSelector, SelectorError, label_selector_from_api
from fakeapi.timefmt import format_time

__all__ = ["BURST_REPLICAS", "ReplicaSetController", "ReplicationControllerController"]

#: upstream's BurstReplicas: creations or deletions per reconcile
BURST_REPLICAS = 500
REPLICA_FAILURE = "ReplicaFailure"


class ReplicaSetController(ControllerComponent):
    """Keeps each ReplicaSet's pods at ``spec.replicas``."""

    name = "replicaset-controller"
    resource: ClassVar[Resource] = REPLICA_SETS
    owner_api_version: ClassVar[str] = "apps/v1"
    event_component: ClassVar[str] = "replicaset-controller"

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
        self.clock = clock
        self.events = LegacyEventRecorder(client, component=self.event_component, clock=clock)
        self.pod_control = PodControl(client, self.events)
        self.expectations = ControllerExpectations(clock=clock)
        self.controller = Controller(
            name=self.resource.plural, reconcile=self.reconcile, clock=clock, workers=workers,
            metrics=metrics,
        )
        self.owners = informers.informer(self.resource)
        self.pods = informers.informer(PODS)
        ensure_index(self.owners, NAMESPACE_INDEX, namespace_index)
        ensure_index(self.pods, NAMESPACE_INDEX, namespace_index)
        self.informers = [self.owners, self.pods]
        self.owners.add_handler(
            on_add=self._owner_changed,
            on_update=lambda _old, new: self._owner_changed(new),
            on_delete=self._owner_deleted,
        )
        self.pods.add_handler(
            on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._pod_deleted
        )

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    # --- the kind ----------------------------------------------------------------------------
    def selector_of(self, owner: Obj) -> LabelSelector:
        """The owner's pod selector (raises SelectorError when it does not parse)."""
        return label_selector_from_api(as_dict(as_dict(owner.get("spec")).get("selector")))

    # --- event handlers ------------------------------------------------------------------------
    def _owner_changed(self, owner: Obj) -> None:
        self.controller.enqueue(object_key(owner))

    def _owner_deleted(self, owner: Obj) -> None:
        key = object_key(owner)
        self.expectations.forget(key)
        self.controller.enqueue(key)

    def _controller_of(self, pod: Obj) -> str | None:
        """The key of the owner of this kind that controls ``pod`` (same uid), if cached."""
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != self.resource.kind:
            return None
        key = f"{text(meta(pod).get('namespace'))}/{text(ref.get('name'))}"
        owner = self.owners.get(key)
        if owner is None or meta(owner).get("uid") != ref.get("uid"):
            return None
        return key

    def _enqueue_matching(self, pod: Obj) -> None:
        """An orphan: every owner in its namespace whose selector matches may adopt it."""
        labels = {k: text(v) for k, v in as_dict(meta(pod).get("labels")).items()}
        for owner in self.owners.by_index(NAMESPACE_INDEX, text(meta(pod).get("namespace"))):
            try:
                selector = self.selector_of(owner)
            except (SelectorError, ValueError):
                continue
            if not selector.empty and selector.matches(labels):
                self.controller.enqueue(object_key(owner))

    def _pod_added(self, pod: Obj) -> None:
        if meta(pod).get("deletionTimestamp"):
            self._pod_deleted(pod)
            return
        key = self._controller_of(pod)
        if key is not None:
            self.expectations.creation_observed(key)
            self.controller.enqueue(key)
        elif controller_ref(pod) is None:
            self._enqueue_matching(pod)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        if meta(new).get("deletionTimestamp") and not meta(old).get("deletionTimestamp"):
            key = self._controller_of(new)
            if key is not None:
                self.expectations.deletion_observed(key, object_key(new))
        old_key, new_key = self._controller_of(old), self._controller_of(new)
        if old_key is not None and old_key != new_key:
            self.controller.enqueue(old_key)
        if new_key is not None:
            self.controller.enqueue(new_key)
            if not is_pod_ready(old) and is_pod_ready(new):
                owner = self.owners.get(new_key)
                delay = as_dict(as_dict(owner).get("spec")).get("minReadySeconds") or 0
                if isinstance(delay, int) and delay > 0:
                    self.controller.enqueue_after(new_key, delay + 1)
        elif controller_ref(new) is None and (
            meta(old).get("labels") != meta(new).get("labels") or controller_ref(old) is not None
        ):
            self._enqueue_matching(new)

    def _pod_deleted(self, pod: Obj) -> None:
        key = self._controller_of(pod)
        if key is not None:
            self.expectations.deletion_observed(key, object_key(pod))
            self.controller.enqueue(key)

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        owner = self.owners.get(key)
        if owner is None:
            self.expectations.forget(key)
            return None
        needs_sync = self.expectations.satisfied(key)
        try:
            selector = self.selector_of(owner)
        except (SelectorError, ValueError):
            return None  # validation keeps bad selectors out; nothing to act on
        namespace = text(meta(owner).get("namespace"))
        all_pods = self.pods.by_index(NAMESPACE_INDEX, namespace)
        owner_ref = new_controller_ref(
            owner, api_version=self.owner_api_version, kind=self.resource.kind
        )
        owner_uid = text(meta(owner).get("uid"))

        def matches(labels: Mapping[str, str]) -> bool:
            return not selector.empty and selector.matches(labels)

        pods = await claim(
            self.client, PODS, owner=owner, owner_ref=owner_ref,
            candidates=[p for p in all_pods if is_pod_active(p)], matches=matches,
            owner_resource=self.resource,
        )
        terminating = [
            p for p in all_pods
            if is_pod_terminating(p) and as_dict(controller_ref(p)).get("uid") == owner_uid
        ]
        error: tuple[str, str] | None = None
        if needs_sync and not meta(owner).get("deletionTimestamp"):
            error = await self._manage_replicas(key, owner, pods, owner_ref)
        status = self._status(owner, pods, terminating, error)
        updated = await self._write_status(owner, status)
        spec = as_dict(updated.get("spec"))
        min_ready = spec.get("minReadySeconds") or 0
        replicas = spec.get("replicas", 1)
        if (
            error is None
            and isinstance(min_ready, int)
            and min_ready > 0
            and status.get("readyReplicas") == replicas
            and status.get("availableReplicas") != replicas
        ):
            return Result(requeue_after=float(min_ready))
        return Result(requeue=True) if error is not None else None

    async def _manage_replicas(
        self, key: str, owner: Obj, pods: list[Obj], owner_ref: dict[str, Any]
    ) -> tuple[str, str] | None:
        """Create or delete pods towards ``spec.replicas``; (reason, message) of a failure."""
        spec = as_dict(owner.get("spec"))
        replicas = spec.get("replicas", 1)
        if not isinstance(replicas, int):
            return None
        diff = len(pods) - replicas
        namespace = text(meta(owner).get("namespace"))
        if diff < 0:
            wanted = min(-diff, BURST_REPLICAS)
            self.expectations.expect(key, creations=wanted)
            template = as_dict(spec.get("template"))
            prefix = pods_prefix(text(meta(owner).get("name")))

            async def create(_index: int) -> None:
                pod = pod_from_template(
                    template, namespace=namespace, owner_ref=owner_ref, generate_name=prefix
                )
                await self.pod_control.create(pod, owner=owner)

            done, failure = await slow_start_batch(wanted, create)
            if done < wanted:
                self.expectations.lower(key, creations=wanted - done)
            if failure is not None:
                return "FailedCreate", str(getattr(failure, "message", failure))
            return None
        if diff > 0:
            victims = pods_to_delete(pods, min(diff, BURST_REPLICAS))
            self.expectations.expect(key, deletions={object_key(p) for p in victims})
            results = await asyncio.gather(
                *(self.pod_control.delete(p, owner=owner) for p in victims),
                return_exceptions=True,
            )
            failure = None
            for pod, result in zip(victims, results, strict=True):
                if isinstance(result, BaseException):
                    self.expectations.lower(key, deletion=object_key(pod))
                    failure = failure or result
            if failure is not None:
                return "FailedDelete", str(getattr(failure, "message", failure))
        return None

    def _status(
        self, owner: Obj, pods: list[Obj], terminating: list[Obj], error: tuple[str, str] | None
    ) -> dict[str, Any]:
        spec = as_dict(owner.get("spec"))
        min_ready = spec.get("minReadySeconds") or 0
        now = self.clock.now()
        template_labels = {
            k: text(v)
            for k, v in as_dict(as_dict(as_dict(spec.get("template")).get("metadata")).get(
                "labels")).items()
        }
        fully_labeled = sum(
            1 for p in pods
            if all(as_dict(meta(p).get("labels")).get(k) == v for k, v in template_labels.items())
        )
        ready = sum(1 for p in pods if is_pod_ready(p))
        available = sum(
            1 for p in pods
            if is_pod_available(p, min_ready_seconds=int(min_ready), now=now)
        )
        old = as_dict(owner.get("status"))
        status: dict[str, Any] = {
            "replicas": len(pods),
            "fullyLabeledReplicas": fully_labeled,
            "readyReplicas": ready,
            "availableReplicas": available,
            "terminatingReplicas": len(terminating),
            "observedGeneration": meta(owner).get("generation", 0),
        }
        conditions = [dict(c) for c in old.get("conditions") or [] if isinstance(c, dict)]
        current = find_status_condition(conditions, REPLICA_FAILURE)
        if error is not None:
            reason, message = error
            if current is None or (current.get("reason"), current.get("message")) != error:
                conditions = [c for c in conditions if c.get("type") != REPLICA_FAILURE]
                conditions.append({
                    "type": REPLICA_FAILURE, "status": "True",
                    "lastTransitionTime": format_time(now), "reason": reason, "message": message,
                })
        elif current is not None:
            conditions = [c for c in conditions if c.get("type") != REPLICA_FAILURE]
        if conditions:
            status["conditions"] = conditions
        return status

    async def _write_status(self, owner: Obj, status: dict[str, Any]) -> Obj:
        if as_dict(owner.get("status")) == status:
            return owner
        body = deep_copy(owner)
        body["status"] = status
        return await self.client.update_status(self.resource, body=body)


class ReplicationControllerController(ReplicaSetController):
    """The same for ReplicationControllers, whose selector is a label map."""

    name = "replicationcontroller-controller"
    resource = REPLICATION_CONTROLLERS
    owner_api_version = "v1"
    event_component = "replication-controller"

    def selector_of(self, owner: Obj) -> LabelSelector:
        selector = as_dict(as_dict(owner.get("spec")).get("selector"))
        return label_selector_from_api({"matchLabels": selector})
