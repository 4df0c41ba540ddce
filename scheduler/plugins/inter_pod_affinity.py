"""InterPodAffinity: required pod affinity and anti-affinity filter; preferred terms score.

Upstream semantics (``pkg/scheduler/framework/plugins/interpodaffinity``), in three counts per
topology pair (``(topologyKey, value)``) that PreFilter makes once per attempt:

* pods that match **all** the incoming pod's required affinity terms, counted in each term's
  topology: a node passes when, for every term, its topology holds such a pod. A node without a
  term's topology key never passes. The first pod of a group that has affinity to itself would
  otherwise wait forever: when no pod anywhere matches and the pod matches its own terms, any node
  with the topology keys passes. A rejection is ``UnschedulableAndUnresolvable`` (evicting pods
  cannot create a match);
* pods that match any of the incoming pod's required anti-affinity terms: a node whose topology
  holds one is rejected (``Unschedulable``: evicting it would help);
* existing pods whose own required anti-affinity terms match the incoming pod (the symmetric
  check): a node in the topology of such a pod is rejected too.

Terms select pods by label and by namespace: the pod's own unless ``namespaces`` or
``namespaceSelector`` say otherwise; a selector is read against the Namespace objects' labels
(the scheduler's namespace informer). ``matchLabelKeys`` / ``mismatchLabelKeys`` are applied when
the pod is parsed (see :func:`~fakeapi.scheduler.framework.types.affinity_terms`).

When neither the pod nor any pod in the cluster has a required term that concerns it, PreFilter
answers Skip: the cache indexes the nodes that hold pods with such terms
(:class:`~fakeapi.scheduler.framework.types.AffinityNodes`), so a pod without affinity costs a
lookup and nothing per node. PreScore likewise visits only the nodes that hold pods with affinity
unless the pod has preferred terms itself, and answers Skip when no term matched anywhere.

Scoring: each preferred term of the pod adds (affinity) or subtracts (anti-affinity) its weight to
the topology of every pod it matches; each existing pod's required affinity terms that match the
pod add 1 (``hardPodAffinityWeight``) and its preferred terms their weight (or minus it). A node
scores the sum over its topology pairs; scores are scaled so the lowest becomes 0 and the highest
100.

Preemption and the nominated-pods check call Filter with a copy of a node that has pods removed
or added; upstream keeps the counts right through ``AddPod``/``RemovePod``. Here Filter notices
that the node is not the one PreFilter counted and corrects the counts by the difference in pods
(the framework has no such extension).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from fakeapi.client import NAMESPACES, Informer
from fakeapi.objects import Obj, meta
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE, Handle, PreFilterResult
from fakeapi.scheduler.framework.status import Status, skip, unresolvable, unschedulable
from fakeapi.scheduler.framework.types import (
    AffinityTerm,
    AffinityTerms,
    NodeInfo,
    NodeScore,
    PodInfo,
    affinity_terms,
)

__all__ = [
    "ERR_AFFINITY",
    "ERR_ANTI_AFFINITY",
    "ERR_EXISTING_ANTI_AFFINITY",
    "HARD_POD_AFFINITY_WEIGHT",
    "InterPodAffinity",
    "NAME",
]

NAME = "InterPodAffinity"
ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
#: what an existing pod's required affinity term that matches the pod adds to the score
#: (upstream's ``hardPodAffinityWeight`` default)
HARD_POD_AFFINITY_WEIGHT = 1

#: (topologyKey, value)
TopologyPair = tuple[str, str]
Counts = dict[TopologyPair, int]
_STATE = NAME
_SCORE_STATE = NAME + "/score"


def _bump(counts: Counts, labels: Mapping[str, str], key: str, delta: int) -> None:
    """Add ``delta`` to the pair of ``key`` on a node with ``labels`` (nothing when the node has
    no such label); a pair that drops to zero is removed, so "no pair" means "no pod"."""
    value = labels.get(key)
    if value is None:
        return
    pair = (key, value)
    total = counts.get(pair, 0) + delta
    if total:
        counts[pair] = total
    else:
        counts.pop(pair, None)


def _matches_all(terms: Sequence[AffinityTerm], pod: Obj, ns_labels: Mapping[str, str]) -> bool:
    """Whether ``pod`` matches every term (never for no terms: affinity is to *some* pod)."""
    return bool(terms) and all(term.matches(pod, ns_labels) for term in terms)


@dataclass(slots=True)
class _FilterState:
    """What PreFilter counted, for Filter."""

    pod: Obj
    #: the pod's required terms, ``namespaceSelector`` resolved into namespace names
    affinity_terms: tuple[AffinityTerm, ...]
    anti_affinity_terms: tuple[AffinityTerm, ...]
    #: the labels of the pod's namespace (matched by existing pods' namespace selectors)
    namespace_labels: Mapping[str, str]
    #: pairs of existing pods whose required anti-affinity matches the pod
    existing_anti: Counts
    #: pairs of pods matching all the pod's affinity terms, per term
    affinity: Counts
    #: pairs of pods matching any of the pod's anti-affinity terms, per term
    anti: Counts
    #: the pod matches all its own affinity terms (it may start a group)
    matches_itself: bool
    #: the nodes counted, by name (to recognise the copies preemption filters)
    nodes: Mapping[str, NodeInfo]

    def count(self, info: PodInfo, labels: Mapping[str, str], delta: int) -> None:
        """Count (or, with -1, uncount) an existing pod on a node with ``labels``."""
        if info.affinity is not None:
            for term in info.affinity.required_anti_affinity:
                if term.matches(self.pod, self.namespace_labels):
                    _bump(self.existing_anti, labels, term.topology_key, delta)
        pod = info.pod
        # the pod's terms have their namespace selectors resolved: no namespace labels needed
        if _matches_all(self.affinity_terms, pod, {}):
            for term in self.affinity_terms:
                _bump(self.affinity, labels, term.topology_key, delta)
        for term in self.anti_affinity_terms:
            if term.matches(pod):
                _bump(self.anti, labels, term.topology_key, delta)

    def for_copy(self, node: NodeInfo) -> _FilterState:
        """The counts as they would be with ``node``'s pods instead of those of the node of
        that name PreFilter counted (upstream's AddPod/RemovePod on a cloned state)."""
        adjusted = replace(
            self,
            existing_anti=dict(self.existing_anti),
            affinity=dict(self.affinity),
            anti=dict(self.anti),
        )
        counted = self.nodes.get(node.name)
        before: Mapping[str, PodInfo] = counted.pods if counted is not None else {}
        labels = node.labels
        for uid, info in before.items():
            if uid not in node.pods:
                adjusted.count(info, labels, -1)
        for uid, info in node.pods.items():
            if uid not in before:
                adjusted.count(info, labels, 1)
        return adjusted


@dataclass(frozen=True, slots=True)
class _ScoreState:
    #: topologyKey → value → summed weights
    topology_scores: Mapping[str, Mapping[str, int]]


def _all_pods(node: NodeInfo) -> Mapping[str, PodInfo]:
    return node.pods


def _pods_with_affinity(node: NodeInfo) -> Mapping[str, PodInfo]:
    return node.pods_with_affinity


class InterPodAffinity:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        self._handle = handle
        self._namespaces: Informer | None = (
            handle.informer(NAMESPACES) if handle is not None else None
        )

    # -- helpers -------------------------------------------------------------------------------
    def _namespace_labels(self, namespace: str) -> Mapping[str, str]:
        """The labels of Namespace ``namespace`` (none when unknown, as upstream)."""
        if self._namespaces is None:
            return {}
        found = self._namespaces.get(namespace)
        if found is None:
            return {}
        labels: Mapping[str, str] = meta(found).get("labels") or {}
        return labels

    def _resolve_namespaces(self, terms: Sequence[AffinityTerm]) -> tuple[AffinityTerm, ...]:
        """The incoming pod's terms with ``namespaceSelector`` turned into the names of the
        namespaces it selects now (upstream ``mergeAffinityTermNamespacesIfNotEmpty``); an
        empty selector (all namespaces) stays as it is."""
        resolved: list[AffinityTerm] = []
        for term in terms:
            selector = term.namespace_selector
            if selector is None or selector.empty:
                resolved.append(term)
                continue
            names = {
                meta(ns).get("name", "")
                for ns in (self._namespaces.list() if self._namespaces is not None else ())
                if selector.matches(meta(ns).get("labels") or {})
            }
            resolved.append(
                replace(term, namespaces=term.namespaces | names, namespace_selector=None)
            )
        return tuple(resolved)

    def _all_nodes(self, nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
        """Every node of the cluster (the handle's; the nodes given, for a plugin on its own)."""
        return self._handle.node_infos() if self._handle is not None else nodes

    @staticmethod
    def _nodes_with_required_anti_affinity(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
        """The nodes holding pods with required anti-affinity terms: from the cache's index
        when the nodes are the cache's (no walk), else by looking at each."""
        index = nodes[0].affinity_nodes if nodes else None
        if index is not None:
            return tuple(index.with_required_anti_affinity.values())
        return [node for node in nodes if node.pods_with_required_anti_affinity]

    @staticmethod
    def _nodes_with_affinity(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
        """The nodes holding pods with any inter-pod (anti-)affinity term, likewise."""
        index = nodes[0].affinity_nodes if nodes else None
        if index is not None:
            return tuple(index.with_affinity.values())
        return [node for node in nodes if node.pods_with_affinity]

    # -- queueing hints ------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # a bound pod that now matches the pod's affinity, no longer matches its
            # anti-affinity, or whose anti-affinity kept the pod away, is gone
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.ASSIGNED_POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                self._pod_changed,
            ),
            # the pod's own labels: its self-affinity, others' anti-affinity against it
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL),
                self._pod_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self._node_changed,
            ),
        ]

    def _pod_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """Upstream's ``isSchedulableAfterPodChange`` with its later fixes: the pod's own
        relabelling, a deleted pod whose anti-affinity matched the pod, and anti-affinity
        matched by any term (one is enough to repel)."""
        uid = meta(pod).get("uid")
        if old is not None and new is not None and meta(new).get("uid") == uid:
            relabelled = meta(old).get("labels") != meta(new).get("labels")
            return QueueingHint.QUEUE if relabelled else QueueingHint.QUEUE_SKIP
        if any(
            changed is not None and not (changed.get("spec") or {}).get("nodeName")
            for changed in (old, new)
        ):
            return QueueingHint.QUEUE_SKIP  # an unscheduled pod changes nothing for the pod
        terms = affinity_terms(pod) or AffinityTerms()
        affinity, anti = terms.required_affinity, terms.required_anti_affinity

        def all_match(other: Obj) -> bool:
            return _matches_all(affinity, other, self._namespace_labels(_namespace(other)))

        def any_anti_match(other: Obj) -> bool:
            labels = self._namespace_labels(_namespace(other))
            return any(term.matches(other, labels) for term in anti)

        if old is not None and new is not None:
            if not all_match(old) and all_match(new):
                return QueueingHint.QUEUE
            if any_anti_match(old) and not any_anti_match(new):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if all_match(new) else QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE_SKIP
        if any_anti_match(old):
            return QueueingHint.QUEUE
        deleted = affinity_terms(old)
        if deleted is not None and deleted.required_anti_affinity:
            labels = self._namespace_labels(_namespace(pod))
            if any(term.matches(pod, labels) for term in deleted.required_anti_affinity):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _node_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """Upstream's ``isSchedulableAfterNodeChange``: a node that joins (or moves within) a
        topology of the pod's affinity terms, any new node or one that leaves (or moves
        within) a topology of its anti-affinity terms."""
        if new is None:
            return QueueingHint.QUEUE_SKIP
        terms = affinity_terms(pod) or AffinityTerms()
        new_labels: Mapping[str, str] = meta(new).get("labels") or {}
        old_labels: Mapping[str, str] | None = (
            None if old is None else meta(old).get("labels") or {}
        )
        for term in terms.required_affinity:
            key = term.topology_key
            if key not in new_labels:
                continue
            if old_labels is None or old_labels.get(key) != new_labels[key]:
                return QueueingHint.QUEUE
        for term in terms.required_anti_affinity:
            key = term.topology_key
            if old_labels is None:
                # a node without the key always takes the pod; one with it may join a
                # topology free of the pods it repels
                return QueueingHint.QUEUE
            if key in old_labels and old_labels.get(key) != new_labels.get(key):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering -----------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        terms = affinity_terms(pod)
        if terms is not None and terms.error:
            return None, unresolvable(f"parsing pod: {terms.error}")
        required = terms is not None and bool(
            terms.required_affinity or terms.required_anti_affinity
        )
        repelling = self._nodes_with_required_anti_affinity(nodes)
        if not required and not repelling:
            return None, skip()
        terms = terms or AffinityTerms()
        ns_labels = self._namespace_labels(_namespace(pod))
        s = _FilterState(
            pod=pod,
            affinity_terms=self._resolve_namespaces(terms.required_affinity),
            anti_affinity_terms=self._resolve_namespaces(terms.required_anti_affinity),
            namespace_labels=ns_labels,
            existing_anti={},
            affinity={},
            anti={},
            matches_itself=False,
            nodes={},
        )
        for node in repelling:
            labels = node.labels
            for info in node.pods_with_required_anti_affinity.values():
                assert info.affinity is not None
                for term in info.affinity.required_anti_affinity:
                    if term.matches(pod, ns_labels):
                        _bump(s.existing_anti, labels, term.topology_key, 1)
        if not s.existing_anti and not required:
            return None, skip()
        if required:
            affinity, anti = s.affinity_terms, s.anti_affinity_terms
            for node in nodes:
                labels = node.labels
                for info in node.pods.values():
                    other = info.pod
                    if _matches_all(affinity, other, {}):
                        for term in affinity:
                            _bump(s.affinity, labels, term.topology_key, 1)
                    for term in anti:
                        if term.matches(other):
                            _bump(s.anti, labels, term.topology_key, 1)
            s.matches_itself = _matches_all(affinity, pod, {})
        s.nodes = {node.name: node for node in nodes}
        state.write(_STATE, s)
        return None, None

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        s: _FilterState = state.read(_STATE)
        if s.nodes.get(node.name) is not node:
            s = s.for_copy(node)  # preemption's or the nominated pods' what-if
        labels = node.labels
        if s.affinity_terms:
            found = True
            for term in s.affinity_terms:
                value = labels.get(term.topology_key)
                if value is None:
                    return unresolvable(ERR_AFFINITY)  # every topology key must be on the node
                if s.affinity.get((term.topology_key, value), 0) <= 0:
                    found = False
            # the first pod of a group with affinity to itself: nobody matches anywhere yet
            if not found and not (not s.affinity and s.matches_itself):
                return unresolvable(ERR_AFFINITY)
        if s.anti:
            for term in s.anti_affinity_terms:
                value = labels.get(term.topology_key)
                if value is not None and s.anti.get((term.topology_key, value), 0) > 0:
                    return unschedulable(ERR_ANTI_AFFINITY)
        if s.existing_anti:
            for pair in labels.items():
                if s.existing_anti.get(pair, 0) > 0:
                    return unschedulable(ERR_EXISTING_ANTI_AFFINITY)
        return None

    # -- scoring -------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        terms = affinity_terms(pod)
        preferred = terms is not None and bool(
            terms.preferred_affinity or terms.preferred_anti_affinity
        )
        all_nodes = self._all_nodes(nodes)
        # unless the pod prefers pods itself, only pods with affinity terms can score
        visit = all_nodes if preferred else self._nodes_with_affinity(all_nodes)
        if not visit:
            return skip()
        pods_of = _all_pods if preferred else _pods_with_affinity
        ns_labels = self._namespace_labels(_namespace(pod))
        prefer = self._resolve_namespaces(terms.preferred_affinity) if terms else ()
        avoid = self._resolve_namespaces(terms.preferred_anti_affinity) if terms else ()
        scores: dict[str, dict[str, int]] = {}

        def add(term: AffinityTerm, labels: Mapping[str, str], weight: int) -> None:
            value = labels.get(term.topology_key)
            if value is not None:
                by_value = scores.setdefault(term.topology_key, {})
                by_value[value] = by_value.get(value, 0) + weight

        for node in visit:
            labels = node.labels
            if not labels:
                continue
            for info in pods_of(node).values():
                other = info.pod
                for term in prefer:
                    if term.matches(other):
                        add(term, labels, term.weight)
                for term in avoid:
                    if term.matches(other):
                        add(term, labels, -term.weight)
                theirs = info.affinity
                if theirs is None:
                    continue
                for term in theirs.required_affinity:
                    if term.matches(pod, ns_labels):
                        add(term, labels, HARD_POD_AFFINITY_WEIGHT)
                for term in theirs.preferred_affinity:
                    if term.matches(pod, ns_labels):
                        add(term, labels, term.weight)
                for term in theirs.preferred_anti_affinity:
                    if term.matches(pod, ns_labels):
                        add(term, labels, -term.weight)
        if not scores:
            return skip()
        state.write(_SCORE_STATE, _ScoreState(scores))
        return None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        s: _ScoreState = state.read(_SCORE_STATE)
        labels = node.labels
        total = 0
        for key, by_value in s.topology_scores.items():
            value = labels.get(key)
            if value is not None:
                total += by_value.get(value, 0)
        return total, None

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        """Scale to [0, 100], the lowest score to 0 (raw scores may be negative)."""
        if not scores:
            return None
        lowest = min(s.score for s in scores)
        spread = max(s.score for s in scores) - lowest
        for s in scores:
            s.score = int(MAX_NODE_SCORE * ((s.score - lowest) / spread)) if spread > 0 else 0
        return None


def _namespace(pod: Obj) -> str:
    namespace: str = meta(pod).get("namespace", "")
    return namespace
