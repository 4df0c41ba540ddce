"""The framework runtime: builds a profile's plugins and runs them at each extension point.

Which plugin runs where, in what order and with what Score weight is worked out once from the
profile (``framework/profile.py``, upstream's ``NewFramework`` rules); out-of-tree plugins are
built from the registry exactly as in-tree ones. A plugin that may reject pods but registers no
events is asked about every cluster event, as upstream's default enqueue extension does.

The scheduler loop (``scheduler.py``) calls one ``run_*`` method per phase and acts on the
returned status; the rules of each phase (Skip sets, first rejecting Filter wins, weighted score
sums, Unreserve in reverse order, Permit waits) live here once, not in the loop and not in the
plugins. A plugin that raises is turned into an ERROR status naming it, so one broken plugin
fails one attempt, never the scheduler.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
)
from fakeapi.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    BatchFilterPlugin,
    BatchScorePlugin,
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NodeToStatus,
    PermitPlugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from fakeapi.scheduler.framework.nominator import Nominator
from fakeapi.scheduler.framework.profile import Profile, ProfileError, plan
from fakeapi.scheduler.framework.registry import Registry
from fakeapi.scheduler.framework.status import Code, Status, as_error
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore
from fakeapi.scheduler.framework.waiting import WaitingPod

__all__ = ["Framework"]

_ACTIVE_FILTERS = "framework/active-filters"

log = logging.getLogger("fakeapi.scheduler.framework")


#: the fewest nodes filtered together (a chunk is otherwise the number still wanted)
_MIN_CHUNK = 32

_FilterNodes = Callable[[CycleState, Obj, Sequence[NodeInfo]], Sequence[Status | None]]


def _filter_nodes(plugin: FilterPlugin) -> _FilterNodes:
    """The plugin's answers for many nodes: its own ``filter_nodes``, or ``filter`` per node."""
    if isinstance(plugin, BatchFilterPlugin):
        return plugin.filter_nodes
    check = plugin.filter
    return lambda state, pod, nodes: [check(state, pod, node) for node in nodes]


_ScoreNodes = Callable[[CycleState, Obj, Sequence[NodeInfo]], tuple[list[int], Status | None]]


def _score_nodes(plugin: ScorePlugin) -> _ScoreNodes:
    """The plugin's scores for many nodes: its own ``score_nodes``, or ``score`` per node."""
    if isinstance(plugin, BatchScorePlugin):
        return plugin.score_nodes
    score = plugin.score

    def per_node(
        state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        values: list[int] = []
        for node in nodes:
            value, status = score(state, pod, node)
            if status is not None and status.code is not Code.SUCCESS:
                return values, status
            values.append(value)
        return values, None

    return per_node


#: upstream's defaultEnqueueExtension: a plugin that may reject pods but says nothing of the
#: events that could help them is asked about every event, so its pods are never stuck
_EVERY_EVENT = [ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL))]
_MAY_REJECT = (PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, ReservePlugin, PermitPlugin)


def _events_of(plugin: Any) -> list[ClusterEventWithHint] | None:
    """The plugin's registrations for the queue (None: it rejects no pod)."""
    if isinstance(plugin, EnqueueExtensions):
        return plugin.events_to_register()
    if isinstance(plugin, _MAY_REJECT):
        return list(_EVERY_EVENT)
    return None


def _instantiate(registry: Registry, profile: Profile, handle: Handle) -> dict[str, Any]:
    """Build every plugin the profile enables anywhere (those the registry has: a missing one
    is reported where it is enabled); each must call itself by the name it is registered as."""
    built: dict[str, Any] = {}
    for name in profile.plugins.enabled_names():
        factory = registry.get(name)
        if factory is None:
            continue
        try:
            plugin = factory(handle)
        except Exception as exc:
            raise ProfileError(f'initializing plugin "{name}": {exc}') from exc
        own = getattr(plugin, "name", None)
        if own != name:
            raise ProfileError(f'plugin "{name}" names itself {own!r}: a plugin\'s name is the '
                               "one it is registered under")
        built[name] = plugin
    return built


class Framework:
    """One profile's plugins, grouped by extension point in the order the profile gives."""

    def __init__(self, *, handle: Handle, registry: Registry, profile: Profile) -> None:
        self.handle = handle
        self.profile = profile
        #: pods preemption nominated to nodes; Filter keeps their room for them
        self.nominator = Nominator()
        #: every plugin the profile names, built once, by name
        self.plugins_by_name = _instantiate(registry, profile, handle)
        self.plugins: list[Any] = list(self.plugins_by_name.values())
        points, self.weights = plan(profile, self.plugins_by_name)
        self.pre_enqueue: list[PreEnqueuePlugin] = points["pre_enqueue"]
        self.queue_sort: QueueSortPlugin = points["queue_sort"][0]
        self.pre_filter: list[PreFilterPlugin] = points["pre_filter"]
        self.filter: list[FilterPlugin] = points["filter"]
        self._filter_nodes = {p.name: _filter_nodes(p) for p in self.filter}
        self.post_filter: list[PostFilterPlugin] = points["post_filter"]
        self.pre_score: list[PreScorePlugin] = points["pre_score"]
        self.score: list[ScorePlugin] = points["score"]
        self._score_nodes = {p.name: _score_nodes(p) for p in self.score}
        self._normalizers = {
            p.name: p.normalize_score for p in self.score if isinstance(p, ScoreExtensions)
        }
        self.reserve: list[ReservePlugin] = points["reserve"]
        self.permit: list[PermitPlugin] = points["permit"]
        self.pre_bind: list[PreBindPlugin] = points["pre_bind"]
        self.bind: list[BindPlugin] = points["bind"]
        self.post_bind: list[PostBindPlugin] = points["post_bind"]
        self.events: dict[str, list[ClusterEventWithHint]] = {
            name: events
            for name, plugin in self.plugins_by_name.items()
            if (events := _events_of(plugin)) is not None
        }
        self.waiting: dict[str, WaitingPod] = {}

    # -- queueing ----------------------------------------------------------------------------
    def run_pre_enqueue(self, pod: Obj) -> Status | None:
        for plugin in self.pre_enqueue:
            try:
                status = plugin.pre_enqueue(pod)
            except Exception as exc:
                log.exception("PreEnqueue %s failed", plugin.name)
                status = as_error(exc)
            if status is not None and status.code is not Code.SUCCESS:
                return status.with_plugin(plugin.name)
        return None

    # -- scheduling cycle ---------------------------------------------------------------------
    def run_pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        merged: PreFilterResult | None = None
        for plugin in self.pre_filter:
            try:
                result, status = plugin.pre_filter(state, pod, nodes)
            except Exception as exc:
                log.exception("PreFilter %s failed", plugin.name)
                return None, as_error(exc).with_plugin(plugin.name)
            if status is not None:
                if status.code is Code.SKIP:
                    state.skip_filter_plugins.add(plugin.name)
                    continue
                if status.code is not Code.SUCCESS:
                    if not status.rejected:
                        status = Status(
                            Code.ERROR,
                            (f'running PreFilter plugin "{plugin.name}": {status.message}',),
                            error=status.error,
                        )
                    return None, status.with_plugin(plugin.name)
            if result is not None and result.node_names is not None:
                if merged is None or merged.node_names is None:
                    merged = PreFilterResult(set(result.node_names))
                else:
                    merged.node_names &= result.node_names
                merged.plugins.append(plugin.name)
        return merged, None

    def run_filters(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        """Every Filter plugin not skipped by its PreFilter, in order; the first rejection wins.

        The plugin list is worked out once per attempt (cached in ``state``): this runs for
        hundreds of nodes per pod.
        """
        active: list[FilterPlugin] | None = state.get(_ACTIVE_FILTERS)
        if active is None:
            skipped = state.skip_filter_plugins
            active = [p for p in self.filter if p.name not in skipped]
            state.write(_ACTIVE_FILTERS, active)
        for plugin in active:
            try:
                status = plugin.filter(state, pod, node)
            except Exception as exc:
                log.exception("Filter %s failed", plugin.name)
                status = as_error(exc)
            if status is not None and status.code is not Code.SUCCESS:
                if not status.rejected:
                    return Status(
                        Code.ERROR,
                        (f'running "{plugin.name}" filter plugin: {status.message}',),
                        plugin=plugin.name,
                        error=status.error,
                    )
                return status.with_plugin(plugin.name)
        return None

    def find_feasible(
        self,
        state: CycleState,
        pod: Obj,
        nodes: Sequence[NodeInfo],
        *,
        start: int,
        wanted: int,
        statuses: dict[str, Status],
    ) -> tuple[list[NodeInfo], int, Status | None]:
        """Filter ``nodes`` from index ``start`` (wrapping) until ``wanted`` fit.

        Returns the feasible nodes, how many nodes were processed, and an ERROR status if a
        plugin failed. Rejections go into ``statuses``. The answers are those of
        :meth:`run_filters` node by node, stopping at the ``wanted``-th feasible node; the nodes
        are worked through in chunks, each plugin answering for a chunk's remaining nodes at
        once (``filter_nodes`` where a plugin has it): this is the scheduler's hottest path.
        """
        skipped = state.skip_filter_plugins
        active = [p for p in self.filter if p.name not in skipped]
        batches = [self._filter_nodes[p.name] for p in active]
        total = len(nodes)
        ordered = [*nodes[start:], *nodes[:start]] if start else nodes
        feasible: list[NodeInfo] = []
        position = 0
        while position < total and len(feasible) < wanted:
            chunk = ordered[position : position + max(wanted - len(feasible), _MIN_CHUNK)]
            remaining: Sequence[NodeInfo] = chunk
            name = ""
            try:
                for plugin, batch in zip(active, batches, strict=True):
                    if not remaining:
                        break
                    name = plugin.name
                    answers = batch(state, pod, remaining)
                    if not any(answers):
                        continue  # every node passed (the usual answer)
                    passed: list[NodeInfo] = []
                    last: Status | None = None  # plugins often give many nodes one status
                    for node, status in zip(remaining, answers, strict=True):
                        if status is None or status.code is Code.SUCCESS:
                            passed.append(node)
                        elif status is last:
                            statuses[node.name] = status
                        elif not status.rejected:
                            return (
                                feasible,
                                position + chunk.index(node) + 1,
                                Status(
                                    Code.ERROR,
                                    (f'running "{name}" filter plugin: {status.message}',),
                                    plugin=name,
                                    error=status.error,
                                ),
                            )
                        else:
                            statuses[node.name] = last = status.with_plugin(name)
                    remaining = passed
            except Exception as exc:
                log.exception("Filter %s failed", name)
                return feasible, position + 1, as_error(exc).with_plugin(name)
            if self.nominator and remaining:
                remaining = self._respect_nominations(state, pod, remaining, statuses)
            room = wanted - len(feasible)
            if len(remaining) >= room:
                # the wanted-th feasible node is in this chunk: forget what came after it
                cut = chunk.index(remaining[room - 1]) + 1
                for node in chunk[cut:]:
                    statuses.pop(node.name, None)
                feasible.extend(remaining[:room])
                return feasible, position + cut, None
            feasible.extend(remaining)
            position += len(chunk)
        return feasible, position, None

    def _respect_nominations(
        self,
        state: CycleState,
        pod: Obj,
        nodes: Sequence[NodeInfo],
        statuses: dict[str, Status],
    ) -> list[NodeInfo]:
        """The nodes that still pass with the pods nominated to them (of at least the pod's
        priority) placed there too, as upstream's ``RunFilterPluginsWithNominatedPods``."""
        kept: list[NodeInfo] = []
        for node in nodes:
            # a nominated pod already assumed or bound here is counted among the node's pods
            ahead = [i for i in self.nominator.ahead_of(pod, node.name) if i.uid not in node.pods]
            if ahead:
                trial = node.clone()
                for info in ahead:
                    trial.add_pod(info)
                status = self.run_filters(state, pod, trial)
                if status is not None:
                    statuses[node.name] = status
                    continue
            kept.append(node)
        return kept

    async def run_post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        reasons: list[str] = []
        rejector = ""
        #: the last rejecting plugin's word on the nomination (a cleared one, say), as upstream
        last: PostFilterResult | None = None
        for plugin in self.post_filter:
            try:
                result, status = await plugin.post_filter(state, pod, statuses)
            except Exception as exc:
                log.exception("PostFilter %s failed", plugin.name)
                return None, as_error(exc).with_plugin(plugin.name)
            if status is None or status.code is Code.SUCCESS:
                return result, Status(Code.SUCCESS, plugin=plugin.name)
            if not status.rejected:
                return None, status.with_plugin(plugin.name)
            if result is not None and result.nominated_node_name is not None:
                last = result
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
        return last, Status(Code.UNSCHEDULABLE, tuple(reasons), plugin=rejector)

    def run_pre_score(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> Status | None:
        for plugin in self.pre_score:
            try:
                status = plugin.pre_score(state, pod, nodes)
            except Exception as exc:
                log.exception("PreScore %s failed", plugin.name)
                return as_error(exc).with_plugin(plugin.name)
            if status is not None:
                if status.code is Code.SKIP:
                    state.skip_score_plugins.add(plugin.name)
                elif status.code is not Code.SUCCESS:
                    return status.with_plugin(plugin.name)
        return None

    def run_score(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Weighted total score per node, in the order of ``nodes``."""
        totals = [0] * len(nodes)
        scored = False
        for plugin in self.score:
            if plugin.name in state.skip_score_plugins:
                continue
            try:
                values, status = self._score_nodes[plugin.name](state, pod, nodes)
                if status is not None and status.code is not Code.SUCCESS:
                    return totals, status.with_plugin(plugin.name)
                normalize = self._normalizers.get(plugin.name)
                if normalize is not None:
                    scores = [
                        NodeScore(node.name, value)
                        for node, value in zip(nodes, values, strict=True)
                    ]
                    status = normalize(state, pod, scores)
                    if status is not None and status.code is not Code.SUCCESS:
                        return totals, status.with_plugin(plugin.name)
                    values = [entry.score for entry in scores]
            except Exception as exc:
                log.exception("Score %s failed", plugin.name)
                return totals, as_error(exc).with_plugin(plugin.name)
            if values and (min(values) < 0 or max(values) > MAX_NODE_SCORE):
                invalid = next(v for v in values if not 0 <= v <= MAX_NODE_SCORE)
                return totals, as_error(
                    f"plugin {plugin.name} returns an invalid score {invalid}, "
                    f"it should in the range of [0, {MAX_NODE_SCORE}] after normalizing"
                ).with_plugin(plugin.name)
            weight = self.weights[plugin.name]
            if scored:
                totals = [t + value * weight for t, value in zip(totals, values, strict=True)]
            else:  # the first plugin that scores: nothing to add to yet
                totals = list(values) if weight == 1 else [value * weight for value in values]
            scored = True
        return totals, None

    def run_reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        for plugin in self.reserve:
            try:
                status = plugin.reserve(state, pod, node_name)
            except Exception as exc:
                log.exception("Reserve %s failed", plugin.name)
                status = as_error(exc)
            if status is not None and status.code is not Code.SUCCESS:
                return status.with_plugin(plugin.name)
        return None

    async def run_unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        for plugin in reversed(self.reserve):
            try:
                await plugin.unreserve(state, pod, node_name)
            except Exception:
                log.exception("Unreserve %s failed", plugin.name)

    def run_permit(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        """None, a rejection, or WAIT (the pod is then registered as waiting)."""
        timeouts: dict[str, float] = {}
        for plugin in self.permit:
            try:
                status, timeout = plugin.permit(state, pod, node_name)
            except Exception as exc:
                log.exception("Permit %s failed", plugin.name)
                return as_error(exc).with_plugin(plugin.name)
            if status is None or status.code is Code.SUCCESS:
                continue
            if status.code is Code.WAIT:
                timeouts[plugin.name] = timeout
                continue
            if not status.rejected:
                status.code = Code.ERROR
            return status.with_plugin(plugin.name)
        if timeouts:
            waiting = WaitingPod(pod=pod, timeouts=timeouts)
            self.waiting[waiting.uid] = waiting
            return Status(Code.WAIT)
        return None

    # -- binding cycle -------------------------------------------------------------------------
    async def wait_on_permit(self, pod: Obj) -> Status | None:
        uid = (pod.get("metadata") or {}).get("uid", "")
        waiting = self.waiting.get(uid)
        if waiting is None:
            return None
        try:
            return await waiting.wait(clock=self.handle.clock)
        finally:
            self.waiting.pop(uid, None)

    async def run_pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        for plugin in self.pre_bind:
            try:
                status = await plugin.pre_bind(state, pod, node_name)
            except Exception as exc:
                log.exception("PreBind %s failed", plugin.name)
                status = as_error(exc)
            if status is not None and status.code is not Code.SUCCESS:
                if not status.rejected:  # as upstream, an error names the plugin it came from
                    status = Status(
                        Code.ERROR,
                        (f'running PreBind plugin "{plugin.name}": {status.message}',),
                        error=status.error,
                    )
                return status.with_plugin(plugin.name)
        return None

    async def run_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        for plugin in self.bind:
            try:
                status = await plugin.bind(state, pod, node_name)
            except Exception as exc:
                log.exception("Bind %s failed", plugin.name)
                status = as_error(exc)
            if status is not None and status.code is Code.SKIP:
                continue
            if status is not None and status.code is not Code.SUCCESS:
                return status.with_plugin(plugin.name)
            return None
        return as_error("no bind plugin bound the pod")

    def run_post_bind(self, state: CycleState, pod: Obj, node_name: str) -> None:
        for plugin in self.post_bind:
            try:
                plugin.post_bind(state, pod, node_name)
            except Exception:
                log.exception("PostBind %s failed", plugin.name)
