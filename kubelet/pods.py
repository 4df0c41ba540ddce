"""The pod half of a kubelet: one work queue of pod keys, reconciled from current state.

For each pod bound to the node, :meth:`PodSync.sync` decides what to do now: release and forget a
pod that is gone, admit and prepare a new one (:class:`~.dra.manager.DRAManager`), apply the
lifecycle stage that is due (:class:`~.engine.StageEngine`, :func:`~.stages.apply_steps`) or
refresh its device health. Whatever waits — a stage's delay, admission back-off — is a
``WorkQueue.add_after`` on the injected clock, so the pod is simply looked at again later.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakeapi.client import (
    PODS,
    Client,
    Informer,
    LegacyEventRecorder,
    Preconditions,
    WorkQueue,
    is_conflict,
    is_not_found,
    object_key,
)
from fakeapi.clock import Clock
from fakeapi.kubelet.admission import (
    NotAdmittedError,
    extended_claim_name,
    resource_fit_error,
)
from fakeapi.kubelet.dispatch import Dispatcher
from fakeapi.kubelet.dra.driver import PrepareError
from fakeapi.kubelet.dra.health import HealthCache, overlay_health
from fakeapi.kubelet.dra.manager import DRAManager, PodResources
from fakeapi.kubelet.engine import StageEngine
from fakeapi.kubelet.node import NodeAgent
from fakeapi.kubelet.stages import Stage, StageContext, apply_steps
from fakeapi.resource_requests import Resource, pod_requests
from fakeapi.timefmt import format_time

__all__ = ["CLAIM_INDEX", "PodSync", "claim_index"]

log = logging.getLogger("fakeapi.kubelet")

Obj = dict[str, Any]
#: index names on the shared informers are shared too: name them by what they index
CLAIM_INDEX = "resourceClaimNames"
_ADMISSION_BACKOFF = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
_TERMINAL = ("Succeeded", "Failed")
#: the pod conditions that follow container readiness
_READY_CONDITIONS = ("Ready", "ContainersReady")
#: the status fields a kubelet owns and writes
_STATUS_KEYS = (
    "phase",
    "reason",
    "message",
    "conditions",
    "containerStatuses",
    "initContainerStatuses",
    "hostIP",
    "hostIPs",
    "podIP",
    "podIPs",
    "startTime",
    "allocatedResourcesStatus",
)


def claim_index(pod: Obj) -> list[str]:
    """Index values ``<namespace>/<claim name>`` for every claim the pod names directly (and
    its extended-resource claim)."""
    namespace = (pod.get("metadata") or {}).get("namespace")
    entries = (pod.get("spec") or {}).get("resourceClaims") or []
    names = [e.get("resourceClaimName") for e in entries]
    names += [
        s.get("resourceClaimName")
        for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    ]
    names.append(extended_claim_name(pod))
    return [f"{namespace}/{n}" for n in names if n]


@dataclass(slots=True)
class _PodState:
    uid: str
    admitted: bool = False
    resources: PodResources = field(default_factory=PodResources)
    attempts: int = 0
    pod_ip: str = ""
    #: the claims (namespace/name) this kubelet listens to on the pod's behalf
    claim_keys: frozenset[str] = frozenset()


class PodSync:
    """Reconciles the pods of one node; the kubelet feeds :attr:`queue` and runs workers."""

    def __init__(
        self,
        *,
        client: Client,
        clock: Clock,
        node: NodeAgent,
        pods: Informer,
        claim_dispatch: Dispatcher,
        engine: StageEngine,
        dra: DRAManager,
        health: HealthCache,
        events: Callable[[], LegacyEventRecorder],
        reports_health: bool,
        queue: WorkQueue[str],
        connected: Callable[[], bool] = lambda: True,
    ) -> None:
        self.client = client
        self.clock = clock
        self.node = node
        self.node_name = node.node_name
        self.pods = pods
        self.claim_dispatch = claim_dispatch
        self.engine = engine
        self.dra = dra
        self.health = health
        self.events = events
        self.reports_health = reports_health
        self.queue = queue
        #: False while the node is cut off (``fault-node-stopped``): readiness is not restored
        self.connected = connected
        self.states: dict[str, _PodState] = {}
        self._next_ip = 2

    def claim_changed(self, claim: Obj) -> None:
        """A claim changed: look again at this node's pods that use it."""
        for key in self.pods.index_keys(CLAIM_INDEX, object_key(claim)):
            pod = self.pods.get(key)
            if pod is not None and (pod.get("spec") or {}).get("nodeName") == self.node_name:
                self.queue.add(key)

    def close(self) -> None:
        """Stop listening to claims on the pods' behalf (the kubelet stops)."""
        for state in self.states.values():
            self._listen_to_claims(state, frozenset())

    async def run_worker(self) -> None:
        while (key := await self.queue.get()) is not None:
            try:
                await self.sync(key)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("node %s: pod %s: %s", self.node_name, key, exc)
                self.queue.add_rate_limited(key)
            else:
                self.queue.forget(key)
            finally:
                self.queue.done(key)

    async def sync(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is not None and (pod.get("spec") or {}).get("nodeName") != self.node_name:
            pod = None  # not (or no longer) ours
        state = self.states.get(key)
        uid = str(((pod or {}).get("metadata") or {}).get("uid") or "")
        if state is not None and (pod is None or state.uid != uid):
            await self._release(key, state)  # gone, or replaced by a pod of the same name
            self._forget(key, state)
            state = None
        if pod is None:
            self.engine.forget(key)
            return
        if state is None:
            state = self.states[key] = _PodState(uid=uid)
        self._listen_to_claims(state, frozenset(claim_index(pod)))
        meta = pod.get("metadata") or {}
        phase = (pod.get("status") or {}).get("phase")
        deleting = bool(meta.get("deletionTimestamp"))
        admissible = phase in ("Pending", "Running", None)
        if not state.admitted and not deleting and admissible and not await self._admit(
            key, pod, state, quiet=phase == "Running"
        ):
            return
        if not state.admitted and not deleting:
            return
        decision = self.engine.decide(key, pod, now=self.clock.monotonic())
        if decision.stage is not None:
            await self._apply_stage(key, pod, state, decision.stage)
        else:
            # every status write carries observedGeneration: acknowledge a spec change on its
            # own only when nothing else was written
            wrote_health = await self._sync_health(pod, state)
            wrote_readiness = await self._sync_readiness(pod)
            if not (wrote_health or wrote_readiness):
                await self._sync_observed_generation(pod)
        if decision.retry_after is not None:
            self.queue.add_after(key, decision.retry_after)

    async def _admit(self, key: str, pod: Obj, state: _PodState, *, quiet: bool) -> bool:
        if not quiet:  # a running pod found by a restarted kubelet was admitted before
            refusal = self._no_room(key, pod)
            if refusal is not None:
                await self._reject(pod, *refusal)
                return False
        try:
            await self._prepare(pod, state)
        except (NotAdmittedError, PrepareError) as exc:
            if quiet:  # a running pod found by a restarted kubelet: keep it running
                state.admitted = True
                return True
            self.events().event(
                regarding=pod,
                type="Warning",
                reason="FailedPrepareDynamicResources",
                action="PrepareDynamicResources",
                note=f"Failed to prepare dynamic resources: {exc}",
            )
            delay = _ADMISSION_BACKOFF[min(state.attempts, len(_ADMISSION_BACKOFF) - 1)]
            state.attempts += 1
            self.queue.add_after(key, delay)
            return False
        state.admitted = True
        return True

    def _no_room(self, key: str, pod: Obj) -> tuple[str, str] | None:
        """Upstream's resource admission against the pods already admitted on this node."""
        used = Resource()
        admitted = 0
        for other_key, other in self.states.items():
            other_pod = self.pods.get(other_key) if other.admitted and other_key != key else None
            if other_pod is None or (other_pod.get("status") or {}).get("phase") in _TERMINAL:
                continue
            admitted += 1
            used.add(pod_requests(other_pod.get("spec") or {})[0])
        return resource_fit_error(
            pod, allocatable=self.node.capacity, used=used, pods_admitted=admitted
        )

    async def _reject(self, pod: Obj, reason: str, message: str) -> None:
        """As upstream's kubelet rejects a pod: a Warning event, then ``Failed`` for good."""
        self.events().event(regarding=pod, type="Warning", reason=reason, action="Admit",
                            note=message)
        status = {**(pod.get("status") or {}), "phase": "Failed", "reason": reason,
                  "message": f"Pod was rejected: {message}"}
        await self._write_status(pod, status)

    async def _prepare(self, pod: Obj, state: _PodState) -> None:
        """Check and prepare the pod's claims (NotAdmittedError / PrepareError on failure)."""
        state.resources = await self.dra.prepare(pod)

    async def _release(self, key: str, state: _PodState) -> None:
        """Unprepare the pod's claims that no other pod on this node still uses."""
        await self.dra.release(key, state.resources)

    def _listen_to_claims(self, state: _PodState, keys: frozenset[str]) -> None:
        for claim_key in keys - state.claim_keys:
            self.claim_dispatch.subscribe(claim_key, self.claim_changed)
        for claim_key in state.claim_keys - keys:
            self.claim_dispatch.unsubscribe(claim_key, self.claim_changed)
        state.claim_keys = keys

    def _forget(self, key: str, state: _PodState) -> None:
        self._listen_to_claims(state, frozenset())
        self.dra.forget(key, state.resources)
        self.states.pop(key, None)
        self.engine.forget(key)

    def _pod_ip(self, state: _PodState) -> str:
        if not state.pod_ip:
            network = self.node.pod_cidr.rsplit(".", 1)[0]
            state.pod_ip = f"{network}.{self._next_ip}"
            self._next_ip = self._next_ip % 253 + 2
        return state.pod_ip

    def _overlay_health(self, status: Obj, state: _PodState) -> None:
        if self.reports_health:
            overlay_health(status, devices=state.resources.devices, cache=self.health)

    async def _write_status(self, pod: Obj, status: Obj) -> Obj:
        meta = pod.get("metadata") or {}
        patch = {"status": {k: status[k] for k in _STATUS_KEYS if k in status}}
        generation = meta.get("generation")
        if isinstance(generation, int):  # as kubelets since PodObservedGenerationTracking
            patch["status"]["observedGeneration"] = generation
        return await self.client.patch(
            PODS,
            name=str(meta.get("name")),
            namespace=str(meta.get("namespace")),
            patch=patch,
            patch_type="strategic",
            subresource="status",
        )

    async def _sync_health(self, pod: Obj, state: _PodState) -> bool:
        if not state.resources.devices or not self.reports_health:
            return False
        status = dict(pod.get("status") or {})
        self._overlay_health(status, state)
        current = pod.get("status") or {}
        if status.get("containerStatuses") == current.get("containerStatuses") and status.get(
            "allocatedResourcesStatus"
        ) == current.get("allocatedResourcesStatus"):
            return False
        await self._write_status(pod, status)
        return True

    async def _sync_observed_generation(self, pod: Obj) -> None:
        """A spec change (a new ``metadata.generation``) is acknowledged in the next status the
        kubelet writes (PodObservedGenerationTracking): with nothing else to write, at once."""
        generation = (pod.get("metadata") or {}).get("generation")
        status = pod.get("status") or {}
        if (
            isinstance(generation, int)
            and status.get("observedGeneration") != generation
            and status.get("phase") in ("Pending", "Running")
            and self.connected()
        ):
            await self._write_status(pod, {})

    async def _sync_readiness(self, pod: Obj) -> bool:
        """A running pod whose containers are all ready is Ready: the node lifecycle controller
        sets Ready=False while the node is not ready, and the kubelet's status sync puts it back
        once the node is (upstream's status manager, from container readiness)."""
        status = pod.get("status") or {}
        containers = status.get("containerStatuses") or []
        if (
            status.get("phase") != "Running"
            or not containers
            or not all(c.get("ready") for c in containers)
            or not self.connected()
        ):
            return False
        conditions = [dict(c) for c in status.get("conditions") or []]
        stale = [c for c in conditions if c.get("type") in _READY_CONDITIONS
                 and c.get("status") != "True"]
        if not stale:
            return False
        now = format_time(self.clock.now())
        for condition in stale:
            condition.update(status="True", lastTransitionTime=now)
        await self._write_status(pod, {"conditions": conditions})
        return True

    async def _apply_stage(self, key: str, pod: Obj, state: _PodState, stage: Stage) -> None:
        ctx = StageContext(
            now=format_time(self.clock.now()),
            node_name=self.node_name,
            host_ip=self.node.host_ip,
            pod_ip=self._pod_ip(state),
        )
        outcome = apply_steps(pod, stage, ctx)
        self._overlay_health(outcome.status, state)
        meta = pod.get("metadata") or {}
        if outcome.status != (pod.get("status") or {}):
            try:
                await self._write_status(pod, outcome.status)
            except Exception as exc:
                if is_not_found(exc):
                    return
                raise
        for event in outcome.events:
            self.events().event(
                regarding=pod,
                type="Warning" if event["type"] == "Warning" else "Normal",
                reason=event["reason"],
                action=stage.name,
                note=event["note"],
                field_path=event.get("fieldPath", ""),
            )
        if outcome.status.get("phase") in ("Succeeded", "Failed") or outcome.delete:
            await self._release(key, state)
        if outcome.delete:
            try:
                await self.client.delete(
                    PODS,
                    name=str(meta.get("name")),
                    namespace=str(meta.get("namespace")),
                    grace_period_seconds=0,
                    preconditions=Preconditions(uid=state.uid),
                )
            except Exception as exc:
                if not (is_not_found(exc) or is_conflict(exc)):
                    raise
