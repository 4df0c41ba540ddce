"""The DaemonSet controller: one pod on every node that should run it.

As upstream's ``pkg/controller/daemon``. Keys are ``namespace/name`` of DaemonSets, queued by
their own changes, by their pods' changes and — since a new or relabelled node may need a pod —
by every node that appears or changes its labels, taints or readiness. A reconcile:

1. syncs the template history (:mod:`~fakeapi.controllers.history`); the current revision's
   hash labels the pods (``controller-revision-hash``);
2. decides per node with the shared rule :func:`~fakeapi.rules.daemons.node_should_run_daemon_pod`
   (the template's node name, selector and required affinity; taints against the template's
   tolerations plus the daemon ones every daemon pod gets);
3. creates a pod for each node that should run one and has none — pinned to the node by a
   required node affinity on ``metadata.name``, so the scheduler binds it (and a ResourceClaim of
   its template is allocated there) — deletes failed daemon pods (``FailedDaemonPod``) and
   surplus ones, and the pods of nodes that should no longer run them;
4. rolls out a changed template (RollingUpdate): old pods go while at most ``maxUnavailable``
   nodes lack an available pod, or with ``maxSurge`` new pods start beside the old ones, which
   go once the new ones are available; OnDelete leaves old pods alone;
5. writes the status counts (desired, current, misscheduled, ready, up-to-date, available,
   unavailable).
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    CONTROLLER_REVISIONS,
    DAEMON_SETS,
    NAMESPACE_INDEX,
    NODES,
    PODS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
)
from fakeapi.client.informer import namespace_index
from fakeapi.clock import Clock
from fakeapi.controllers.expectations import ControllerExpectations
from fakeapi.controllers.history import (
    REVISION_HASH_LABEL,
    HashCollisionError,
    live_hashes,
    sync_history,
    truncate_history,
)
from fakeapi.controllers.indexes import OWNER_UID_INDEX, ensure_index
from fakeapi.controllers.podcontrol import PodControl, claim, pod_from_template, pods_prefix
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
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
from fakeapi.rules.daemons import (
    DAEMON_SET_TEMPLATE_GENERATION,
    daemon_pod_tolerations,
    node_should_run_daemon_pod,
)
from fakeapi.rules.intstr import scaled_value
from fakeapi.rules.podutil import is_pod_available, is_pod_ready, pod_phase
from fakeapi.selectors import SelectorError, label_selector_from_api

__all__ = ["DaemonSetController", "daemon_pod_template"]

#: the label of daemon pods with their DaemonSet's template generation
TEMPLATE_GENERATION_LABEL = "pod-template-generation"


def daemon_pod_template(ds: Obj) -> dict[str, Any]:
    """The template with the daemon tolerations added (what eligibility is decided on)."""
    template = deep_copy(as_dict(as_dict(ds.get("spec")).get("template")))
    spec = template.setdefault("spec", {})
    spec["tolerations"] = daemon_pod_tolerations(
        [as_dict(t) for t in as_list(spec.get("tolerations"))],
        host_network=spec.get("hostNetwork") is True,
    )
    return template


def _pin_to_node(template: dict[str, Any], node: str) -> None:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: the only required node term selects the
    node by name."""
    spec = template.setdefault("spec", {})
    affinity = spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}
        ]}]
    }


def _target_node(pod: Obj) -> str:
    """The node a daemon pod runs on or is pinned to."""
    node = text(as_dict(pod.get("spec")).get("nodeName"))
    if node:
        return node
    required = as_dict(as_dict(as_dict(as_dict(pod.get("spec")).get("affinity")).get(
        "nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution"))
    for term in as_list(required.get("nodeSelectorTerms")):
        for field in as_list(as_dict(term).get("matchFields")):
            field = as_dict(field)
            values = as_list(field.get("values"))
            if field.get("key") == "metadata.name" and len(values) == 1:
                return text(values[0])
    return ""


class DaemonSetController(ControllerComponent):
    """Keeps a daemon pod on each eligible node."""

    name = "daemonset-controller"

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
        self.events = LegacyEventRecorder(client, component="daemonset-controller", clock=clock)
        self.pod_control = PodControl(client, self.events)
        self.expectations = ControllerExpectations(clock=clock)
        self.controller = Controller(
            name="daemonset", reconcile=self.reconcile, clock=clock, workers=workers,
            metrics=metrics,
        )
        self.daemon_sets = informers.informer(DAEMON_SETS)
        self.pods = informers.informer(PODS)
        self.nodes = informers.informer(NODES)
        self.revisions = informers.informer(CONTROLLER_REVISIONS)
        ensure_index(self.pods, NAMESPACE_INDEX, namespace_index)
        ensure_index(self.pods, OWNER_UID_INDEX, owner_uids)
        ensure_index(self.revisions, OWNER_UID_INDEX, owner_uids)
        self.informers = [self.daemon_sets, self.pods, self.nodes, self.revisions]
        self.daemon_sets.add_handler(
            on_add=lambda ds: self.controller.enqueue(object_key(ds)),
            on_update=lambda _old, new: self.controller.enqueue(object_key(new)),
            on_delete=lambda ds: self.expectations.forget(object_key(ds)),
        )
        self.pods.add_handler(
            on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._pod_deleted
        )
        self.nodes.add_handler(on_add=self._node_changed, on_update=self._node_updated)

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()

    # --- event handlers ------------------------------------------------------------------------
    def _owner_key(self, pod: Obj) -> str | None:
        ref = controller_ref(pod)
        if ref is None or ref.get("kind") != "DaemonSet":
            return None
        key = f"{text(meta(pod).get('namespace'))}/{text(ref.get('name'))}"
        ds = self.daemon_sets.get(key)
        return key if ds is not None and meta(ds).get("uid") == ref.get("uid") else None

    def _pod_added(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.creation_observed(key)
            self.controller.enqueue(key)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        key = self._owner_key(new)
        if key is None:
            return
        if meta(new).get("deletionTimestamp") and not meta(old).get("deletionTimestamp"):
            self.expectations.deletion_observed(key, object_key(new))
        self.controller.enqueue(key)
        if not is_pod_ready(old) and is_pod_ready(new):
            ds = self.daemon_sets.get(key)
            delay = as_dict(as_dict(ds).get("spec")).get("minReadySeconds") or 0
            if isinstance(delay, int) and delay > 0:
                self.controller.enqueue_after(key, delay + 1)

    def _pod_deleted(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.deletion_observed(key, object_key(pod))
            self.controller.enqueue(key)

    def _node_changed(self, _node: Obj) -> None:
        for ds in self.daemon_sets.list():
            self.controller.enqueue(object_key(ds))

    def _node_updated(self, old: Obj, new: Obj) -> None:
        def shape(node: Obj) -> Any:
            status = as_dict(node.get("status"))
            ready = [c for c in as_list(status.get("conditions"))
                     if as_dict(c).get("type") == "Ready"]
            return (meta(node).get("labels"), as_dict(node.get("spec")).get("taints"),
                    as_dict(node.get("spec")).get("unschedulable"),
                    as_dict(ready[0]).get("status") if ready else None)

        if shape(old) != shape(new):
            self._node_changed(new)

    # --- reconcile -----------------------------------------------------------------------------
    async def reconcile(self, key: str) -> Result | None:
        cached = self.daemon_sets.get(key)
        if cached is None:
            self.expectations.forget(key)
            return None
        ds = deep_copy(cached)
        try:
            selector = label_selector_from_api(as_dict(as_dict(ds.get("spec")).get("selector")))
        except (SelectorError, ValueError):
            return None
        namespace = text(meta(ds).get("namespace"))
        pods = await claim(
            self.client, PODS, owner=ds,
            owner_ref=new_controller_ref(ds, api_version="apps/v1", kind="DaemonSet"),
            candidates=[p for p in self.pods.by_index(NAMESPACE_INDEX, namespace)],
            matches=lambda labels: not selector.empty and selector.matches(labels),
            owner_resource=DAEMON_SETS,
        )
        if meta(ds).get("deletionTimestamp"):
            return None
        spec = as_dict(ds.get("spec"))
        collisions = as_dict(ds.get("status")).get("collisionCount")
        try:
            history = await sync_history(
                self.client, self.revisions, ds, api_version="apps/v1", kind="DaemonSet",
                template=spec.get("template"),
                collision_count=collisions if isinstance(collisions, int) else None,
            )
        except HashCollisionError:
            status = dict(as_dict(ds.get("status")))
            status["collisionCount"] = (collisions if isinstance(collisions, int) else 0) + 1
            await self.client.update_status(DAEMON_SETS, body={**ds, "status": status})
            return Result(requeue=True)
        current_hash = history.hash
        by_node: dict[str, list[Obj]] = defaultdict(list)
        for pod in pods:
            node = _target_node(pod)
            if node:
                by_node[node].append(pod)
        template = daemon_pod_template(ds)
        nodes = self.nodes.list()
        if self.expectations.satisfied(key):
            await self._manage(key, ds, template, nodes, by_node, current_hash)
        limit = spec.get("revisionHistoryLimit")
        if isinstance(limit, int):
            live = {f"{text(meta(ds).get('name'))}-{h}" for h in live_hashes(pods)}
            await truncate_history(self.client, history, live=live, limit=limit)
        return await self._write_status(ds, template, nodes, by_node, current_hash)

    async def _manage(
        self, key: str, ds: Obj, template: dict[str, Any], nodes: list[Obj],
        by_node: dict[str, list[Obj]], current_hash: str,
    ) -> None:
        """``manage`` and ``rollingUpdate``: which nodes get a pod and which pods go."""
        create: list[str] = []
        delete: list[Obj] = []
        min_ready = int(as_dict(ds.get("spec")).get("minReadySeconds") or 0)
        now = self.clock.now()
        for node in nodes:
            name = text(meta(node).get("name"))
            should_run, may_continue = node_should_run_daemon_pod(node, template)
            pods = [p for p in by_node.get(name, []) if not meta(p).get("deletionTimestamp")]
            if should_run:
                failed = [p for p in pods if pod_phase(p) == "Failed"]
                for pod in failed:
                    self.events.event(
                        regarding=ds, type="Warning", reason="FailedDaemonPod",
                        note=f"Found failed daemon pod {object_key(pod)} on node {name}, will "
                        "try to kill it",
                    )
                delete += failed
                alive = [p for p in pods if pod_phase(p) != "Failed"]
                if not alive and not by_node.get(name):
                    create.append(name)
                elif len(alive) > 1:
                    current = [p for p in alive if _hash_of(p) == current_hash]
                    keep = _oldest(current or alive)
                    if not self._surging(ds) or len(alive) > 2 or not current:
                        delete += [p for p in alive if p is not keep]
            elif not may_continue:
                delete += pods
        strategy = as_dict(as_dict(ds.get("spec")).get("updateStrategy"))
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            more_create, more_delete = self._rolling_update(
                ds, template, nodes, by_node, current_hash, min_ready, now, set(create)
            )
            create += more_create
            delete += [p for p in more_delete if p not in delete]
        if not create and not delete:
            return
        self.expectations.expect(key, creations=len(create),
                                 deletions={object_key(p) for p in delete})
        generation = text(as_dict(meta(ds).get("annotations")).get(
            DAEMON_SET_TEMPLATE_GENERATION))

        async def create_on(node: str) -> None:
            pod_template = deep_copy(template)
            _pin_to_node(pod_template, node)
            labels = dict(as_dict(as_dict(pod_template.get("metadata")).get("labels")))
            labels[REVISION_HASH_LABEL] = current_hash
            if generation:
                labels[TEMPLATE_GENERATION_LABEL] = generation
            pod_template.setdefault("metadata", {})["labels"] = labels
            pod = pod_from_template(
                pod_template, namespace=text(meta(ds).get("namespace")),
                owner_ref=new_controller_ref(ds, api_version="apps/v1", kind="DaemonSet"),
                generate_name=pods_prefix(text(meta(ds).get("name"))),
            )
            try:
                await self.pod_control.create(pod, owner=ds)
            except Exception:
                self.expectations.lower(key, creations=1)
                raise

        async def delete_one(pod: Obj) -> None:
            try:
                await self.pod_control.delete(pod, owner=ds)
            except Exception:
                self.expectations.lower(key, deletion=object_key(pod))
                raise

        results = await asyncio.gather(
            *(create_on(n) for n in create), *(delete_one(p) for p in delete),
            return_exceptions=True,
        )
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, Exception):
                raise result

    def _surging(self, ds: Obj) -> bool:
        rolling = as_dict(as_dict(as_dict(ds.get("spec")).get("updateStrategy")).get(
            "rollingUpdate"))
        surge = rolling.get("maxSurge", 0)
        return bool(surge) and surge not in ("0%",)

    def _rolling_update(
        self, ds: Obj, template: dict[str, Any], nodes: list[Obj],
        by_node: dict[str, list[Obj]], current_hash: str, min_ready: int, now: Any,
        creating: set[str],
    ) -> tuple[list[str], list[Obj]]:
        """``rollingUpdate``: replace old pods within maxUnavailable (or maxSurge)."""
        rolling = as_dict(as_dict(as_dict(ds.get("spec")).get("updateStrategy")).get(
            "rollingUpdate"))
        eligible = [n for n in nodes if node_should_run_daemon_pod(n, template)[0]]
        desired = len(eligible)
        try:
            max_unavailable = scaled_value(rolling.get("maxUnavailable", 1), desired,
                                           round_up=True)
            max_surge = scaled_value(rolling.get("maxSurge", 0), desired, round_up=True)
        except ValueError:
            return [], []
        if max_unavailable == 0 and max_surge == 0:
            max_unavailable = 1
        create: list[str] = []
        delete: list[Obj] = []
        unavailable = 0
        olds: list[tuple[str, Obj, bool]] = []
        for node in eligible:
            name = text(meta(node).get("name"))
            pods = [p for p in by_node.get(name, []) if not meta(p).get("deletionTimestamp")]
            new = [p for p in pods if _hash_of(p) == current_hash]
            old = [p for p in pods if _hash_of(p) != current_hash]
            new_available = any(is_pod_available(p, min_ready_seconds=min_ready, now=now)
                                for p in new)
            if not pods:
                if name not in creating:
                    unavailable += 1
                continue
            if not old:
                if not new_available:
                    unavailable += 1
                continue
            old_pod = old[0]
            old_available = is_pod_available(old_pod, min_ready_seconds=min_ready, now=now)
            if new:
                if new_available:
                    delete.append(old_pod)  # the surge pod took over
                continue
            if not old_available:
                unavailable += 1
            olds.append((name, old_pod, old_available))
        surged = sum(
            1 for node in eligible
            if len([p for p in by_node.get(text(meta(node).get("name")), [])
                    if not meta(p).get("deletionTimestamp")]) > 1
        )
        for name, old_pod, old_available in olds:
            if not old_available:
                delete.append(old_pod)  # unavailable already: replacing costs nothing
            elif max_surge > 0:
                if surged < max_surge:
                    create.append(name)
                    surged += 1
            elif unavailable < max_unavailable:
                delete.append(old_pod)
                unavailable += 1
        return create, delete

    async def _write_status(
        self, ds: Obj, template: dict[str, Any], nodes: list[Obj],
        by_node: dict[str, list[Obj]], current_hash: str,
    ) -> Result | None:
        spec = as_dict(ds.get("spec"))
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.clock.now()
        desired = current = misscheduled = ready = updated = available = 0
        for node in nodes:
            name = text(meta(node).get("name"))
            should_run, _ = node_should_run_daemon_pod(node, template)
            pods = [p for p in by_node.get(name, []) if not meta(p).get("deletionTimestamp")]
            if should_run:
                desired += 1
                if pods:
                    current += 1
                    newest = _newest(pods)
                    if is_pod_ready(newest):
                        ready += 1
                        if is_pod_available(newest, min_ready_seconds=min_ready, now=now):
                            available += 1
                    if any(_hash_of(p) == current_hash for p in pods):
                        updated += 1
            elif pods:
                misscheduled += 1
        status: dict[str, Any] = {
            "currentNumberScheduled": current,
            "numberMisscheduled": misscheduled,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": meta(ds).get("generation", 0),
            "updatedNumberScheduled": updated,
            "numberAvailable": available,
            "numberUnavailable": desired - available,
        }
        old = as_dict(ds.get("status"))
        for name in ("collisionCount", "conditions"):
            if name in old:
                status[name] = old[name]
        if status != old:
            await self.client.update_status(DAEMON_SETS, body={**ds, "status": status})
        if min_ready > 0 and ready != available:
            return Result(requeue_after=float(min_ready))
        return None


def _hash_of(pod: Obj) -> str:
    return text(as_dict(meta(pod).get("labels")).get(REVISION_HASH_LABEL))


def _oldest(pods: list[Obj]) -> Obj:
    return min(pods, key=lambda p: (text(meta(p).get("creationTimestamp")),
                                    text(meta(p).get("name"))))


def _newest(pods: list[Obj]) -> Obj:
    return max(pods, key=lambda p: (text(meta(p).get("creationTimestamp")),
                                    text(meta(p).get("name"))))
