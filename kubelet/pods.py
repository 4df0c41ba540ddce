"""The pod half of a kubelet: one work queue of pod keys, reconciled from current state.

For each pod bound to the node, :meth:`PodSync.sync` decides what to do now: release and forget a
pod that is gone, admit and prepare a new one (:class:`~.dra.manager.DRAManager`), apply the
lifecycle stage that is due (:class:`~.engine.StageEngine`, :func:`~.steps.apply_steps`) or
refresh its device health. Whatever waits — a stage's delay, admission back-off, a crash-loop
back-off, an unprepare that failed — is a ``WorkQueue.add_after`` on the injected clock, so the
pod is simply looked at again later.

As upstream's kubelet, it shows a pod it cannot start yet (devices not prepared, a stage's delay)
as ``ContainerCreating`` (:func:`~.podstatus.pending_status`), unprepares a pod's claims after its
containers stopped and *before* reporting it Succeeded or Failed or deleting it — when that fails
(a stopped DRA driver) the terminal phase is held and the pod is not deleted until it succeeds —
and writes nothing at all while its node is cut off from the API (``fault-node-stopped``).
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
from fakeapi.kubelet.backoff import CrashLoopBackOff
from fakeapi.kubelet.dispatch import Dispatcher
from fakeapi.kubelet.dra.driver import PrepareError, UnprepareError
from fakeapi.kubelet.dra.health import HealthCache, overlay_health
from fakeapi.kubelet.dra.manager import DRAManager, PodResources
from fakeapi.kubelet.engine import StageEngine
from fakeapi.kubelet.node import NodeAgent
from fakeapi.kubelet.podstatus import (
    CRASH_LOOP_BACK_OFF,
    KUBELET_CONDITIONS,
    READY_CONDITIONS,
    TERMINAL_PHASES,
    conditions_while_held,
    hold_terminal_phase,
    kubelet_conditions,
    pending_status,
    pod_phase,
    state_kind,
    status_patch,
)
from fakeapi.kubelet.stages import Stage
from fakeapi.kubelet.steps import StageContext, apply_steps
from fakeapi.objects import Obj
from fakeapi.rules.podrequests import Resource, pod_requests
from fakeapi.timefmt import format_time, parse_time

__all__ = ["CLAIM_INDEX", "PodSync", "claim_index"]

log = logging.getLogger("fakeapi.kubelet")

#: index names on the shared informers are shared too: name them by what they index
CLAIM_INDEX = "resourceClaimNames"
#: admission and unprepare retries
_ADMISSION_BACKOFF = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
_TERMINAL = TERMINAL_PHASES


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


def _exited_at(entry: Obj) -> float | None:
    """When a container that waits to restart exited (its ``finishedAt``), in epoch seconds."""
    state = entry.get("state") or {}
    terminated = state.get("terminated") or ((entry.get("lastState") or {}).get("terminated")
                                             if state.get("waiting") is not None else None)
    finished = (terminated or {}).get("finishedAt")
    return parse_time(str(finished)).timestamp() if finished else None


@dataclass(slots=True)
class _PodState:
    uid: str
    admitted: bool = False
    resources: PodResources = field(default_factory=PodResources)
    attempts: int = 0
    #: admission is not tried again before this monotonic time, unless a claim changed
    retry_at: float = 0.0
    claim_changed: bool = False
    unprepare_attempts: int = 0
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
        #: False while the node is cut off (``fault-node-stopped``): nothing is written for pods
        self.connected = connected
        self.states: dict[str, _PodState] = {}
        #: the kubelet's crash-loop back-off, per container (upstream's ``crashLoopBackOff``)
        self.back_off = CrashLoopBackOff()
        self._next_ip = 2

    def claim_changed(self, claim: Obj) -> None:
        """A claim changed: look again at this node's pods that use it (admission at once)."""
        for key in self.pods.index_keys(CLAIM_INDEX, object_key(claim)):
            pod = self.pods.get(key)
            if pod is not None and (pod.get("spec") or {}).get("nodeName") == self.node_name:
                state = self.states.get(key)
                if state is not None:
                    state.claim_changed = True
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
        if not self.connected():
            # the node is cut off from the API: a kubelet that cannot reach it changes nothing
            # about its pods (they stay Terminating); the kubelet looks at them all once back
            return
        pod = self.pods.get(key)
        if pod is not None and (pod.get("spec") or {}).get("nodeName") != self.node_name:
            pod = None  # not (or no longer) ours
        state = self.states.get(key)
        uid = str(((pod or {}).get("metadata") or {}).get("uid") or "")
        if state is not None and (pod is None or state.uid != uid):
            # gone, or replaced by a pod of the same name: its claims are unprepared first
            if not await self._release(key, state):
                return
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
        if await self._finish(key, pod, state):
            return
        back_off = self._back_off_left(pod)
        if back_off > 0:  # look again when it ends, whatever delays the stages have
            self.queue.add_after(key, back_off)
        decision = self.engine.decide(key, pod, now=self.clock.monotonic(), back_off=back_off)
        if decision.stage is not None:
            await self._apply_stage(key, pod, state, decision.stage)
        elif decision.retry_after is not None and not deleting and await self._pending_written(
            pod
        ):
            pass  # the containers start later: meanwhile the pod shows ContainerCreating
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
            wait = state.retry_at - self.clock.monotonic()
            if wait > 0 and not state.claim_changed:  # our own write brought us back early
                self.queue.add_after(key, wait)
                return False
        state.claim_changed = False
        try:
            await self._prepare(pod, state)
        except (NotAdmittedError, PrepareError) as exc:
            if quiet:  # a running pod found by a restarted kubelet: keep it running
                state.admitted = True
                return True
            # as upstream's, the pod shows ContainerCreating while its devices are not ready
            pod = await self._write_pending_status(pod)
            self.events().event(
                regarding=pod,
                type="Warning",
                reason="FailedPrepareDynamicResources",
                action="PrepareDynamicResources",
                # the kubelet's words around its DRA manager's (PrepareResources wraps its own)
                note=f"Failed to prepare dynamic resources: prepare dynamic resources: {exc}",
            )
            delay = _ADMISSION_BACKOFF[min(state.attempts, len(_ADMISSION_BACKOFF) - 1)]
            state.attempts += 1
            state.retry_at = self.clock.monotonic() + delay
            self.queue.add_after(key, delay)
            return False
        state.admitted = True
        return True

    async def _pending_written(self, pod: Obj) -> bool:
        """Write the pending status of a pod whose containers start later (upstream writes it
        before preparing its devices; a pod whose first stage is due at once goes straight to
        it, one status write instead of two). Whether anything was written."""
        return await self._write_pending_status(pod) is not pod

    async def _write_pending_status(self, pod: Obj) -> Obj:
        """The status of a pod the kubelet is about to start (:func:`~.stages.pending_status`),
        written when it differs from what the pod shows; the pod as it is afterwards."""
        if (pod.get("status") or {}).get("phase") not in ("Pending", None):
            return pod
        status = pending_status(
            pod, now=format_time(self.clock.now()), host_ip=self.node.host_ip
        )
        if not status_patch(pod.get("status") or {}, status):
            return pod
        try:
            return await self._write_status(pod, status)
        except Exception as exc:
            if is_not_found(exc):
                return pod
            raise

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
        await self.dra.prepare(pod, state.resources)

    async def _release(self, key: str, state: _PodState) -> bool:
        """Unprepare the pod's claims that no other pod on this node still uses. False when a
        driver could not (not registered): then the pod is looked at again with back-off, and
        at once when a driver registers."""
        try:
            await self.dra.release(key, state.resources)
        except UnprepareError as exc:
            log.info("node %s: pod %s: unprepare dynamic resources: %s", self.node_name, key, exc)
            delay = _ADMISSION_BACKOFF[min(state.unprepare_attempts, len(_ADMISSION_BACKOFF) - 1)]
            state.unprepare_attempts += 1
            self.queue.add_after(key, delay)
            return False
        state.unprepare_attempts = 0
        return True

    async def _finish(self, key: str, pod: Obj, state: _PodState) -> bool:
        """A pod whose containers are done for good while its phase was held back (unprepare
        failed): unprepare again, then report the terminal phase. True when that was the case.

        Level-based, from the pod's container statuses as upstream's ``getPhase`` reads them,
        so a restarted kubelet finishes such a pod too. Pods being deleted are finished by the
        stage that deletes them."""
        status = pod.get("status") or {}
        if (
            status.get("phase") in _TERMINAL
            or (pod.get("metadata") or {}).get("deletionTimestamp")
            or not status.get("containerStatuses")
        ):
            return False
        phase = pod_phase(pod, status, terminal=False)
        if phase not in _TERMINAL:
            return False
        if not await self._release(key, state):
            return True
        finished = {**status, "phase": phase}
        finished["conditions"] = kubelet_conditions(
            pod, finished, now=format_time(self.clock.now())
        )
        self._overlay_health(finished, state)
        try:
            await self._write_status(pod, finished)
        except Exception as exc:
            if not is_not_found(exc):
                raise
        return True

    # --- crash-loop back-off -------------------------------------------------------------------
    @staticmethod
    def _back_off_key(pod: Obj, entry: Obj) -> tuple[str, str, str]:
        """Upstream keys the back-off by pod and container (name, image, resources)."""
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        return uid, str(entry.get("name")), str(entry.get("image") or "")

    def _waiting_to_restart(self, pod: Obj) -> list[tuple[Obj, float]]:
        """(status, exit time) of the pod's containers that exited and may restart."""
        out = []
        for entry in (pod.get("status") or {}).get("containerStatuses") or []:
            kind = state_kind(entry)
            waiting = (entry.get("state") or {}).get("waiting") or {}
            if kind == "terminated" or waiting.get("reason") == CRASH_LOOP_BACK_OFF:
                exited = _exited_at(entry)
                if exited is not None:
                    out.append((entry, exited))
        return out

    def _back_off_context(self, pod: Obj) -> dict[str, tuple[float, float]]:
        """Container name -> (delay, seconds left) for containers still in back-off."""
        now = self.clock.now().timestamp()
        out = {}
        for entry, exited in self._waiting_to_restart(pod):
            key = self._back_off_key(pod, entry)
            left = self.back_off.left(key, exited, now=now)
            if left > 0:
                out[str(entry.get("name"))] = (self.back_off.get(key), left)
        return out

    def _back_off_left(self, pod: Obj) -> float:
        """Seconds until the first container waiting in CrashLoopBackOff may restart."""
        lefts = [
            left for name, (_, left) in self._back_off_context(pod).items()
            if any(e.get("name") == name and state_kind(e) == "waiting"
                   for e in (pod.get("status") or {}).get("containerStatuses") or [])
        ]
        return min(lefts, default=0.0)

    def _count_restarts(self, pod: Obj, status: Obj) -> None:
        """Containers that restarted move their back-off on (``backOff.Next``)."""
        before = {e.get("name"): (e, t) for e, t in self._waiting_to_restart(pod)}
        now = self.clock.now().timestamp()
        for entry in status.get("containerStatuses") or []:
            old = before.get(entry.get("name"))
            if old is not None and int(entry.get("restartCount", 0)) > int(
                old[0].get("restartCount", 0)
            ):
                self.back_off.next(self._back_off_key(pod, old[0]), old[1], now=now)

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
        self.back_off.forget(lambda k: not (isinstance(k, tuple) and k[0] == state.uid))

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
        """Patch ``pods/status`` from the pod's current status to ``status`` (the whole status
        the kubelet wants), with ``observedGeneration``."""
        meta = pod.get("metadata") or {}
        patch = {"status": status_patch(pod.get("status") or {}, status)}
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
        ):
            # the conditions the kubelet generates carry the generation they were made for
            conditions = [
                {**c, "observedGeneration": generation}
                if c.get("type") in KUBELET_CONDITIONS and "observedGeneration" in c else c
                for c in status.get("conditions") or []
            ]
            await self._write_status(pod, {**status, "conditions": conditions})

    async def _sync_readiness(self, pod: Obj) -> bool:
        """A running pod's Ready and ContainersReady conditions follow its containers: the node
        lifecycle controller sets Ready=False while the node is not ready, and the kubelet's
        status sync puts back what the containers say once the node is (upstream's status
        manager reconciles the API's status with its own). Pods being deleted are left to the
        stage that stops them."""
        status = pod.get("status") or {}
        if (
            status.get("phase") != "Running"
            or not status.get("containerStatuses")
            or (pod.get("metadata") or {}).get("deletionTimestamp")
        ):
            return False
        conditions = conditions_while_held(pod, status, now=format_time(self.clock.now()))

        def verdict(items: list[Obj]) -> dict[Any, tuple[Any, ...]]:
            return {c.get("type"): (c.get("status"), c.get("reason"), c.get("message"))
                    for c in items if c.get("type") in READY_CONDITIONS}

        if verdict(conditions) == verdict(list(status.get("conditions") or [])):
            return False
        await self._write_status(pod, {**status, "conditions": conditions})
        return True

    async def _apply_stage(self, key: str, pod: Obj, state: _PodState, stage: Stage) -> None:
        ctx = StageContext(
            now=format_time(self.clock.now()),
            node_name=self.node_name,
            host_ip=self.node.host_ip,
            pod_ip=self._pod_ip(state),
            back_off=self._back_off_context(pod),
        )
        outcome = apply_steps(pod, stage, ctx)
        self._overlay_health(outcome.status, state)
        meta = pod.get("metadata") or {}
        current = pod.get("status") or {}
        status = outcome.status
        # upstream unprepares after the containers stopped and before the pod is reported
        # terminal (the resourceclaim controller releases a terminal pod's claims) or deleted
        ends = outcome.delete or status.get("phase") in _TERMINAL
        if ends and not await self._release(key, state):
            if status.get("phase") in _TERMINAL and current.get("phase") not in _TERMINAL:
                status = hold_terminal_phase(
                    pod, current=current, new=status, now=format_time(self.clock.now())
                )
            outcome.delete = False
        if status != current:
            try:
                await self._write_status(pod, status)
            except Exception as exc:
                if is_not_found(exc):
                    return
                raise
        for event in outcome.events:  # once written: a failed write is retried, events not
            self.events().event(
                regarding=pod,
                type="Warning" if event["type"] == "Warning" else "Normal",
                reason=event["reason"],
                action=stage.name,
                note=event["note"],
                field_path=event.get("fieldPath", ""),
            )
        self._count_restarts(pod, status)
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
