"""The extension points, one small protocol each, in the order a pod meets them.

A plugin is an object with a ``name`` that implements any subset of these protocols; the
framework (``framework/runtime.py``) finds out which by checking for the methods. Two cycles:

**Scheduling cycle** — one pod at a time, synchronous (it reads only informer caches and the
scheduler cache, so it needs no awaits and sees one consistent state):
PreEnqueue (before the pod may enter the active queue) → QueueSort (order of the active queue) →
PreFilter → Filter (per node) → PostFilter (only when no node fits) → PreScore → Score (per node)
+ NormalizeScore → Reserve → Permit.

**Binding cycle** — asynchronous, one task per pod, so the next pod is scheduled while this one's
API writes are in flight: wait for Permit → PreBind → Bind → PostBind. A failure anywhere after
Reserve runs Unreserve of every Reserve plugin, in reverse order.

What each :class:`~fakeapi.scheduler.framework.status.Status` code means depends on the point;
each protocol below says it. ``None`` is success everywhere.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fakeapi.client import Client, Informer
from fakeapi.clock import Clock
from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import ClusterEventWithHint
from fakeapi.scheduler.framework.status import Status
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore, QueuedPodInfo

if TYPE_CHECKING:
    from fakeapi.scheduler.framework.waiting import WaitingPod

__all__ = [
    "BatchFilterPlugin",
    "BatchScorePlugin",
    "BindPlugin",
    "EnqueueExtensions",
    "FilterPlugin",
    "Handle",
    "NodeToStatus",
    "PermitPlugin",
    "Plugin",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
]

MAX_NODE_SCORE = 100


@dataclass(slots=True)
class PreFilterResult:
    """Restricts the nodes Filter is called for (None = all)."""

    node_names: set[str] | None = None
    #: the plugins that restricted the nodes (for "node(s) didn't satisfy plugin(s) [...]")
    plugins: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PostFilterResult:
    """What PostFilter decided for the pod's ``status.nominatedNodeName``: a node, "" to clear
    a stale nomination (no preemption candidate anywhere), None to leave it as it is."""

    nominated_node_name: str | None = None


@dataclass(slots=True)
class NodeToStatus:
    """Why each node was rejected; nodes not listed share ``absent`` (set by PreFilter)."""

    statuses: dict[str, Status] = field(default_factory=dict)
    absent: Status | None = None
    num_all_nodes: int = 0


class Handle(Protocol):
    """What the framework gives plugins: the API, caches, time, and the waiting pods."""

    client: Client
    clock: Clock
    rng: Random
    feature_gates: Mapping[str, bool]
    scheduler_name: str

    def informer(self, resource: Any) -> Informer:
        """The shared informer of ``resource`` (all namespaces, no selectors)."""

    def node_infos(self) -> Sequence[NodeInfo]:
        """Every node the scheduler knows, with requested resources (bound + assumed pods)."""

    def plugin_args(self, name: str) -> Mapping[str, Any]:
        """The args the profile's ``pluginConfig`` gives plugin ``name`` (empty when none)."""

    def waiting_pods(self) -> Collection[WaitingPod]:
        """Pods held at Permit."""

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def pods_of_group(self, namespace: str, group: str) -> list[Obj]:
        """Pods (any state) of PodGroup ``group``
        (:func:`fakeapi.rules.podgroups.pod_group_name`)."""

    def is_assumed_or_bound(self, uid: str) -> bool:
        """Whether the pod is assumed on a node (in a binding cycle) or already bound."""

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
        """Record an events.k8s.io/v1 Event as ``default-scheduler``."""

    def activate(self, pods: Sequence[Obj]) -> None:
        """Move these pods from backoff/unschedulable to the active queue (upstream Activate)."""

    def run_filters(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        """The profile's Filter plugins for ``pod`` on ``node`` (a copy, for preemption)."""

    def count_claim_create(self, *, success: bool, admin_access: bool) -> None:
        """Count a ResourceClaim the scheduler asked to create (extended resources)."""

    def count_preemption(self, *, victims: int | None) -> None:
        """Count a preemption attempt and, when a candidate was chosen, its victims."""


class Plugin(Protocol):
    name: str


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    name: str

    def pre_enqueue(self, pod: Obj) -> Status | None:
        """Called before a pod enters the active queue (on add, and again when an event moves it).

        None lets it in. Any other status keeps it out ("gated") until an event registered by this
        plugin, with a hint answering QUEUE, triggers the check again. Must be cheap: no API calls.
        """


@runtime_checkable
class QueueSortPlugin(Protocol):
    name: str

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """True when ``a`` should be scheduled before ``b``. Exactly one such plugin."""


@runtime_checkable
class EnqueueExtensions(Protocol):
    name: str

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Events that may make a pod this plugin rejected schedulable, each with an optional
        queueing hint. A plugin that rejects pods but registers nothing leaves them to the
        5-minute flush of the unschedulable pool."""


@runtime_checkable
class PreFilterPlugin(Protocol):
    name: str

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Once per attempt, before Filter: compute what Filter needs and store it in ``state``.

        UNSCHEDULABLE / UNSCHEDULABLE_AND_UNRESOLVABLE reject the pod on every node (the message
        becomes the PreFilter part of ``0/N nodes are available: ...``); ERROR aborts the attempt;
        SKIP means this plugin's Filter is not called for this pod. A result with ``node_names``
        restricts the nodes Filter sees.
        """


@runtime_checkable
class FilterPlugin(Protocol):
    name: str

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        """Can the pod run on ``node``? UNSCHEDULABLE: not now, preemption may help;
        UNSCHEDULABLE_AND_UNRESOLVABLE: not on this node whatever is evicted; ERROR aborts the
        attempt. The first rejecting plugin decides; later filters are not called for the node."""


@runtime_checkable
class BatchFilterPlugin(FilterPlugin, Protocol):
    """A Filter plugin that can answer for many nodes in one call (an optimisation: the answers
    must be those of :meth:`filter` node by node; the framework calls it with the nodes still
    in the running, in order)."""

    def filter_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]: ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    name: str

    async def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """Called only when no node passed Filter. SUCCESS (None) ends PostFilter (e.g. a node was
        nominated); UNSCHEDULABLE passes to the next plugin, its message joins the
        FailedScheduling text; ERROR aborts."""


@runtime_checkable
class PreScorePlugin(Protocol):
    name: str

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        """Once, over the feasible nodes. SKIP: this plugin's Score is not called; ERROR aborts."""


@runtime_checkable
class ScorePlugin(Protocol):
    name: str

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        """A score for one feasible node, in [0, 100] unless the plugin normalizes; ERROR aborts
        the attempt. The framework multiplies each by the plugin's weight and sums over
        plugins."""


@runtime_checkable
class ScoreExtensions(Protocol):
    """A Score plugin whose raw scores need bringing into [0, 100] (upstream
    ``ScoreExtensions``; plugins without it score in range already)."""

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        """Bring the plugin's scores for all feasible nodes into [0, 100], in place."""


@runtime_checkable
class BatchScorePlugin(ScorePlugin, Protocol):
    """A Score plugin that scores many nodes in one call: the scores :meth:`score` would give
    node by node, or an ERROR status."""

    def score_nodes(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]: ...


@runtime_checkable
class ReservePlugin(Protocol):
    name: str

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        """The pod is assumed on ``node_name``: claim what it will use in the plugin's own caches,
        so the next pod's cycle sees it as taken. Any non-success status fails the attempt and
        Unreserve runs for every Reserve plugin."""

    async def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Undo Reserve (and whatever PreBind already wrote) after a failure later in either
        cycle. Must be idempotent: it may run when Reserve did not, or twice."""


@runtime_checkable
class PermitPlugin(Protocol):
    name: str

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status | None, float]:
        """Last step of the scheduling cycle. None: go on to binding. WAIT with a timeout
        (seconds): the binding cycle holds the pod until a plugin allows or rejects it through
        its :class:`WaitingPod`, or the timeout rejects it. UNSCHEDULABLE/ERROR: fail now
        (Unreserve runs)."""


@runtime_checkable
class PreBindPlugin(Protocol):
    name: str

    async def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        """Binding cycle, before Bind: the API writes the binding depends on (claim allocation and
        reservation). Any non-success status fails the binding: Unreserve, then the pod is
        retried (ERROR → backoff; UNSCHEDULABLE → unschedulable pool)."""


@runtime_checkable
class BindPlugin(Protocol):
    name: str

    async def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        """Bind the pod. SKIP: not mine, ask the next binder; None: bound; other: failed."""


@runtime_checkable
class PostBindPlugin(Protocol):
    name: str

    def post_bind(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Informational, after a successful Bind (cleanup)."""
