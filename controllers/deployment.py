"""The Deployment controller: ReplicaSets per pod template, rolled out as the strategy says.

As upstream's ``pkg/controller/deployment``. Keys are ``namespace/name`` of Deployments, queued
by their own changes, by changes of the ReplicaSets they own (or might adopt), and — for the
Recreate strategy — by the deletion of their pods. A reconcile, from current state:

1. claims the namespace's ReplicaSets its selector matches (adopting and releasing as a
   ReplicaSet controller claims pods); an empty selector selects nothing and is reported
   (``SelectingAll``);
2. a Deployment being deleted only has its status brought up to date;
3. records ``DeploymentPaused``/``DeploymentResumed`` in the Progressing condition;
4. paused, or only the desired count changed: resizes the ReplicaSets proportionally
   (:mod:`~fakeapi.controllers.deployment_rollout`);
5. otherwise rolls out: finds or creates the new ReplicaSet ``<deployment>-<pod-template-hash>``
   (the hash of the template and ``status.collisionCount``; a name taken by another template
   bumps the collision count), keeps the revision annotations on it and on the Deployment, and
   sizes the new and old ReplicaSets as RollingUpdate or Recreate allow; once complete, deletes
   the old empty ReplicaSets beyond ``revisionHistoryLimit``;
6. writes the status and the ``Available``/``Progressing`` conditions with upstream's reasons,
   and comes back when the progress deadline would pass (``ProgressDeadlineExceeded``).

``kubectl rollout undo`` needs nothing here: it writes an old ReplicaSet's template back into
the Deployment, which then finds that ReplicaSet as its new one and gives it the next revision.
Events are upstream's ``ScalingReplicaSet`` ("Scaled up replica set web-5d8f7c9b6 from 0 to
3"), from the component ``deployment-controller``.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    DEPLOYMENTS,
    NAMESPACE_INDEX,
    PODS,
    REPLICA_SETS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    is_already_exists,
    is_not_found,
)
from fakeapi.client.informer import namespace_index
from fakeapi.clock import Clock
from fakeapi.controllers import deployment_util as du
from fakeapi.controllers.deployment_rollout import (
    Plan,
    new_replica_set_size,
    plan_old_scale_down,
    plan_proportional_scale,
)
from fakeapi.controllers.indexes import OWNER_UID_INDEX, ensure_index
from fakeapi.controllers.podcontrol import claim
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.errors import StatusError
from fakeapi.objects import (
    Obj,
    as_dict,
    controller_ref,
    deep_copy,
    meta,
    object_key,
    owner_uids,
    text,
)
from fakeapi.rules.controllerref import new_controller_ref
from fakeapi.rules.podutil import is_pod_terminal
from fakeapi.rules.templatehash import POD_TEMPLATE_HASH_LABEL, equal_ignore_hash, template_hash
from fakeapi.selectors import LabelSelector, SelectorError, label_selector_from_api

__all__ = ["DeploymentController"]

_APPS_V1 = "apps/v1"


class DeploymentController(ControllerComponent):
    """Rolls Deployments out through their ReplicaSets."""

    name = "deployment-controller"

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
        self.events = LegacyEventRecorder(client, component="deployment-controller", clock=clock)
        self.controller = Controller(
            name="deployment", reconcile=self.reconcile, clock=clock, workers=workers,
            metrics=metrics,
        )
        self.deployments = informers.informer(DEPLOYMENTS)
        self.replica_sets = informers.informer(REPLICA_SETS)
        self.pods = informers.informer(PODS)
        for informer in (self.deployments, self.replica_sets):
            ensure_index(informer, NAMESPACE_INDEX, namespace_index)
        ensure_index(self.pods, OWNER_UID_INDEX, owner_uids)
        self.informers = [self.deployments, self.replica_sets, self.pods]
        self.controller.watch(self.deployments)
        self.replica_sets.add_handler(
            on_add=self._rs_changed,
            on_update=self._rs_updated,
            on_delete=self._rs_changed,
        )
        self.pods.add_handler(on_delete=self._pod_deleted)

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    # --- event handlers ------------------------------------------------------------------------
    def _owner_key(self, rs: Obj) -> str | None:
        ref = controller_ref(rs)
        if ref is None or ref.get("kind") != "Deployment":
            return None
        key = f"{text(meta(rs).get('namespace'))}/{text(ref.get('name'))}"
        deployment = self.deployments.get(key)
        if deployment is None or meta(deployment).get("uid") != ref.get("uid"):
            return None
        return key

    def _rs_changed(self, rs: Obj) -> None:
        key = self._owner_key(rs)
        if key is not None:
            self.controller.enqueue(key)
        elif controller_ref(rs) is None:
            labels = {k: text(v) for k, v in as_dict(meta(rs).get("labels")).items()}
            namespace = text(meta(rs).get("namespace"))
            for deployment in self.deployments.by_index(NAMESPACE_INDEX, namespace):
                selector = _selector(deployment)
                if selector is not None and not selector.empty and selector.matches(labels):
                    self.controller.enqueue(object_key(deployment))

    def _rs_updated(self, old: Obj, new: Obj) -> None:
        old_key = self._owner_key(old)
        if old_key is not None and old_key != self._owner_key(new):
            self.controller.enqueue(old_key)
        self._rs_changed(new)

    def _pod_deleted(self, pod: Obj) -> None:
        """A Recreate rollout waits for the old pods to go."""
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.replica_sets.get(f"{text(meta(pod).get('namespace'))}/{text(ref.get('name'))}")
        if rs is None:
            return
        key = self._owner_key(rs)
        deployment = self.deployments.get(key) if key is not None else None
        if deployment is not None and not du.is_rolling_update(deployment):
            self.controller.enqueue(object_key(deployment))

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        cached = self.deployments.get(key)
        if cached is None:
            return None
        d = deep_copy(cached)
        selector = _selector(d)
        if selector is None or selector.empty:
            self.events.event(regarding=d, type="Warning", reason="SelectingAll",
                              note="This deployment is selecting all pods. A non-empty selector "
                              "is required.")
            status = as_dict(d.get("status"))
            if (status.get("observedGeneration") or 0) < (meta(d).get("generation") or 0):
                d["status"] = {**status, "observedGeneration": meta(d).get("generation")}
                await self.client.update_status(DEPLOYMENTS, body=d)
            return None
        sets = await self._claim_replica_sets(d, selector)
        if meta(d).get("deletionTimestamp"):
            new_rs, old_sets, d = await self._all_replica_sets(d, sets, create=False)
            await self._sync_status(d, _with(old_sets, new_rs), new_rs)
            return None
        d = await self._check_paused(d)
        spec = as_dict(d.get("spec"))
        if spec.get("paused") is True or self._is_scaling_event(d, sets):
            return await self._sync(d, sets)
        if du.is_rolling_update(d):
            return await self._rollout_rolling(d, sets)
        return await self._rollout_recreate(d, sets)

    async def _claim_replica_sets(self, d: Obj, selector: LabelSelector) -> list[Obj]:
        namespace = text(meta(d).get("namespace"))
        return await claim(
            self.client, REPLICA_SETS, owner=d,
            owner_ref=new_controller_ref(d, api_version=_APPS_V1, kind="Deployment"),
            candidates=self.replica_sets.by_index(NAMESPACE_INDEX, namespace),
            matches=lambda labels: selector.matches(labels),
            owner_resource=DEPLOYMENTS,
        )

    async def _update_status(self, d: Obj) -> Obj:
        """Write ``d``'s status (and annotations, which a Deployment's status write keeps)."""
        return await self.client.update_status(DEPLOYMENTS, body=d)

    async def _check_paused(self, d: Obj) -> Obj:
        """``checkPausedConditions``: say in the Progressing condition that the rollout is
        paused or resumed (never over a reported timeout)."""
        if not du.has_progress_deadline(d):
            return d
        status = as_dict(d.get("status"))
        current = du.condition(status, du.PROGRESSING)
        if current is not None and current.get("reason") == du.TIMED_OUT_REASON:
            return d
        paused = as_dict(d.get("spec")).get("paused") is True
        paused_recorded = current is not None and current.get("reason") == du.PAUSED_REASON
        if paused == paused_recorded:
            return d
        status = dict(status)
        reason, message = (
            (du.PAUSED_REASON, "Deployment is paused") if paused
            else (du.RESUMED_REASON, "Deployment is resumed")
        )
        du.set_condition(status, du.new_condition(
            du.PROGRESSING, "Unknown", reason, message, self.clock.now()
        ))
        d["status"] = status
        return await self._update_status(d)

    def _is_scaling_event(self, d: Obj, sets: Sequence[Obj]) -> bool:
        """``isScalingEvent``: an active ReplicaSet was sized for another desired count."""
        desired = du.desired_replicas(d)
        for rs in du.active_replica_sets(sets):
            annotated = du.annotation_int(rs, du.DESIRED_REPLICAS_ANNOTATION)
            if annotated is not None and annotated != desired:
                return True
        return False

    # --- the new ReplicaSet --------------------------------------------------------------------
    async def _all_replica_sets(
        self, d: Obj, sets: list[Obj], *, create: bool
    ) -> tuple[Obj | None, list[Obj], Obj]:
        """``getAllReplicaSetsAndSyncRevision``: (new ReplicaSet or None, the old ones, the
        Deployment as last written)."""
        found = du.find_new_replica_set(d, sets)
        old_sets = [rs for rs in sets if found is None or rs is not found]
        new_rs, d = await self._new_replica_set(d, sets, old_sets, found, create=create)
        return new_rs, old_sets, d

    async def _new_replica_set(
        self, d: Obj, sets: list[Obj], old_sets: list[Obj], found: Obj | None, *, create: bool
    ) -> tuple[Obj | None, Obj]:
        new_revision = du.max_revision(old_sets) + 1
        spec = as_dict(d.get("spec"))
        status = dict(as_dict(d.get("status")))
        now = self.clock.now()
        if found is not None:
            rs = deep_copy(found)
            changed = du.set_new_replica_set_annotations(d, rs, new_revision, exists=True)
            rs_spec = rs.setdefault("spec", {})
            min_ready = spec.get("minReadySeconds", 0) or 0
            if changed or (rs_spec.get("minReadySeconds") or 0) != min_ready:
                rs_spec["minReadySeconds"] = min_ready
                updated = await self.client.update(REPLICA_SETS, body=rs)
                _replace(sets, found, updated)
                return updated, d
            needs_update = _set_deployment_revision(d, du.revision(rs))
            if du.has_progress_deadline(d) and du.condition(status, du.PROGRESSING) is None:
                du.set_condition(status, du.new_condition(
                    du.PROGRESSING, "True", du.FOUND_NEW_RS_REASON,
                    f'Found new replica set "{text(meta(rs).get("name"))}"', now,
                ))
                d["status"] = status
                needs_update = True
            if needs_update:
                d = await self._update_status(d)
            return rs, d
        if not create:
            return None, d
        template = deep_copy(as_dict(spec.get("template")))
        collisions = status.get("collisionCount")
        pod_hash = template_hash(template, collisions if isinstance(collisions, int) else None)
        template_meta = template.setdefault("metadata", {})
        labels = {**as_dict(template_meta.get("labels")), POD_TEMPLATE_HASH_LABEL: pod_hash}
        template_meta["labels"] = labels
        selector = deep_copy(as_dict(spec.get("selector")))
        selector["matchLabels"] = {
            **as_dict(selector.get("matchLabels")), POD_TEMPLATE_HASH_LABEL: pod_hash
        }
        name = f"{text(meta(d).get('name'))}-{pod_hash}"
        namespace = text(meta(d).get("namespace"))
        new_rs: Obj = {
            "apiVersion": _APPS_V1,
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "ownerReferences": [
                    new_controller_ref(d, api_version=_APPS_V1, kind="Deployment")
                ],
                "labels": dict(labels),
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": spec.get("minReadySeconds", 0) or 0,
                "selector": selector,
                "template": template,
            },
        }
        size = new_replica_set_size(d, [*old_sets, new_rs], new_rs)
        new_rs["spec"]["replicas"] = size
        du.set_new_replica_set_annotations(d, new_rs, new_revision, exists=False)
        existed = False
        try:
            created = await self.client.create(REPLICA_SETS, body=new_rs)
        except StatusError as exc:
            if not is_already_exists(exc):
                return await self._failed_create(d, name, exc)
            existed = True
            found = self.replica_sets.get(f"{namespace}/{name}")
            if found is None:
                raise
            ref = controller_ref(found)
            if (
                ref is None
                or ref.get("uid") != meta(d).get("uid")
                or not equal_ignore_hash(as_dict(spec.get("template")),
                                         as_dict(as_dict(found.get("spec")).get("template")))
            ):
                status["collisionCount"] = (collisions if isinstance(collisions, int) else 0) + 1
                d["status"] = status
                await self._update_status(d)
                raise
            created = found
        if not existed and size > 0:
            self.events.event(regarding=d, type="Normal", reason="ScalingReplicaSet",
                              note=f"Scaled up replica set {name} from 0 to {size}")
        needs_update = _set_deployment_revision(d, new_revision)
        if not existed and du.has_progress_deadline(d):
            du.set_condition(status, du.new_condition(
                du.PROGRESSING, "True", du.NEW_RS_REASON, f'Created new replica set "{name}"',
                now,
            ))
            d["status"] = status
            needs_update = True
        if needs_update:
            d = await self._update_status(d)
        sets.append(created)
        return created, d

    async def _failed_create(self, d: Obj, name: str, exc: StatusError) -> tuple[None, Obj]:
        causes = as_dict(exc.status().get("details")).get("causes") or []
        if any(as_dict(c).get("reason") == "NamespaceTerminating" for c in causes):
            raise exc
        message = f'Failed to create new replica set "{name}": {exc.message}'
        if du.has_progress_deadline(d):
            status = dict(as_dict(d.get("status")))
            du.set_condition(status, du.new_condition(
                du.PROGRESSING, "False", du.FAILED_RS_CREATE_REASON, message, self.clock.now()
            ))
            d["status"] = status
            with contextlib.suppress(StatusError):  # the create's error is the bigger issue
                await self._update_status(d)
        self.events.event(regarding=d, type="Warning", reason=du.FAILED_RS_CREATE_REASON,
                          note=message)
        raise exc

    # --- scaling -------------------------------------------------------------------------------
    async def _scale(self, rs: Obj, size: int, d: Obj, operation: str = "") -> tuple[bool, Obj]:
        """``scaleReplicaSetAndRecordEvent``: resize ``rs`` and refresh its replica
        annotations; (whether the size changed, the ReplicaSet as written)."""
        old_size = du.replicas_of(rs)
        desired = du.desired_replicas(d)
        copy = deep_copy(rs)
        copy.setdefault("spec", {})["replicas"] = size
        annotations_changed = du.set_replicas_annotations(
            copy, desired, desired + du.max_surge(d)
        )
        if old_size == size and not annotations_changed:
            return False, rs
        updated = await self.client.update(REPLICA_SETS, body=copy)
        if old_size != size:
            operation = operation or ("up" if size > old_size else "down")
            self.events.event(
                regarding=d, type="Normal", reason="ScalingReplicaSet",
                note=f"Scaled {operation} replica set {text(meta(rs).get('name'))} from "
                f"{old_size} to {size}",
            )
        return old_size != size, updated

    async def _apply(self, plan: Plan, sets: list[Obj], d: Obj, operation: str = "") -> bool:
        """Write a plan's sizes; whether any ReplicaSet changed size."""
        by_name = {text(meta(rs).get("name")): rs for rs in sets}
        scaled = False
        for name, size in plan:
            rs = by_name[name]
            changed, updated = await self._scale(rs, size, d, operation)
            scaled = scaled or changed
            _replace(sets, rs, updated)
            by_name[name] = updated
        return scaled

    # --- strategies ----------------------------------------------------------------------------
    async def _sync(self, d: Obj, sets: list[Obj]) -> Result | None:
        """``sync``: proportional scaling (paused, or a desired count change)."""
        new_rs, old_sets, d = await self._all_replica_sets(d, sets, create=False)
        plan, operation = plan_proportional_scale(d, new_rs, old_sets)
        everything = _with(old_sets, new_rs)
        await self._apply(plan, everything, d, operation)
        new_rs, old_sets = _split(everything, new_rs)
        if as_dict(d.get("spec")).get("paused") is True:
            await self._cleanup(d, old_sets)
        await self._sync_status(d, everything, new_rs)
        return None

    async def _rollout_rolling(self, d: Obj, sets: list[Obj]) -> Result | None:
        new_rs, old_sets, d = await self._all_replica_sets(d, sets, create=True)
        everything = _with(old_sets, new_rs)
        if new_rs is not None:
            desired = du.desired_replicas(d)
            current = du.replicas_of(new_rs)
            size = desired if current > desired else new_replica_set_size(d, everything, new_rs)
            if size != current:
                changed, new_rs = await self._scale(new_rs, size, d)
                everything = _with(old_sets, new_rs)
                if changed:
                    return await self._sync_rollout_status(d, everything, new_rs)
        plan = plan_old_scale_down(
            d, all_sets=everything, old_sets=du.active_replica_sets(old_sets), new_rs=new_rs
        )
        if plan and await self._apply(plan, everything, d, "down"):
            new_rs, old_sets = _split(everything, new_rs)
            return await self._sync_rollout_status(d, everything, new_rs)
        new_rs, old_sets = _split(everything, new_rs)
        if du.deployment_complete(d, as_dict(d.get("status"))):
            await self._cleanup(d, old_sets)
        return await self._sync_rollout_status(d, everything, new_rs)

    async def _rollout_recreate(self, d: Obj, sets: list[Obj]) -> Result | None:
        new_rs, old_sets, d = await self._all_replica_sets(d, sets, create=False)
        everything = _with(old_sets, new_rs)
        plan = [(text(meta(rs).get("name")), 0) for rs in du.active_replica_sets(old_sets)]
        if plan and await self._apply(plan, everything, d, "down"):
            new_rs, old_sets = _split(everything, new_rs)
            return await self._sync_rollout_status(d, everything, new_rs)
        new_rs, old_sets = _split(everything, new_rs)
        if self._old_pods_running(new_rs, old_sets):
            return await self._sync_rollout_status(d, everything, new_rs)
        if new_rs is None:
            new_rs, old_sets, d = await self._all_replica_sets(d, sets, create=True)
            everything = _with(old_sets, new_rs)
        if new_rs is not None:
            _, new_rs = await self._scale(new_rs, du.desired_replicas(d), d)
            everything = _with(old_sets, new_rs)
        if du.deployment_complete(d, as_dict(d.get("status"))):
            await self._cleanup(d, old_sets)
        return await self._sync_rollout_status(d, everything, new_rs)

    def _old_pods_running(self, new_rs: Obj | None, old_sets: Sequence[Obj]) -> bool:
        """``oldPodsRunning``: old ReplicaSets report pods, or any of their pods is not
        finished."""
        if du.status_replicas_total(old_sets) > 0:
            return True
        for rs in old_sets:
            uid = text(meta(rs).get("uid"))
            for pod in self.pods.by_index(OWNER_UID_INDEX, uid):
                if as_dict(controller_ref(pod)).get("uid") == uid and not is_pod_terminal(pod):
                    return True
        return False

    async def _cleanup(self, d: Obj, old_sets: Sequence[Obj]) -> None:
        """``cleanupDeployment``: delete empty old ReplicaSets beyond the history limit,
        lowest revision first."""
        limit = as_dict(d.get("spec")).get("revisionHistoryLimit")
        if not isinstance(limit, int):
            return
        alive = [rs for rs in old_sets if not meta(rs).get("deletionTimestamp")]
        excess = len(alive) - limit
        if excess <= 0:
            return
        alive.sort(key=lambda rs: (du.revision(rs), text(meta(rs).get("creationTimestamp"))))
        for rs in alive[:excess]:
            status = as_dict(rs.get("status"))
            if (
                (status.get("replicas") or 0) != 0
                or du.replicas_of(rs) != 0
                or (meta(rs).get("generation") or 0) > (status.get("observedGeneration") or 0)
            ):
                continue
            try:
                await self.client.delete(
                    REPLICA_SETS, name=text(meta(rs).get("name")),
                    namespace=text(meta(rs).get("namespace")),
                )
            except StatusError as exc:
                if not is_not_found(exc):
                    raise

    # --- status --------------------------------------------------------------------------------
    def _calculate_status(self, d: Obj, sets: Sequence[Obj], new_rs: Obj | None) -> dict[str, Any]:
        """``calculateStatus``: counts from the ReplicaSets and the Available condition."""
        old = as_dict(d.get("status"))
        available = du.available_count(sets)
        status: dict[str, Any] = {
            "observedGeneration": meta(d).get("generation", 0),
            "replicas": du.status_replicas_total(sets),
            "updatedReplicas": du.status_replicas_total([new_rs] if new_rs is not None else []),
            "readyReplicas": du.ready_count(sets),
            "availableReplicas": available,
            "unavailableReplicas": max(du.spec_replicas_total(sets) - available, 0),
            "terminatingReplicas": du.terminating_count(sets),
        }
        if "collisionCount" in old:
            status["collisionCount"] = old["collisionCount"]
        if old.get("conditions"):
            status["conditions"] = [dict(c) for c in old["conditions"]]
        now = self.clock.now()
        if available >= du.desired_replicas(d) - du.max_unavailable(d):
            du.set_condition(status, du.new_condition(
                du.AVAILABLE, "True", du.MIN_REPLICAS_AVAILABLE,
                "Deployment has minimum availability.", now,
            ))
        else:
            du.set_condition(status, du.new_condition(
                du.AVAILABLE, "False", du.MIN_REPLICAS_UNAVAILABLE,
                "Deployment does not have minimum availability.", now,
            ))
        return status

    async def _sync_status(self, d: Obj, sets: Sequence[Obj], new_rs: Obj | None) -> None:
        """``syncDeploymentStatus``: write the counts when they changed."""
        status = self._calculate_status(d, sets, new_rs)
        if status != as_dict(d.get("status")):
            d["status"] = status
            await self._update_status(d)

    async def _sync_rollout_status(
        self, d: Obj, sets: Sequence[Obj], new_rs: Obj | None
    ) -> Result | None:
        """``syncRolloutStatus``: the counts plus the Progressing and ReplicaFailure
        conditions; a revisit when the progress deadline would pass."""
        status = self._calculate_status(d, sets, new_rs)
        now = self.clock.now()
        if not du.has_progress_deadline(d):
            du.remove_condition(status, du.PROGRESSING)
        current = du.condition(as_dict(d.get("status")), du.PROGRESSING)
        complete = (
            status.get("replicas") == status.get("updatedReplicas")
            and current is not None
            and current.get("reason") == du.NEW_RS_AVAILABLE_REASON
        )
        subject = (f'ReplicaSet "{text(meta(new_rs).get("name"))}"' if new_rs is not None
                   else f'Deployment "{text(meta(d).get("name"))}"')
        if du.has_progress_deadline(d) and not complete:
            if du.deployment_complete(d, status):
                du.set_condition(status, du.new_condition(
                    du.PROGRESSING, "True", du.NEW_RS_AVAILABLE_REASON,
                    f"{subject} has successfully progressed.", now,
                ))
            elif du.deployment_progressing(d, status):
                progressing = du.new_condition(
                    du.PROGRESSING, "True", du.REPLICA_SET_UPDATED_REASON,
                    f"{subject} is progressing.", now,
                )
                if current is not None:
                    if current.get("status") == "True":
                        progressing["lastTransitionTime"] = current.get("lastTransitionTime")
                    du.remove_condition(status, du.PROGRESSING)
                du.set_condition(status, progressing)
            elif du.deployment_timed_out(d, status, now):
                du.set_condition(status, du.new_condition(
                    du.PROGRESSING, "False", du.TIMED_OUT_REASON,
                    f"{subject} has timed out progressing.", now,
                ))
        failure = _replica_failure(sets, new_rs)
        if failure is not None:
            du.set_condition(status, du.new_condition(
                du.REPLICA_FAILURE, text(failure.get("status")), text(failure.get("reason")),
                text(failure.get("message")), now,
            ))
        else:
            du.remove_condition(status, du.REPLICA_FAILURE)
        if status == as_dict(d.get("status")):
            return self._requeue_stuck(d, status)
        d["status"] = status
        await self._update_status(d)
        return None

    def _requeue_stuck(self, d: Obj, status: Mapping[str, Any]) -> Result | None:
        """``requeueStuckDeployment``: come back when the progress deadline passes."""
        current = du.condition(as_dict(d.get("status")), du.PROGRESSING)
        if not du.has_progress_deadline(d) or current is None:
            return None
        if du.deployment_complete(d, status) or current.get("reason") == du.TIMED_OUT_REASON:
            return None
        deadline = du.progress_deadline_at(d, status)
        if deadline is None:
            return None
        after = (deadline - self.clock.now()) / timedelta(seconds=1)
        if after < 1:
            return Result(requeue=True)
        return Result(requeue_after=after + 1)


# --- helpers ---------------------------------------------------------------------------------


def _selector(d: Obj) -> LabelSelector | None:
    try:
        return label_selector_from_api(as_dict(as_dict(d.get("spec")).get("selector")))
    except (SelectorError, ValueError):
        return None


def _with(old_sets: Sequence[Obj], new_rs: Obj | None) -> list[Obj]:
    return [*old_sets, *([new_rs] if new_rs is not None else [])]


def _split(everything: Sequence[Obj], new_rs: Obj | None) -> tuple[Obj | None, list[Obj]]:
    """(the new ReplicaSet as last written, the others), by name."""
    if new_rs is None:
        return None, list(everything)
    name = text(meta(new_rs).get("name"))
    found = next((rs for rs in everything if text(meta(rs).get("name")) == name), new_rs)
    return found, [rs for rs in everything if text(meta(rs).get("name")) != name]


def _replace(sets: list[Obj], old: Obj, new: Obj) -> None:
    for i, rs in enumerate(sets):
        if rs is old:
            sets[i] = new
            return


def _set_deployment_revision(d: Obj, revision: int) -> bool:
    """``SetDeploymentRevision``: the Deployment's revision annotation; whether it changed."""
    if revision <= 0:
        return False
    annotations = dict(as_dict(meta(d).get("annotations")))
    if annotations.get(du.REVISION_ANNOTATION) == str(revision):
        return False
    annotations[du.REVISION_ANNOTATION] = str(revision)
    d.setdefault("metadata", {})["annotations"] = annotations
    return True


def _replica_failure(sets: Sequence[Obj], new_rs: Obj | None) -> dict[str, Any] | None:
    """``getReplicaFailures``: the new ReplicaSet's ReplicaFailure condition, else an old
    one's."""
    ordered = [*([new_rs] if new_rs is not None else []), *sets]
    for rs in ordered:
        for entry in as_dict(rs.get("status")).get("conditions") or []:
            if as_dict(entry).get("type") == du.REPLICA_FAILURE:
                return as_dict(entry)
    return None
