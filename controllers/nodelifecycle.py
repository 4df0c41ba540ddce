"""The node lifecycle controller: lease-based health, the not-ready/unreachable taints, eviction.

As upstream's ``pkg/controller/nodelifecycle``, reduced to one level-based reconcile per node:

- **Health.** A node is alive while its Lease in ``kube-node-lease`` (or its Ready condition's
  ``lastHeartbeatTime``) was renewed within ``grace_period`` (``nodeMonitorGracePeriod``, 50 s
  since Kubernetes 1.32; 40 s before). When it was not, every node condition the kubelet owns
  becomes ``Unknown`` with reason ``NodeStatusUnknown`` ("Kubelet stopped posting node
  status."), or ``NodeStatusNeverUpdated`` for a node that never reported.
- **Pods not ready.** While a node is not Ready, each pod on it whose Ready condition is
  True gets it False and a Warning ``NodeNotReady`` ("Node is not ready"), as upstream's
  ``MarkPodsNotReady``; the node gets ``NodeNotReady`` ("Node <name> status is now:
  NodeNotReady") when this controller marks it Unknown. Its kubelet sets them ready again once
  it is back.
- **Taints.** Ready=Unknown → ``node.kubernetes.io/unreachable``, Ready=False →
  ``node.kubernetes.io/not-ready``, each as ``NoExecute`` and ``NoSchedule``; Ready=True →
  neither. MemoryPressure, DiskPressure, PIDPressure and NetworkUnavailable give their
  ``NoSchedule`` taints, and a cordoned node (``spec.unschedulable``)
  ``node.kubernetes.io/unschedulable:NoSchedule``. Each taint is added with ``timeAdded``.
- **Taint-based eviction.** Pods bound to a node with a ``NoExecute`` taint they do not tolerate
  are deleted (after ``DisruptionTarget``, reason ``DeletionByTaintManager``); a toleration with
  ``tolerationSeconds`` delays that (300 s is what the DefaultTolerationSeconds admission adds
  for these two taints), one without it prevents it. The delay runs from the taint's
  ``timeAdded`` or, for a taint written without one (``kubectl taint``), from when this
  controller first saw it, as upstream's taint manager counts from when it noticed the taint.

Keys are ``node:<name>`` and ``pod:<ns>/<name>``; every wait is a requeue on the injected clock.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi.client import (
    LEASES,
    NODE_NAME_INDEX,
    NODES,
    PODS,
    Client,
    InformerFactory,
    LegacyEventRecorder,
    is_conflict,
    is_not_found,
    node_name_index,
)
from fakeapi.clock import Clock
from fakeapi.controllers.devicetaints import Taint, eviction_time
from fakeapi.controllers.eviction import evict_pod
from fakeapi.controllers.indexes import ensure_index
from fakeapi.controllers.runtime import Controller, ControllerComponent, Result
from fakeapi.objects import Obj, as_dict, as_list, deep_copy, meta, object_key, text
from fakeapi.rules.conditions import find_status_condition
from fakeapi.rules.nodes import NODE_READY, node_condition, node_ready_status
from fakeapi.timefmt import format_time, parse_time

__all__ = ["NODE_MONITOR_GRACE_PERIOD", "NodeLifecycleController", "UNREACHABLE", "NOT_READY"]

NODE_MONITOR_GRACE_PERIOD = 50.0
LEASE_NAMESPACE = "kube-node-lease"
UNREACHABLE = "node.kubernetes.io/unreachable"
NOT_READY = "node.kubernetes.io/not-ready"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
#: the NoSchedule taint each node condition calls for (upstream's
#: nodeConditionToTaintKeyStatusMap)
_CONDITION_TAINTS = {
    ("Ready", "False"): NOT_READY,
    ("Ready", "Unknown"): UNREACHABLE,
    ("MemoryPressure", "True"): "node.kubernetes.io/memory-pressure",
    ("DiskPressure", "True"): "node.kubernetes.io/disk-pressure",
    ("NetworkUnavailable", "True"): "node.kubernetes.io/network-unavailable",
    ("PIDPressure", "True"): "node.kubernetes.io/pid-pressure",
}
_NO_SCHEDULE_KEYS = frozenset(_CONDITION_TAINTS.values()) | {UNSCHEDULABLE}


def _owned_taint(taint: Obj) -> bool:
    """A taint this controller sets and removes."""
    key, effect = taint.get("key"), taint.get("effect")
    if effect == "NoSchedule":
        return key in _NO_SCHEDULE_KEYS
    return effect == "NoExecute" and key in (UNREACHABLE, NOT_READY)
#: the sources of the controller's Events, as upstream's node lifecycle controller and its taint
#: eviction controller name them
EVENT_SOURCE = "node-controller"
EVICTION_EVENT_SOURCE = "taint-eviction-controller"
_KUBELET_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
def _conditions(node: Obj) -> list[dict[str, Any]]:
    return [as_dict(c) for c in as_list(as_dict(node.get("status")).get("conditions"))]


def _time(value: Any) -> datetime | None:
    return parse_time(value) if isinstance(value, str) and value else None


class NodeLifecycleController(ControllerComponent):
    """Marks silent nodes Unknown, taints unhealthy nodes, evicts pods from NoExecute nodes."""

    name = "node-lifecycle-controller"

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: random.Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        grace_period: float = NODE_MONITOR_GRACE_PERIOD,
        workers: int = 2,
    ) -> None:
        self.client = client
        self.clock = clock
        self.grace_period = grace_period
        self.events = LegacyEventRecorder(client, component=EVENT_SOURCE, clock=clock)
        self.eviction_events = LegacyEventRecorder(
            client, component=EVICTION_EVENT_SOURCE, clock=clock
        )
        self.nodes = informers.informer(NODES)
        self.leases = informers.informer(LEASES, namespace=LEASE_NAMESPACE)
        self.pods = informers.informer(PODS)
        self.informers = [self.nodes, self.leases, self.pods]
        ensure_index(self.pods, NODE_NAME_INDEX, node_name_index)
        self.controller = Controller(
            name="node_lifecycle_controller",
            reconcile=self.reconcile,
            clock=clock,
            workers=workers,
            metrics=metrics,
        )
        #: by node name: when each NoExecute taint without ``timeAdded`` was first seen
        self._taints_seen: dict[str, dict[tuple[str, str], datetime]] = {}
        #: pods whose eviction waits for a toleration to run out (cancelled with an event)
        self._scheduled: set[str] = set()
        self.nodes.add_handler(
            on_add=self._node_changed,
            on_update=lambda _o, new: self._node_changed(new),
            on_delete=lambda node: self._remember_taints(text(meta(node).get("name")), []),
        )
        self.controller.watch(
            self.leases, key=lambda lease: "node:" + text(meta(lease).get("name")), on_delete=False
        )
        self.pods.add_handler(
            on_add=self._pod_changed, on_update=lambda old, new: self._pod_changed(new)
        )

    def _node_changed(self, node: Obj) -> None:
        name = text(meta(node).get("name"))
        self.controller.enqueue("node:" + name)
        no_execute = [
            taint
            for t in as_list(as_dict(node.get("spec")).get("taints"))
            if (taint := as_dict(t)).get("effect") == "NoExecute"
        ]
        self._remember_taints(name, no_execute)
        if no_execute or self._scheduled:  # a taint gone may cancel a pending eviction
            for key in self.pods.index_keys(NODE_NAME_INDEX, name):
                self.controller.enqueue("pod:" + key)

    def _remember_taints(self, name: str, no_execute: list[dict[str, Any]]) -> None:
        """Note when each NoExecute taint without ``timeAdded`` was first seen on node ``name``;
        forget the ones gone."""
        undated = {
            (text(t.get("key")), text(t.get("value"))) for t in no_execute if not t.get("timeAdded")
        }
        seen = self._taints_seen.get(name)
        if not undated:
            if seen is not None:
                del self._taints_seen[name]
            return
        now = self.clock.now()
        seen = {k: seen[k] if seen and k in seen else now for k in undated}
        self._taints_seen[name] = seen

    def _pod_changed(self, pod: Obj) -> None:
        if as_dict(pod.get("spec")).get("nodeName"):
            self.controller.enqueue("pod:" + object_key(pod))

    async def stop(self) -> None:
        await super().stop()
        await self.events.close()
        await self.eviction_events.close()

    async def reconcile(self, key: str) -> Result | None:
        kind, _, rest = key.partition(":")
        if kind == "pod":
            return await self._sync_pod(rest)
        return await self._sync_node(rest)

    # --- nodes ---------------------------------------------------------------------------------
    def _last_heard(self, node: Obj) -> datetime | None:
        lease = self.leases.get(f"{LEASE_NAMESPACE}/{meta(node).get('name')}")
        ready = node_condition(node, NODE_READY)
        times = [
            _time(as_dict(lease.get("spec")).get("renewTime")) if lease else None,
            _time(ready.get("lastHeartbeatTime")) if ready is not None else None,
        ]
        known = [t for t in times if t is not None]
        return max(known) if known else None

    async def _sync_node(self, name: str) -> Result | None:
        node = self.nodes.get(name)
        if node is None:
            return None
        now = self.clock.now()
        heard = self._last_heard(node) or _time(meta(node).get("creationTimestamp")) or now
        silent = (now - heard).total_seconds()
        if silent >= self.grace_period and node_ready_status(node) != "Unknown":
            node = await self._mark_unknown(node, now=now, never=node_ready_status(node) == "")
        node = await self._set_taints(node, now=now)
        retry = False
        if node_ready_status(node) in ("Unknown", "False"):
            retry = await self._mark_pods_not_ready(name, now=now)
        if silent < self.grace_period:
            return Result(requeue_after=self.grace_period - silent)
        return Result(requeue=True) if retry else None

    async def _mark_pods_not_ready(self, name: str, *, now: datetime) -> bool:
        """Ready=False on the node's pods that are still Ready; True when one must be retried."""
        retry = False
        for key in self.pods.index_keys(NODE_NAME_INDEX, name):
            pod = self.pods.get(key)
            if pod is None:
                continue
            updated = deep_copy(pod)
            ready = find_status_condition(_conditions(updated), "Ready")
            if ready is None or ready.get("status") == "False":
                continue
            ready.update(status="False", lastTransitionTime=format_time(now))
            try:
                await self.client.update_status(PODS, body=updated)
            except Exception as exc:
                if is_not_found(exc):
                    continue
                if not is_conflict(exc):
                    raise
                retry = True
                continue
            self.events.event(
                regarding=pod, type="Warning", reason="NodeNotReady", note="Node is not ready"
            )
        return retry

    async def _mark_unknown(self, node: Obj, *, now: datetime, never: bool) -> Obj:
        reason, message = (
            ("NodeStatusNeverUpdated", "Kubelet never posted node status.")
            if never
            else ("NodeStatusUnknown", "Kubelet stopped posting node status.")
        )
        updated = deep_copy(node)
        conditions = _conditions(updated)
        by_type = {c.get("type"): c for c in conditions}
        for type_ in _KUBELET_CONDITIONS:
            condition = by_type.get(type_)
            if condition is None:
                if type_ != "Ready" and not never:
                    continue
                condition = {
                    "type": type_,
                    "lastHeartbeatTime": meta(node).get("creationTimestamp"),
                }
                conditions.append(condition)
            if condition.get("status") != "Unknown":
                condition.update(
                    status="Unknown",
                    reason=reason,
                    message=message,
                    lastTransitionTime=format_time(now),
                )
        status = as_dict(updated.get("status"))
        status["conditions"] = conditions
        updated["status"] = status
        written = await self.client.update_status(NODES, body=updated)
        name = text(meta(node).get("name"))
        # upstream's reference names the node as its UID too
        about = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": name}}
        self.events.event(
            regarding=about,
            type="Normal",
            reason="NodeNotReady",
            note=f"Node {name} status is now: NodeNotReady",
        )
        return written

    async def _set_taints(self, node: Obj, *, now: datetime) -> Obj:
        """The taints this controller owns, as upstream's NoSchedule and NoExecute tainting
        passes: NoSchedule for each condition that calls for one and for a cordoned node,
        NoExecute for a node not Ready; each added with ``timeAdded``, the stale ones removed,
        every other taint left alone."""
        ready = node_ready_status(node)
        wanted: set[tuple[str, str]] = set()
        for condition in _conditions(node):
            kind, status = text(condition.get("type")), text(condition.get("status"))
            key = _CONDITION_TAINTS.get((kind, status))
            if key is not None and kind != "Ready":  # Ready: from node_ready, below
                wanted.add((key, "NoSchedule"))
        ready_key = {"Unknown": UNREACHABLE, "False": NOT_READY}.get(ready)
        if ready_key is not None:
            wanted |= {(ready_key, "NoSchedule"), (ready_key, "NoExecute")}
        if as_dict(node.get("spec")).get("unschedulable"):
            wanted.add((UNSCHEDULABLE, "NoSchedule"))
        taints = [as_dict(t) for t in as_list(as_dict(node.get("spec")).get("taints"))]
        kept = [
            t
            for t in taints
            if (text(t.get("key")), text(t.get("effect"))) in wanted or not _owned_taint(t)
        ]
        have = {(text(t.get("key")), text(t.get("effect"))) for t in kept}
        for key, effect in sorted(wanted - have):
            kept.append({"key": key, "effect": effect, "timeAdded": format_time(now)})
        if kept == taints:
            return node
        updated = deep_copy(node)
        spec = as_dict(updated.get("spec"))
        if kept:
            spec["taints"] = kept
        else:
            spec.pop("taints", None)
        updated["spec"] = spec
        return await self.client.update(NODES, body=updated)

    # --- pods on NoExecute nodes ---------------------------------------------------------------
    async def _sync_pod(self, key: str) -> Result | None:
        pod = self.pods.get(key)
        if (
            pod is None
            or meta(pod).get("deletionTimestamp")
            or as_dict(pod.get("status")).get("phase") in ("Succeeded", "Failed")
        ):
            self._scheduled.discard(key)
            return None
        node = self.nodes.get(text(as_dict(pod.get("spec")).get("nodeName")))
        if node is None:
            self._scheduled.discard(key)
            return None
        now = self.clock.now()
        tolerations = [as_dict(t) for t in as_list(as_dict(pod.get("spec")).get("tolerations"))]
        times = []
        seen = self._taints_seen.get(text(meta(node).get("name"))) or {}
        for raw in as_list(as_dict(node.get("spec")).get("taints")):
            raw = as_dict(raw)
            taint_key, value = text(raw.get("key")), text(raw.get("value"))
            taint = Taint(
                key=taint_key,
                value=value,
                effect=text(raw.get("effect")),
                time_added=_time(raw.get("timeAdded")) or seen.get((taint_key, value)),
            )
            when = eviction_time(taint, tolerations, now=now)
            if when is not None:
                times.append(when)
        if not times:
            if key in self._scheduled:  # the taint went or is tolerated now: as upstream says
                self._scheduled.discard(key)
                self.eviction_events.event(
                    regarding=pod, type="Normal", reason="TaintManagerEviction",
                    note=f"Cancelling deletion of Pod {object_key(pod)}",
                )
            return None
        when = min(times)
        if when > now:
            self._scheduled.add(key)
            return Result(requeue_after=(when - now).total_seconds())
        self._scheduled.discard(key)
        self.eviction_events.event(
            regarding=pod, type="Normal", reason="TaintManagerEviction",
            note=f"Marking for deletion Pod {object_key(pod)}",
        )
        await evict_pod(
            client=self.client,
            pod=pod,
            reason="DeletionByTaintManager",
            message="Taint manager: deleting due to NoExecute taint",
            now=now,
        )
        return None
