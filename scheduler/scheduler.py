"""The scheduler loop: pop a pod, run the framework's scheduling cycle, hand binding to a task.

Only the loop lives here; what each phase does is the framework's (``framework/runtime.py``)
and the plugins'. One pod at a time:

1. **Scheduling cycle** (no awaits on the happy path, so it sees one consistent state): PreFilter;
   Filter over the nodes, starting where the last pod stopped and stopping once enough feasible
   nodes are found (upstream's adaptive ``percentageOfNodesToScore``: 50% − nodes/125, at least
   5%, at least 100 nodes); PreScore, Score and NormalizeScore; the best node (ties broken at
   random); assume the pod in the cache; Reserve; Permit.
2. **Binding cycle** (a task per pod, so the next pod is scheduled while API writes are in flight):
   wait for Permit, PreBind, Bind, PostBind.
3. **Failure**: Unreserve, forget the assumed pod, put the pod back in the queue (backoff after an
   error, the unschedulable pool after a rejection, unless an event during the attempt helps), a
   ``FailedScheduling`` event with upstream's ``0/N nodes are available: ...`` text and a
   ``PodScheduled=False`` condition. Success: a ``Scheduled`` event.

A pod a PreEnqueue plugin keeps out of the queue (a gang member waiting for the rest of its
group, a pod whose claim does not exist yet) is reported as KEP-5501 does
(``SchedulerPreEnqueuePodStatus``): once the same rejection has lasted
:data:`PRE_ENQUEUE_STATUS_DELAY` seconds (transient ones never show), a ``NotReadyForScheduling``
event and ``PodScheduled=False`` with reason ``NotReadyForScheduling`` and the plugin's message.
``SchedulingGates`` is left to the API server's ``SchedulingGated`` condition. The condition is not
taken back when the pod is let in: its next scheduling attempt writes its own.

The :class:`Scheduler` is also the framework handle plugins receive.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Collection, Coroutine, Mapping, Sequence
from random import Random
from typing import Any

from prometheus_client import CollectorRegistry

from fakeapi import klog
from fakeapi.client import (
    POD_GROUPS,
    PODS,
    Client,
    EventRecorder,
    Informer,
    InformerFactory,
    Resource,
)
from fakeapi.clock import Clock
from fakeapi.features import default_gates
from fakeapi.objects import Obj, meta
from fakeapi.rules.podgroups import (
    REASON_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    initially_scheduled_condition,
    pod_group_name,
)
from fakeapi.scheduler.cache import Cache
from fakeapi.scheduler.config import configured_registry, enable_out_of_tree
from fakeapi.scheduler.eventhandlers import EventHandlers, responsible_for
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import ActionType, ClusterEvent, EventResource
from fakeapi.scheduler.framework.interface import NodeToStatus
from fakeapi.scheduler.framework.profile import DEFAULT_SCHEDULER_NAME, Profile
from fakeapi.scheduler.framework.registry import PluginFactory, Registry, merge_registries
from fakeapi.scheduler.framework.runtime import Framework
from fakeapi.scheduler.framework.status import Code, Status
from fakeapi.scheduler.framework.types import NodeInfo, QueuedPodInfo
from fakeapi.scheduler.framework.waiting import WaitingPod
from fakeapi.scheduler.metrics import SchedulerMetrics
from fakeapi.scheduler.plugins import default_profile, in_tree_registry
from fakeapi.scheduler.plugins.default_preemption import fit_error_message
from fakeapi.scheduler.queue import SchedulingQueue
from fakeapi.timefmt import format_time

__all__ = [
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NOT_READY_FOR_SCHEDULING",
    "PRE_ENQUEUE_STATUS_DELAY",
    "Scheduler",
    "best_score_index",
    "num_feasible_nodes_to_find",
]

log = logging.getLogger("fakeapi.scheduler")

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NO_NODES_AVAILABLE = "no nodes available to schedule pods"
POD_GROUP_INDEX = "fakeapi.scheduler/pod-group"
#: KEP-5501's reason for a pod a PreEnqueue plugin keeps out of the queue
NOT_READY_FOR_SCHEDULING = "NotReadyForScheduling"
#: how long a PreEnqueue rejection lasts before it is reported (KEP-5501's delay)
PRE_ENQUEUE_STATUS_DELAY = 5.0


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int | None = None) -> int:
    """How many feasible nodes to find before scoring (upstream ``numFeasibleNodesToFind``)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    adaptive = percentage if percentage and percentage > 0 else 0
    if not adaptive:
        adaptive = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    if adaptive >= 100:
        return num_all_nodes
    return max(num_all_nodes * adaptive // 100, MIN_FEASIBLE_NODES_TO_FIND)


def best_score_index(totals: Sequence[int], *, rng: Random) -> int:
    """The position of the best total score, ties broken uniformly at random.

    Upstream samples the reservoir one tie at a time; one draw among all ties (in node order)
    picks with the same odds. The draw-th best score is found by C-level scans: this runs over
    hundreds of nodes per pod.
    """
    best = max(totals)
    ties = totals.count(best)
    chosen = totals.index(best)
    for _ in range(rng.randrange(ties) if ties > 1 else 0):
        chosen = totals.index(best, chosen + 1)
    return chosen


def _pod_group_index(pod: Obj) -> list[str]:
    group = pod_group_name(pod)
    return [f"{meta(pod).get('namespace', '')}/{group}"] if group else []


def _pod_ref(pod: Obj) -> dict[str, Any]:
    """The pod as an event's ``regarding`` (list items carry no apiVersion/kind)."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(pod)}


class Scheduler:
    """kube-scheduler for one profile, running against the API through ``client``.

    ``profile`` says which plugins run where (default: upstream's default plugins;
    ``fakeapi.scheduler.config.load_scheduler_config`` reads one from a KubeSchedulerConfiguration).
    ``plugins`` are out-of-tree plugins by name, registered beside the in-tree ones (``registry``,
    by default all of them) as ``app.WithPlugin`` does, and enabled at every point they implement
    after the profile's plugins unless the profile places them itself.
    """

    def __init__(
        self,
        *,
        client: Client,
        informers: InformerFactory,
        clock: Clock,
        rng: Random,
        feature_gates: Mapping[str, bool] | None = None,
        metrics: CollectorRegistry | None = None,
        scheduler_name: str = DEFAULT_SCHEDULER_NAME,
        profile: Profile | None = None,
        registry: Registry | None = None,
        plugins: Mapping[str, PluginFactory] | None = None,
    ) -> None:
        self.client = client
        self.informers = informers
        self.clock = clock
        self.rng = rng
        self.feature_gates: Mapping[str, bool] = {**default_gates(), **(feature_gates or {})}
        if profile is None:
            profile = default_profile(scheduler_name=scheduler_name)
        elif scheduler_name not in (DEFAULT_SCHEDULER_NAME, profile.scheduler_name):
            raise ValueError(
                f"scheduler_name {scheduler_name!r} differs from the profile's schedulerName "
                f"{profile.scheduler_name!r}: name the scheduler in one place"
            )
        self.scheduler_name = profile.scheduler_name
        self.profile = enable_out_of_tree(profile, list(plugins or ()))
        self.metrics = SchedulerMetrics(registry=metrics, profile=self.profile.scheduler_name)
        self.recorder = EventRecorder(
            client, component="default-scheduler", clock=clock, instance=scheduler_name
        )
        self.cache = Cache()
        self.pods = informers.informer(PODS)
        with contextlib.suppress(ValueError):
            self.pods.add_index(POD_GROUP_INDEX, _pod_group_index)
        self.framework = Framework(
            handle=self,
            registry=configured_registry(
                merge_registries(in_tree_registry() if registry is None else registry,
                                 plugins or {}),
                self.profile,
                feature_gates=self.feature_gates,
            ),
            profile=self.profile,
        )
        self.queue = SchedulingQueue(
            framework=self.framework,
            clock=clock,
            pop_from_backoff=self.feature_gates.get("SchedulerPopFromBackoffQ", True),
            on_gated=(
                self._gated if self.feature_gates.get("SchedulerPreEnqueuePodStatus") else None
            ),
        )
        self.metrics.count_pending(self.queue.pending_counts)
        self._next_start_node = 0
        self._binding_tasks: set[asyncio.Task[None]] = set()
        #: KEP-5501: rejections waiting for their delay, oldest first (so also soonest due: the
        #: delay is one constant), as (due, pod, plugin, message); one sweeper task waits for
        #: the head, rather than a task and a timer per gated pod (every template pod is gated
        #: until its claim exists, almost always for far less than the delay)
        self._gated_reports: collections.deque[tuple[float, QueuedPodInfo, str, str]] = (
            collections.deque()
        )
        self._gated_sweeper: asyncio.Task[None] | None = None
        #: the sweeper and the reports it found due, while they write
        self._report_tasks: set[asyncio.Task[None]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False
        self._stopped = False
        self.event_handlers = EventHandlers(
            cache=self.cache,
            queue=self.queue,
            framework=self.framework,
            scheduler_name=self.profile.scheduler_name,
        )
        self.event_handlers.register(
            pods=self.pods, informer=self.informer, feature_gates=self.feature_gates
        )

    # -- the framework handle ---------------------------------------------------------------------
    def informer(self, resource: Resource) -> Informer:
        return self.informers.informer(resource)

    def node_infos(self) -> Sequence[NodeInfo]:
        return self.cache.nodes

    def plugin_args(self, name: str) -> Mapping[str, Any]:
        return self.profile.args(name)

    def waiting_pods(self) -> Collection[WaitingPod]:
        return list(self.framework.waiting.values())

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.framework.waiting.get(uid)

    def pods_of_group(self, namespace: str, group: str) -> list[Obj]:
        return list(self.pods.by_index(POD_GROUP_INDEX, f"{namespace}/{group}"))

    def is_assumed_or_bound(self, uid: str) -> bool:
        return self.cache.is_assumed_or_bound(uid)

    def event(
        self,
        *,
        regarding: Obj,
        type: str,
        reason: str,
        action: str,
        note: str,
        related: Obj | None = None,
    ) -> None:
        self.recorder.event(
            regarding=dict(regarding),
            type="Warning" if type == "Warning" else "Normal",
            reason=reason,
            action=action,
            note=note,
            related=dict(related) if related is not None else None,
        )

    def activate(self, pods: Sequence[Obj]) -> None:
        self.queue.activate(pods)

    def run_filters(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        return self.framework.run_filters(state, pod, node)

    def count_preemption(self, *, victims: int | None) -> None:
        self.metrics.preemption(victims=victims)

    def count_claim_create(self, *, success: bool, admin_access: bool) -> None:
        self.metrics.claim_creates.labels(
            status="success" if success else "failure", admin_access=str(admin_access).lower()
        ).inc()

    # -- lifecycle --------------------------------------------------------------------------------
    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        self.informers.start()
        await self.informers.wait_for_sync(timeout=60)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._run(), name="scheduler loop"),
            loop.create_task(self.queue.run_flushers(), name="scheduler queue flushers"),
        ]

    async def stop(self) -> None:
        if self._stopped or not self._started:
            self._stopped = True
            return
        self._stopped = True
        self.queue.close()
        for task in self._tasks:
            task.cancel()
        for task in [*self._binding_tasks, *self._report_tasks]:
            task.cancel()
        for task in [*self._tasks, *self._binding_tasks, *self._report_tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.recorder.close()

    async def _run(self) -> None:
        while True:
            qpi = await self.queue.pop()
            if qpi is None:
                return
            try:
                await self.schedule_one(qpi)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("scheduling %s failed", qpi.info.key)
                self.queue.done(qpi.uid)
            # let informers and binding tasks run between pods
            await asyncio.sleep(0)

    async def wait_idle(self) -> None:
        """Wait until no binding is in flight (tests and benchmarks)."""
        while self._binding_tasks:
            await asyncio.gather(*list(self._binding_tasks), return_exceptions=True)

    # -- one pod -----------------------------------------------------------------------------------
    async def schedule_one(self, qpi: QueuedPodInfo) -> None:
        pod = self.pods.get(qpi.info.key) or qpi.pod
        if meta(pod).get("uid") != qpi.uid or not responsible_for(
            self.profile.scheduler_name, pod
        ):
            self.queue.done(qpi.uid)
            return
        if pod is not qpi.pod:
            qpi.info = qpi.info.for_version(pod, spec=pod.get("spec") or {})
        start = self.clock.monotonic()
        state = CycleState()
        state.pod_info = qpi.info
        nodes = self.cache.nodes
        if not nodes:
            await self._failed(
                qpi,
                state,
                Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_NODES_AVAILABLE,)),
                NO_NODES_AVAILABLE,
                start=start,
            )
            return
        result, status = self.framework.run_pre_filter(state, pod, nodes)
        diagnosis = NodeToStatus(num_all_nodes=len(nodes))
        if status is not None:
            if status.rejected:
                diagnosis.absent = status
                await self._unschedulable(qpi, state, diagnosis, prefilter=status, start=start)
            else:
                await self._failed(qpi, state, status, status.message, start=start)
            return
        candidates: Sequence[NodeInfo] = nodes
        if result is not None and result.node_names is not None:
            candidates = [n for n in nodes if n.name in result.node_names]
            diagnosis.absent = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(result.plugins))}]",),
            )
        feasible = self._find_feasible(state, pod, candidates, diagnosis)
        if isinstance(feasible, Status):
            await self._failed(qpi, state, feasible, feasible.message, start=start)
            return
        if not feasible:
            await self._unschedulable(qpi, state, diagnosis, prefilter=None, start=start)
            return
        host = feasible[0].name
        if len(feasible) > 1:
            chosen = self._prioritize(state, pod, feasible)
            if isinstance(chosen, Status):
                await self._failed(qpi, state, chosen, chosen.message, start=start)
                return
            host = chosen
        self.cache.assume_pod(qpi.info, host)
        status = self.framework.run_reserve(state, pod, host)
        if status is None:
            status = self.framework.run_permit(state, pod, host)
            if status is not None and status.code is Code.WAIT:
                status = None
        if status is not None:
            await self.framework.run_unreserve(state, pod, host)
            self.cache.forget_pod(qpi.uid)
            if status.rejected:
                qpi.unschedulable_plugins = {status.plugin} if status.plugin else set()
            await self._failed(qpi, state, status, status.message, start=start)
            return
        task = asyncio.get_running_loop().create_task(
            self._binding_cycle(qpi, state, pod, host, start), name=f"bind {qpi.info.key}"
        )
        self._binding_tasks.add(task)
        task.add_done_callback(self._binding_tasks.discard)

    def _find_feasible(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo], diagnosis: NodeToStatus
    ) -> list[NodeInfo] | Status:
        total = len(nodes)
        wanted = num_feasible_nodes_to_find(total, self.profile.percentage_of_nodes_to_score)
        start = self._next_start_node % total if total else 0
        feasible, processed, error = self.framework.find_feasible(
            state, pod, nodes, start=start, wanted=wanted, statuses=diagnosis.statuses
        )
        self._next_start_node = (start + processed) % total if total else 0
        return error if error is not None else feasible

    def _prioritize(self, state: CycleState, pod: Obj, nodes: list[NodeInfo]) -> str | Status:
        status = self.framework.run_pre_score(state, pod, nodes)
        if status is not None:
            return status
        totals, status = self.framework.run_score(state, pod, nodes)
        if status is not None:
            return status
        return nodes[best_score_index(totals, rng=self.rng)].name

    # -- binding cycle --------------------------------------------------------------------------
    async def _binding_cycle(
        self, qpi: QueuedPodInfo, state: CycleState, pod: Obj, host: str, start: float
    ) -> None:
        status = await self.framework.wait_on_permit(pod)
        if status is None:
            status = await self.framework.run_pre_bind(state, pod, host)
        if status is None:
            status = await self.framework.run_bind(state, pod, host)
        if status is not None:
            await self.framework.run_unreserve(state, pod, host)
            self.cache.forget_pod(qpi.uid)
            if status.rejected and status.plugin:
                qpi.unschedulable_plugins = {status.plugin}
            await self._failed(qpi, state, status, status.message, start=start)
            self.queue.on_event(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                pod,
                None,
                exclude=qpi.uid,
            )
            return
        self.cache.finish_binding(qpi.uid)
        self.framework.run_post_bind(state, pod, host)
        self.queue.done(qpi.uid)
        now = self.clock.monotonic()
        self.metrics.attempt("scheduled", now - start)
        started = qpi.initial_timestamp if qpi.initial_timestamp is not None else now
        self.metrics.scheduled(attempts=qpi.attempts, seconds=now - started)
        metadata = meta(pod)
        namespace, name = metadata.get("namespace"), metadata.get("name")
        self.event(
            regarding=_pod_ref(pod),
            type="Normal",
            reason="Scheduled",
            action="Binding",
            note=f"Successfully assigned {namespace}/{name} to {host}",
        )
        await self._record_group_condition(
            pod, scheduled=True, reason=REASON_SCHEDULED,
            message=f"pod {namespace}/{name} of the group was bound to {host}",
        )

    # -- PreEnqueue rejections (KEP-5501) ---------------------------------------------------------
    def _gated(self, qpi: QueuedPodInfo, status: Status) -> None:
        """A PreEnqueue plugin keeps the pod out: report it once it has lasted the delay."""
        message = status.message
        if status.plugin == "SchedulingGates" or not message:
            return  # the API server's SchedulingGated condition says it already
        if message == qpi.pre_enqueue_message:
            return
        qpi.pre_enqueue_message = message
        due = self.clock.monotonic() + PRE_ENQUEUE_STATUS_DELAY
        self._gated_reports.append((due, qpi, status.plugin, message))
        if self._gated_sweeper is None:
            self._gated_sweeper = self._report_task(self._sweep_gated(), "gated pod reports")

    def _report_task(self, report: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(report, name=name)
        self._report_tasks.add(task)
        task.add_done_callback(self._report_tasks.discard)
        return task

    async def _sweep_gated(self) -> None:
        """Until no rejection waits: sleep until the oldest is due, then report every due one
        that still holds (each in its own task: a report writes to the API)."""
        reports = self._gated_reports
        try:
            while reports:
                # Rejections of pods the queue has let go of (bound, deleted) are dropped
                # before their time, so that the sweeper sleeps until the next one that may
                # still be reported, not once per pod. Such a pod never comes back as the same
                # QueuedPodInfo: it is bound or gone for good, or, in the one exception (a pod
                # the queue takes again after dropping it), a new QueuedPodInfo is gated and
                # reported on its own, so dropping the old one only saves a duplicate report.
                while reports and self.queue.where(reports[0][1].uid) is None:
                    reports.popleft()
                if not reports:
                    break
                wait = reports[0][0] - self.clock.monotonic()
                if wait > 0:
                    await self.clock.sleep(wait)
                now = self.clock.monotonic()
                while reports and reports[0][0] <= now:
                    _, qpi, plugin, message = reports.popleft()
                    if self._still_gated(qpi, message):
                        self._report_task(
                            self._report_gated(qpi, plugin, message), f"gated {qpi.info.key}"
                        )
        finally:
            self._gated_sweeper = None

    def _still_gated(self, qpi: QueuedPodInfo, message: str) -> bool:
        """Not let in, gone, or rejected for another reason since the rejection was seen."""
        return self.queue.where(qpi.uid) == "gated" and qpi.pre_enqueue_message == message

    async def _report_gated(self, qpi: QueuedPodInfo, plugin: str, message: str) -> None:
        if not self._still_gated(qpi, message):
            return  # changed between the sweep and this task's first step
        current = self.pods.get(qpi.info.key)
        if current is None or meta(current).get("uid") != qpi.uid:
            return
        klog.info(log, "Status after running PreEnqueue plugin", pod=qpi.info.key,
                  plugin=plugin, status=message)
        # the rejection was judged on the pod as this process last saw it; when its informer
        # lags (a busy machine), the pod may have moved on, e.g. got its claim: the report is
        # written only over that very version, or not at all
        if await self._set_unschedulable_condition(
            current, reason=NOT_READY_FOR_SCHEDULING, message=message, judged_on_version=True
        ):
            self.event(regarding=_pod_ref(current), type="Normal",
                       reason=NOT_READY_FOR_SCHEDULING, action="Scheduling", note=message)

    # -- failures ---------------------------------------------------------------------------------
    async def _unschedulable(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        diagnosis: NodeToStatus,
        *,
        prefilter: Status | None,
        start: float,
    ) -> None:
        plugins = {s.plugin for s in diagnosis.statuses.values() if s.plugin}
        if prefilter is not None and prefilter.plugin:
            plugins.add(prefilter.plugin)
        pod = qpi.pod
        result, post = await self.framework.run_post_filter(state, pod, diagnosis)
        nominated = result.nominated_node_name if result is not None else None
        if post.code is Code.ERROR:
            await self._failed(qpi, state, post, post.message, start=start)
            return
        message = f"0/{diagnosis.num_all_nodes} nodes are available:"
        if prefilter is not None:
            message += f" {prefilter.message}."
        else:
            counts: dict[str, int] = {}
            for status in diagnosis.statuses.values():
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + 1
            absent = diagnosis.num_all_nodes - len(diagnosis.statuses)
            if absent > 0 and diagnosis.absent is not None:
                for reason in diagnosis.absent.reasons:
                    counts[reason] = counts.get(reason, 0) + absent
            message = fit_error_message(diagnosis.num_all_nodes, counts)
        if post.message:
            message += f" {post.message}"
        qpi.unschedulable_plugins = plugins
        await self._failed(
            qpi, state, Status(Code.UNSCHEDULABLE, (message,)), message, start=start,
            nominated=nominated,
        )

    async def _failed(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        status: Status,
        message: str,
        *,
        start: float,
        nominated: str | None = None,
    ) -> None:
        """Requeue, tell the user, mark the pod unschedulable; ``nominated``: the node
        preemption cleared for it, or "" to clear a nomination (``status.nominatedNodeName``;
        None leaves it)."""
        error = not status.rejected
        qpi.failed_with_error = error
        if error:
            qpi.unschedulable_plugins = set()
        self.metrics.attempt("error" if error else "unschedulable", self.clock.monotonic() - start)
        current = self.pods.get(qpi.info.key)
        if (
            current is None
            or meta(current).get("uid") != qpi.uid
            or not responsible_for(self.profile.scheduler_name, current)
        ):
            self.queue.done(qpi.uid)
            return
        self.queue.add_unschedulable_if_not_present(qpi)
        self.event(
            regarding=_pod_ref(current),
            type="Warning",
            reason="FailedScheduling",
            action="Scheduling",
            note=message,
        )
        await self._set_unschedulable_condition(
            current, reason="SchedulerError" if error else "Unschedulable", message=message,
            nominated=nominated,
        )
        await self._record_group_condition(
            current, scheduled=False,
            reason=REASON_SCHEDULER_ERROR if error else REASON_UNSCHEDULABLE, message=message,
        )

    async def _record_group_condition(
        self, pod: Obj, *, scheduled: bool, reason: str, message: str
    ) -> None:
        """The PodGroupInitiallyScheduled condition of the pod's PodGroup (upstream's names):
        True once a member is bound (it passed the gang's Permit, so the group's requirement
        is met), False with the failure's reason until then. Best effort: a failed write is
        written again on the group's next attempt."""
        group_name = pod_group_name(pod)
        if not group_name:
            return
        namespace = meta(pod).get("namespace", "")
        try:
            group = await self.client.get(POD_GROUPS, namespace=namespace, name=group_name)
            conditions = initially_scheduled_condition(
                group, scheduled=scheduled, reason=reason, message=message,
                now=self.clock.now(),
            )
            if conditions is None:
                return
            group["status"] = {**(group.get("status") or {}), "conditions": conditions}
            await self.client.update_status(POD_GROUPS, body=group)
        except Exception as exc:
            log.debug("updating the condition of PodGroup %s/%s: %s", namespace, group_name, exc)

    async def _set_unschedulable_condition(
        self,
        pod: Obj,
        *,
        reason: str,
        message: str,
        nominated: str | None = None,
        judged_on_version: bool = False,
    ) -> bool:
        """Patch the PodScheduled=False condition (and the nominated node); True when written.
        ``judged_on_version``: only over ``pod``'s resourceVersion (a precondition the API
        server checks), for a verdict that a newer version of the pod may have made stale."""
        status = pod.get("status") or {}
        since = format_time(self.clock.now())
        if nominated is not None and (status.get("nominatedNodeName") or "") == nominated:
            nominated = None  # written only when it changes (upstream's updatePod)
        for condition in status.get("conditions") or ():
            if condition.get("type") != "PodScheduled" or condition.get("status") != "False":
                continue
            if (
                condition.get("reason") == reason
                and condition.get("message") == message
                and nominated is None
            ):
                return False
            # still False: the condition changed its reason, not its status (UpdatePodCondition)
            since = condition.get("lastTransitionTime") or since
        metadata = meta(pod)
        written: dict[str, Any] = {
            "type": "PodScheduled",
            "status": "False",
            "reason": reason,
            "message": message,
            "lastProbeTime": None,
            "lastTransitionTime": since,
        }
        if isinstance(metadata.get("generation"), int):  # PodObservedGenerationTracking
            written["observedGeneration"] = metadata["generation"]
        patch: dict[str, Any] = {"status": {"conditions": [written]}}
        if nominated is not None:
            patch["status"]["nominatedNodeName"] = nominated or None
        if judged_on_version:
            patch["metadata"] = {"resourceVersion": metadata.get("resourceVersion")}
        try:
            await self.client.patch(
                PODS,
                name=metadata.get("name", ""),
                namespace=metadata.get("namespace", ""),
                patch=patch,
                patch_type="strategic",
                subresource="status",
            )
        except Exception as exc:
            log.debug("updating the PodScheduled condition of %s: %s", metadata.get("name"), exc)
            return False
        return True
