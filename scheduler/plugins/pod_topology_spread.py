"""PodTopologySpread: ``topologySpreadConstraints`` filter (DoNotSchedule) and score
(ScheduleAnyway), as upstream's ``pkg/scheduler/framework/plugins/podtopologyspread``.

A constraint counts, per domain (a value of its ``topologyKey``), the pods of the pod's namespace
that its ``labelSelector`` selects (terminating pods aside), on the nodes that carry every
constraint's topology key and that its inclusion policies admit: ``nodeAffinityPolicy: Honor``
(the default) counts only nodes the pod's ``nodeSelector`` and required node affinity accept;
``nodeTaintsPolicy: Honor`` (default Ignore) only nodes whose NoSchedule/NoExecute taints the pod
tolerates. ``matchLabelKeys`` adds ``key=<the pod's value>`` to the selector.

* **Filter** (DoNotSchedule): a node without one of the topology keys is
  ``UnschedulableAndUnresolvable`` (``... (missing required label)``). Otherwise placing the pod
  must keep ``count(domain) + (1 if the pod matches its own selector) − global minimum`` within
  ``maxSkew``, the minimum being taken over the counted domains, or 0 while there are fewer of
  them than ``minDomains`` (default 1); a rejection is ``Unschedulable`` (evicting pods may help).
* **Score** (ScheduleAnyway): a node scores, per constraint, ``count × log(domains + 2) +
  (maxSkew − 1)`` where ``count`` is that of its domain (for ``kubernetes.io/hostname``, of the
  node itself) and ``domains`` the number of domains among the feasible nodes; the lowest sum
  becomes 100, the others less in proportion. Feasible nodes without every topology key score 0.

A pod without constraints of its own gets upstream's system defaults (``defaultingType:
System``): ScheduleAnyway on ``kubernetes.io/hostname`` with maxSkew 3 and on
``topology.kubernetes.io/zone`` with maxSkew 5, selecting the pods that the Services selecting
the pod select; without such a Service the pod has no constraint. (Upstream also takes the
selector of the pod's controlling ReplicaSet, ReplicationController or StatefulSet; this API
server serves none of them.) With the defaults, nodes without a zone label still spread by
hostname.

PreFilter and PreScore answer Skip for a pod without constraints (every pod without its own when
it comes to filtering, the system defaults being ScheduleAnyway), so such pods cost a look at
the pod and, for scoring, at the Services of its namespace.

As for InterPodAffinity, preemption and the nominated-pods check call Filter with a copy of a
node with pods removed or added; Filter recognises the copy and corrects the counts by the
difference (upstream's ``AddPod``/``RemovePod``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fakeapi.client import NAMESPACE_INDEX, SERVICES, Informer, namespace_index
from fakeapi.objects import Obj, meta
from fakeapi.rules.nodeaffinity import RequiredNodeAffinity, required_node_affinity
from fakeapi.rules.taints import find_untolerated_taint
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE, Handle, PreFilterResult
from fakeapi.scheduler.framework.status import Status, as_error, skip, unresolvable, unschedulable
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore, PodInfo
from fakeapi.selectors import LabelSelector, SelectorError, label_selector_from_api

__all__ = [
    "Constraint",
    "ERR_CONSTRAINTS_NOT_MATCH",
    "ERR_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PodTopologySpread",
    "SYSTEM_DEFAULT_CONSTRAINTS",
]

NAME = "PodTopologySpread"
ERR_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_NODE_LABEL_NOT_MATCH = ERR_CONSTRAINTS_NOT_MATCH + " (missing required label)"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
#: upstream's ``defaultingType: System``: (topologyKey, maxSkew, whenUnsatisfiable)
SYSTEM_DEFAULT_CONSTRAINTS: tuple[tuple[str, int, str], ...] = (
    (HOSTNAME, 3, SCHEDULE_ANYWAY),
    (ZONE, 5, SCHEDULE_ANYWAY),
)

_STATE = NAME
_SCORE_STATE = NAME + "/score"
_UNTOLERATED_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
#: the minimum of no domain at all (upstream's MaxInt32)
_NO_MINIMUM = 2**31 - 1


@dataclass(frozen=True, slots=True)
class Constraint:
    """One topology spread constraint, its selector parsed (``matchLabelKeys`` merged in)."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_node_taints: bool = False


def _labels(pod: Obj) -> Mapping[str, str]:
    labels: Mapping[str, str] = meta(pod).get("labels") or {}
    return labels


def _parse(raw: Obj, labels: Mapping[str, str]) -> Constraint:
    """A ``TopologySpreadConstraint`` of a pod with ``labels`` (SelectorError if invalid)."""
    selector: Obj | None = raw.get("labelSelector")
    keys = raw.get("matchLabelKeys") or ()
    # merged at create by the API server already; again here for pods that skipped it, without
    # repeating a requirement the selector holds
    held = (selector or {}).get("matchExpressions") or ()
    pinned = [
        requirement
        for k in keys
        if k in labels
        and (requirement := {"key": k, "operator": "In", "values": [labels[k]]}) not in held
    ]
    if selector is not None and pinned:  # a null selector selects nothing, and stays so
        selector = {
            **selector,
            "matchExpressions": [*(selector.get("matchExpressions") or ()), *pinned],
        }
    min_domains = raw.get("minDomains")
    return Constraint(
        max_skew=int(raw.get("maxSkew") or 0),
        topology_key=raw.get("topologyKey") or "",
        selector=label_selector_from_api(selector),
        min_domains=1 if min_domains is None else int(min_domains),
        honor_node_affinity=(raw.get("nodeAffinityPolicy") or "Honor") == "Honor",
        honor_node_taints=(raw.get("nodeTaintsPolicy") or "Ignore") == "Honor",
    )


def _has_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """Whether a node with ``labels`` carries every constraint's topology key."""
    return all(c.topology_key in labels for c in constraints)


def _counts(info: PodInfo, selector: LabelSelector, namespace: str) -> bool:
    """Whether an existing pod counts for a constraint: of the namespace, not terminating,
    selected (an empty selector counts nobody, as upstream's ``countPodsMatchSelector``)."""
    if info.namespace != namespace or selector.empty:
        return False
    metadata = meta(info.pod)
    return not metadata.get("deletionTimestamp") and selector.matches(metadata.get("labels") or {})


def _count(node: NodeInfo, selector: LabelSelector, namespace: str) -> int:
    if selector.empty:
        return 0
    return sum(1 for info in node.pods.values() if _counts(info, selector, namespace))


@dataclass(frozen=True, slots=True)
class _Inclusion:
    """Which nodes a pod's constraints count (``nodeAffinityPolicy`` / ``nodeTaintsPolicy``)."""

    #: the pod's ``nodeSelector`` and required node affinity
    affinity: RequiredNodeAffinity
    tolerations: tuple[Obj, ...]

    @classmethod
    def of(cls, pod: Obj) -> _Inclusion:
        spec = pod.get("spec") or {}
        return cls(
            affinity=required_node_affinity(pod),
            tolerations=tuple(spec.get("tolerations") or ()),
        )

    def affinity_matches(self, node: NodeInfo) -> bool:
        return self.affinity.matches(name=node.name, labels=node.labels)

    def taints_tolerated(self, node: NodeInfo) -> bool:
        untolerated = find_untolerated_taint(
            node.taints, self.tolerations, effects=_UNTOLERATED_EFFECTS
        )
        return untolerated is None

    def admits(self, node: NodeInfo, constraints: Sequence[Constraint]) -> list[bool]:
        """Per constraint, whether its policies count ``node`` (each check made once)."""
        affinity: bool | None = None
        taints: bool | None = None
        admitted: list[bool] = []
        for c in constraints:
            ok = True
            if c.honor_node_affinity:
                if affinity is None:
                    affinity = self.affinity_matches(node)
                ok = affinity
            if ok and c.honor_node_taints:
                if taints is None:
                    taints = self.taints_tolerated(node)
                ok = taints
            admitted.append(ok)
        return admitted


@dataclass(slots=True)
class _FilterState:
    constraints: tuple[Constraint, ...]
    #: per constraint: domain value → matching pods
    counts: list[dict[str, int]]
    #: per constraint: the least count over its domains
    minimums: list[int]
    #: per constraint: the pod matches the selector itself
    self_match: tuple[bool, ...]
    namespace: str
    inclusion: _Inclusion
    #: the nodes counted, by name (to recognise the copies preemption filters)
    nodes: Mapping[str, NodeInfo] = field(default_factory=dict)

    def for_copy(self, node: NodeInfo) -> _FilterState:
        """The counts with ``node``'s pods instead of those of the node PreFilter counted under
        that name (upstream's AddPod/RemovePod on a cloned state)."""
        counts = [dict(c) for c in self.counts]
        if _has_keys(node.labels, self.constraints):
            counted = self.nodes.get(node.name)
            before: Mapping[str, PodInfo] = counted.pods if counted is not None else {}
            changes = [(info, -1) for uid, info in before.items() if uid not in node.pods]
            changes += [(info, 1) for uid, info in node.pods.items() if uid not in before]
            admitted = self.inclusion.admits(node, self.constraints) if changes else []
            for info, delta in changes:
                for i, c in enumerate(self.constraints):
                    if admitted[i] and _counts(info, c.selector, self.namespace):
                        value = node.labels[c.topology_key]
                        counts[i][value] = counts[i].get(value, 0) + delta
        minimums = [min(c.values(), default=_NO_MINIMUM) for c in counts]
        return _FilterState(
            self.constraints,
            counts,
            minimums,
            self.self_match,
            self.namespace,
            self.inclusion,
            self.nodes,
        )


@dataclass(frozen=True, slots=True)
class _ScoreState:
    constraints: tuple[Constraint, ...]
    #: feasible nodes missing a topology key: they score 0
    ignored: frozenset[str]
    #: per constraint (not hostname): domain value → matching pods
    counts: list[dict[str, int]]
    #: per constraint: log(number of domains + 2)
    weights: list[float]
    namespace: str


class PodTopologySpread:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        self._handle = handle
        self._services: Informer | None = None
        if handle is not None:
            self._services = handle.informer(SERVICES)
            self._services.add_index(NAMESPACE_INDEX, namespace_index)

    # -- constraints -------------------------------------------------------------------------
    def constraints(self, pod: Obj, action: str) -> tuple[Constraint, ...]:
        """The pod's constraints for ``action`` (DoNotSchedule or ScheduleAnyway): its own, or
        when it has none the system defaults (SelectorError for an invalid selector)."""
        spec = pod.get("spec") or {}
        own: Sequence[Obj] = spec.get("topologySpreadConstraints") or ()
        if own:
            labels = _labels(pod)
            return tuple(_parse(c, labels) for c in own if c.get("whenUnsatisfiable") == action)
        defaults = [(k, skew) for k, skew, when in SYSTEM_DEFAULT_CONSTRAINTS if when == action]
        if not defaults:
            return ()
        selector = self._default_selector(pod)
        if selector is None:
            return ()
        return tuple(Constraint(skew, key, selector) for key, skew in defaults)

    def _default_selector(self, pod: Obj) -> LabelSelector | None:
        """The pods of the Services that select ``pod`` (upstream ``DefaultSelector``, which
        also reads controllers this API server does not serve); None when there are none."""
        if self._services is None:
            return None
        labels = _labels(pod)
        merged: dict[str, str] = {}
        namespace = meta(pod).get("namespace", "")
        for service in self._services.by_index(NAMESPACE_INDEX, namespace):
            selector: Mapping[str, str] = (service.get("spec") or {}).get("selector") or {}
            if selector and all(labels.get(k) == v for k, v in selector.items()):
                merged.update(selector)
        if not merged:
            return None
        try:
            return label_selector_from_api({"matchLabels": merged})
        except SelectorError:
            return None

    # -- queueing hints ------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.ASSIGNED_POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                self._pod_changed,
            ),
            # the pod's own labels (does it match itself?) and tolerations (nodeTaintsPolicy)
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.UNSCHEDULED_POD,
                    ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_TOLERATIONS,
                ),
                self._pod_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD
                    | ActionType.DELETE
                    | ActionType.UPDATE_NODE_LABEL
                    | ActionType.UPDATE_NODE_TAINT,
                ),
                self._node_changed,
            ),
        ]

    def _pod_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """Upstream's ``isSchedulableAfterPodChange``: only the pod itself or bound pods of its
        namespace matter, and only when they enter or leave a constraint's selection."""
        metadata = meta(pod)

        def involved(other: Obj) -> bool:
            theirs = meta(other)
            return theirs.get("uid") == metadata.get("uid") or (
                bool((other.get("spec") or {}).get("nodeName"))
                and theirs.get("namespace") == metadata.get("namespace")
            )

        if (new is not None and not involved(new)) or (old is not None and not involved(old)):
            return QueueingHint.QUEUE_SKIP
        try:
            constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError:
            return QueueingHint.QUEUE
        if old is not None and new is not None:
            if (
                meta(new).get("uid") == metadata.get("uid")
                and (old.get("spec") or {}).get("tolerations")
                != (new.get("spec") or {}).get("tolerations")
                and any(c.honor_node_taints for c in constraints)
            ):
                return QueueingHint.QUEUE
            before, after = _labels(old), _labels(new)
            if before == after:
                return QueueingHint.QUEUE_SKIP
            for c in constraints:
                if c.selector.matches(before) != c.selector.matches(after):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        changed = new if new is not None else old
        if changed is None:
            return QueueingHint.QUEUE_SKIP
        labels = _labels(changed)
        if any(c.selector.matches(labels) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _node_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """Upstream's ``isSchedulableAfterNodeChange``: a node that carries every topology key
        arrives, leaves, gains or loses one, or changes a topology value or its taints."""
        try:
            constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError:
            return QueueingHint.QUEUE
        old_labels = _labels(old) if old is not None else {}
        new_labels = _labels(new) if new is not None else {}
        was = old is not None and _has_keys(old_labels, constraints)
        now = new is not None and _has_keys(new_labels, constraints)
        if old is None or new is None:
            # added: the new node has every key; deleted: the old one had
            return QueueingHint.QUEUE if was or now else QueueingHint.QUEUE_SKIP
        if was != now:
            return QueueingHint.QUEUE
        moved = any(
            old_labels.get(c.topology_key) != new_labels.get(c.topology_key) for c in constraints
        )
        retainted = (old.get("spec") or {}).get("taints") != (new.get("spec") or {}).get("taints")
        if now and (moved or retainted):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering ---------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError as exc:
            return None, as_error(
                f"get constraints from pod: obtaining pod's hard topology spread constraints: "
                f"{exc}"
            )
        if not constraints:
            return None, skip()
        namespace = meta(pod).get("namespace", "")
        inclusion = _Inclusion.of(pod)
        counts: list[dict[str, int]] = [{} for _ in constraints]
        for node in nodes:
            labels = node.labels
            if not _has_keys(labels, constraints):
                continue
            for i, admitted in enumerate(inclusion.admits(node, constraints)):
                if admitted:
                    c = constraints[i]
                    value = labels[c.topology_key]
                    counts[i][value] = counts[i].get(value, 0) + _count(
                        node, c.selector, namespace
                    )
        pod_labels = _labels(pod)
        state.write(
            _STATE,
            _FilterState(
                constraints=constraints,
                counts=counts,
                minimums=[min(c.values(), default=_NO_MINIMUM) for c in counts],
                self_match=tuple(c.selector.matches(pod_labels) for c in constraints),
                namespace=namespace,
                inclusion=inclusion,
                nodes={node.name: node for node in nodes},
            ),
        )
        return None, None

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        s: _FilterState = state.read(_STATE)
        if s.nodes.get(node.name) is not node:
            s = s.for_copy(node)  # preemption's or the nominated pods' what-if
        labels = node.labels
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return unresolvable(ERR_NODE_LABEL_NOT_MATCH)
            counts = s.counts[i]
            # fewer domains than minDomains: the global minimum counts as 0
            minimum = 0 if len(counts) < c.min_domains else s.minimums[i]
            skew = counts.get(value, 0) + s.self_match[i] - minimum
            if skew > c.max_skew:
                return unschedulable(ERR_CONSTRAINTS_NOT_MATCH)
        return None

    # -- scoring -----------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self._handle.node_infos() if self._handle is not None else nodes
        if not all_nodes:
            return skip()
        try:
            constraints = self.constraints(pod, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return as_error(
                f"calculating preScoreState: obtaining pod's soft topology spread constraints: "
                f"{exc}"
            )
        if not constraints:
            return skip()
        # the system defaults spread by hostname on nodes without a zone label too
        require_all = bool((pod.get("spec") or {}).get("topologySpreadConstraints"))
        ignored: set[str] = set()
        counts: list[dict[str, int]] = [{} for _ in constraints]
        for node in nodes:
            labels = node.labels
            if require_all and not _has_keys(labels, constraints):
                ignored.add(node.name)
                continue
            for i, c in enumerate(constraints):
                if c.topology_key != HOSTNAME:  # counted per node in Score
                    counts[i].setdefault(labels.get(c.topology_key, ""), 0)
        weights = [
            math.log(
                (len(nodes) - len(ignored) if c.topology_key == HOSTNAME else len(counts[i])) + 2
            )
            for i, c in enumerate(constraints)
        ]
        namespace = meta(pod).get("namespace", "")
        inclusion = _Inclusion.of(pod)
        for node in all_nodes:
            labels = node.labels
            if require_all and not _has_keys(labels, constraints):
                continue
            for i, admitted in enumerate(inclusion.admits(node, constraints)):
                c = constraints[i]
                value = labels.get(c.topology_key, "")
                if admitted and value in counts[i]:
                    counts[i][value] += _count(node, c.selector, namespace)
        state.write(
            _SCORE_STATE,
            _ScoreState(constraints, frozenset(ignored), counts, weights, namespace),
        )
        return None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        s: _ScoreState = state.read(_SCORE_STATE)
        if node.name in s.ignored:
            return 0, None
        labels = node.labels
        total = 0.0
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == HOSTNAME:
                count = _count(node, c.selector, s.namespace)
            else:
                count = s.counts[i].get(value, 0)
            total += count * s.weights[i] + (c.max_skew - 1)
        return math.floor(total + 0.5), None  # Go's math.Round (the total is never negative)

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        """The fewest matching pods score 100: ``100 × (max + min − score) / max``; ignored
        nodes 0."""
        s: _ScoreState = state.read(_SCORE_STATE)
        counted = [entry.score for entry in scores if entry.name not in s.ignored]
        lowest, highest = min(counted, default=0), max(counted, default=0)
        for entry in scores:
            if entry.name in s.ignored:
                entry.score = 0
            elif highest == 0:
                entry.score = MAX_NODE_SCORE
            else:
                entry.score = MAX_NODE_SCORE * (highest + lowest - entry.score) // highest
        return None
