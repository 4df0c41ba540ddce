"""What plugins see: a pod with its parsed requests, a node with what is already placed on it.

kube-scheduler parses a pod's resource requests once (``PodInfo``) and keeps per-node sums
(``NodeInfo``) up to date as pods are assumed, bound and removed, so that a Filter call is
arithmetic, never a walk over pods. The same split here: :class:`PodInfo` is built once per pod
version, :class:`NodeInfo` is updated incrementally by the scheduler cache.

Inter-pod affinity works the same way: a pod's (anti-)affinity terms are parsed once into
:class:`AffinityTerms`, each node keeps the pods that have such terms apart, and the cache keeps
the nodes that hold any (:class:`AffinityNodes`), so that the InterPodAffinity plugin can tell in
constant time that no pod in the cluster has any, which is the usual case. Likewise the node
traits a plugin looks for before it does any work (taints, ``spec.unschedulable``, images):
the cache keeps the nodes that have them (:class:`NodeTraits`), so that a Filter or Score pass
over hundreds of nodes learns in constant time that none has any.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fakeapi.objects import Obj, meta
from fakeapi.rules.podrequests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    Resource,
    pod_requests,
)
from fakeapi.selectors import LabelSelector, SelectorError, label_selector_from_api

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "AffinityNodes",
    "AffinityTerm",
    "AffinityTerms",
    "NodeInfo",
    "NodeScore",
    "NodeTraits",
    "PodInfo",
    "QueuedPodInfo",
    "Resource",
    "affinity_terms",
    "klog_name",
    "pod_key",
]



def klog_name(obj: Obj) -> str:
    """``namespace/name``: how upstream's logs and messages name an object (``klog.KObj``)."""
    metadata = meta(obj)
    return f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"


#: a pod's key in the scheduler's caches and queue
pod_key = klog_name


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """One pod (anti-)affinity term, parsed once (upstream ``framework.AffinityTerm``): which pods
    it selects, by their labels and their namespace, and the topology it spans."""

    selector: LabelSelector
    #: namespaces selected by name (the pod's own when the term names none and has no selector)
    namespaces: frozenset[str]
    #: namespaces selected by their labels; None selects none (a term without
    #: ``namespaceSelector``, upstream's ``labels.Nothing()``)
    namespace_selector: LabelSelector | None
    topology_key: str
    #: a preferred term's weight (0 for required terms)
    weight: int = 0

    def matches(self, pod: Obj, namespace_labels: Mapping[str, str] | None = None) -> bool:
        """Whether ``pod`` is one of the pods the term selects; ``namespace_labels`` are the
        labels of the pod's namespace (unknown counts as none, as upstream's nil set)."""
        metadata = meta(pod)
        if metadata.get("namespace", "") in self.namespaces or (
            self.namespace_selector is not None
            and self.namespace_selector.matches(namespace_labels or {})
        ):
            return self.selector.matches(metadata.get("labels") or {})
        return False


@dataclass(frozen=True, slots=True)
class AffinityTerms:
    """A pod's parsed ``podAffinity`` and ``podAntiAffinity`` (upstream keeps them in
    ``PodInfo``); preferred terms carry their weight."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[AffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[AffinityTerm, ...] = ()
    #: why a term could not be parsed (upstream ``NewPodInfo``'s error); such a term is left out
    error: str = ""


def _label_keys_merged(selector: Obj | None, term: Obj, labels: Mapping[str, str]) -> Obj | None:
    """``labelSelector`` with ``matchLabelKeys`` / ``mismatchLabelKeys`` applied (KEP-3633):
    ``key In (value)`` / ``key NotIn (value)`` for each key the pod has.

    The API server merges them into the stored selector when the pod is created, as upstream's;
    merging again here is a no-op for such a pod (a requirement the selector already holds is
    not added twice) and keeps pods that never went through the API server (plugin tests)
    reading alike. A null selector selects nothing and stays so.
    """
    match_keys = term.get("matchLabelKeys") or ()
    mismatch_keys = term.get("mismatchLabelKeys") or ()
    if selector is None or not (match_keys or mismatch_keys):
        return selector
    expressions: list[Obj] = list(selector.get("matchExpressions") or ())
    for keys, operator in ((match_keys, "In"), (mismatch_keys, "NotIn")):
        for key in keys:
            value = labels.get(key)
            if value is None:
                continue
            added = {"key": key, "operator": operator, "values": [value]}
            if added not in expressions:
                expressions.append(added)
    return {**selector, "matchExpressions": expressions}


def _affinity_term(metadata: Obj, term: Obj, weight: int) -> AffinityTerm:
    """Parse one ``PodAffinityTerm`` of the pod with ``metadata`` (SelectorError if bad)."""
    selector = label_selector_from_api(
        _label_keys_merged(term.get("labelSelector"), term, metadata.get("labels") or {})
    )
    names: Sequence[str] = term.get("namespaces") or ()
    raw_namespace_selector = term.get("namespaceSelector")
    if not names and raw_namespace_selector is None:
        names = (metadata.get("namespace", ""),)
    return AffinityTerm(
        selector=selector,
        namespaces=frozenset(names),
        namespace_selector=(
            None
            if raw_namespace_selector is None
            else label_selector_from_api(raw_namespace_selector)
        ),
        topology_key=term.get("topologyKey") or "",
        weight=weight,
    )


def affinity_terms(pod: Obj) -> AffinityTerms | None:
    """The pod's parsed inter-pod (anti-)affinity, None when it has neither ``podAffinity`` nor
    ``podAntiAffinity`` (upstream's test for ``PodsWithAffinity``): the common case costs two
    lookups."""
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    pod_affinity = affinity.get("podAffinity")
    pod_anti_affinity = affinity.get("podAntiAffinity")
    if pod_affinity is None and pod_anti_affinity is None:
        return None
    metadata = meta(pod)
    errors: list[str] = []

    def required(section: Obj | None) -> tuple[AffinityTerm, ...]:
        parsed: list[AffinityTerm] = []
        for term in (section or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or ():
            try:
                parsed.append(_affinity_term(metadata, term, 0))
            except SelectorError as exc:
                errors.append(str(exc))
        return tuple(parsed)

    def preferred(section: Obj | None) -> tuple[AffinityTerm, ...]:
        parsed: list[AffinityTerm] = []
        weighted_terms = (section or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
        for weighted in weighted_terms or ():
            try:
                term = weighted.get("podAffinityTerm") or {}
                parsed.append(_affinity_term(metadata, term, int(weighted.get("weight") or 0)))
            except SelectorError as exc:
                errors.append(str(exc))
        return tuple(parsed)

    return AffinityTerms(
        required_affinity=required(pod_affinity),
        required_anti_affinity=required(pod_anti_affinity),
        preferred_affinity=preferred(pod_affinity),
        preferred_anti_affinity=preferred(pod_anti_affinity),
        error=errors[0] if errors else "",
    )


class PodInfo:
    """A pod plus what the scheduler derives from it once per version."""

    __slots__ = ("affinity", "key", "name", "namespace", "non_zero", "pod", "requests", "uid")

    def __init__(self, pod: Obj) -> None:
        metadata = pod.get("metadata") or {}
        self.pod = pod
        self.name: str = metadata.get("name", "")
        self.namespace: str = metadata.get("namespace", "")
        self.uid: str = metadata.get("uid", "")
        self.key = f"{self.namespace}/{self.name}"
        self.requests, self.non_zero = pod_requests(pod.get("spec") or {})
        #: inter-pod (anti-)affinity terms; None for the (usual) pod without any
        self.affinity = affinity_terms(pod)

    @property
    def spec(self) -> Obj:
        spec: Obj = self.pod.get("spec") or {}
        return spec

    def for_version(self, pod: Obj, *, spec: Obj) -> PodInfo:
        """This info for ``pod``, a later version of the same pod: what is derived from the spec
        is taken over when ``spec`` (``pod``'s spec, bar what the caller knows derives nothing)
        equals this version's, else worked out again. A status update or the binding leaves the
        spec as it was, so a pod's requests are read once, not once per informer event."""
        if spec != (self.pod.get("spec") or {}):
            return PodInfo(pod)
        info = PodInfo.__new__(PodInfo)
        info.pod = pod
        info.name, info.namespace, info.uid, info.key = (
            self.name, self.namespace, self.uid, self.key
        )
        info.requests, info.non_zero = self.requests, self.non_zero
        # affinity terms read the labels too (matchLabelKeys, mismatchLabelKeys)
        info.affinity = (
            self.affinity
            if self.affinity is None or meta(pod).get("labels") == meta(self.pod).get("labels")
            else affinity_terms(pod)
        )
        return info


@dataclass(slots=True)
class QueuedPodInfo:
    """A pod in the scheduling queue with its attempt history (upstream ``QueuedPodInfo``)."""

    info: PodInfo
    #: when the pod entered the queue (or last moved into activeQ), for QueueSort ties
    timestamp: float
    #: when it first entered activeQ (past PreEnqueue: time spent gated does not count); the e2e
    #: scheduling duration is measured from here (upstream's InitialAttemptTimestamp)
    initial_timestamp: float | None = None
    attempts: int = 0
    #: plugins that rejected the last attempt; only their hints can move the pod
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    #: PreEnqueue rejected it (upstream "gated"); it waits until an event lets it in
    gated: bool = False
    gating_plugin: str = ""
    #: the PreEnqueue rejection last reported in the pod's status (KEP-5501), to report a
    #: message once
    pre_enqueue_message: str = ""
    #: when the last failed attempt ended; the backoff is measured from here
    last_failure: float = 0.0
    #: a scheduling error (not a rejection): always retried after backoff
    failed_with_error: bool = False

    @property
    def pod(self) -> Obj:
        return self.info.pod

    @property
    def uid(self) -> str:
        return self.info.uid


class AffinityNodes:
    """The nodes of one scheduler cache that hold pods with inter-pod (anti-)affinity terms, by
    name (upstream's snapshot lists ``HavePodsWithAffinityList`` and
    ``HavePodsWithRequiredAntiAffinityList``).

    Every :class:`NodeInfo` of a cache shares the cache's one instance
    (:attr:`NodeInfo.affinity_nodes`) and keeps it current as pods come and go, so a plugin
    that holds the nodes (PreFilter and PreScore get them) learns without a walk over them that
    no pod has any such term, and otherwise visits only the nodes that matter.
    """

    __slots__ = ("with_affinity", "with_required_anti_affinity")

    def __init__(self) -> None:
        self.with_affinity: dict[str, NodeInfo] = {}
        self.with_required_anti_affinity: dict[str, NodeInfo] = {}

    def forget(self, node: NodeInfo) -> None:
        """The node left the cache."""
        for nodes in (self.with_affinity, self.with_required_anti_affinity):
            if nodes.get(node.name) is node:
                del nodes[node.name]


#: NodeInfo generations, one counter for every NodeInfo (as upstream's ``nextGeneration``): a
#: generation names one state of one node, so a result computed from that state can be
#: remembered under its generation alone
_generations = itertools.count(1)


class NodeTraits:
    """The nodes of one scheduler cache that have a trait some plugin checks before doing any
    work, by name: taints (TaintToleration's Filter), PreferNoSchedule taints (its Score),
    ``spec.unschedulable`` (NodeUnschedulable), ``status.images`` (ImageLocality), and no room
    for one more pod (``full``: NodeResourcesFit's ``Too many pods``).

    Every :class:`NodeInfo` of a cache shares the cache's one instance (:attr:`NodeInfo.traits`)
    and keeps it current whenever its node or its pods change, so that :meth:`any_has` answers
    "none of these nodes has it" without a walk over them when no node of the cluster has the
    trait, which is the usual case.
    """

    __slots__ = ("full", "images", "prefer_no_schedule_taints", "taints", "unschedulable")

    #: the traits that come from the Node object (``full`` comes from its pods too)
    NODE_TRAITS = ("images", "prefer_no_schedule_taints", "taints", "unschedulable")

    def __init__(self) -> None:
        self.taints: dict[str, NodeInfo] = {}
        self.prefer_no_schedule_taints: dict[str, NodeInfo] = {}
        self.unschedulable: dict[str, NodeInfo] = {}
        self.images: dict[str, NodeInfo] = {}
        self.full: dict[str, NodeInfo] = {}

    def update(self, node: NodeInfo) -> None:
        """The node's traits as they are now (it was added or changed)."""
        for trait in NodeTraits.__slots__:
            nodes: dict[str, NodeInfo] = getattr(self, trait)
            if getattr(node, trait):
                nodes[node.name] = node
            elif nodes.get(node.name) is node:
                del nodes[node.name]

    def update_full(self, node: NodeInfo) -> None:
        """The node's ``full`` trait as it is now (a pod came or went)."""
        if node.full:
            self.full[node.name] = node
        elif self.full.get(node.name) is node:
            del self.full[node.name]

    def forget(self, node: NodeInfo) -> None:
        """The node left the cache."""
        for trait in NodeTraits.__slots__:
            nodes: dict[str, NodeInfo] = getattr(self, trait)
            if nodes.get(node.name) is node:
                del nodes[node.name]

    @staticmethod
    def any_has(nodes: Sequence[NodeInfo], trait: str) -> bool:
        """Whether any of ``nodes`` (NodeInfos of one cache, or clones of them) has ``trait``
        (a name in ``__slots__``, the NodeInfo attribute of the same name)."""
        index = nodes[0].traits if nodes else None
        if index is not None and not getattr(index, trait):
            return False
        return any(getattr(node, trait) for node in nodes)


class NodeInfo:
    """A node and the sums of what the pods on it (bound or assumed) request."""

    __slots__ = (
        "affinity_nodes",
        "allocatable",
        "fit_score",
        "fit_score_size",
        "full",
        "generation",
        "images",
        "labels",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "prefer_no_schedule_taints",
        "requested",
        "taints",
        "traits",
        "unschedulable",
    )

    def __init__(
        self,
        node: Obj,
        *,
        affinity_nodes: AffinityNodes | None = None,
        traits: NodeTraits | None = None,
    ) -> None:
        self.pods: dict[str, PodInfo] = {}
        #: the pods with any inter-pod (anti-)affinity term (upstream ``PodsWithAffinity``)
        self.pods_with_affinity: dict[str, PodInfo] = {}
        #: the pods with required anti-affinity terms (``PodsWithRequiredAntiAffinity``)
        self.pods_with_required_anti_affinity: dict[str, PodInfo] = {}
        #: the cache's index of such nodes; None outside a cache (clones for what-ifs)
        self.affinity_nodes = affinity_nodes
        #: the cache's index of node traits; None outside a cache (clones for what-ifs)
        self.traits = traits
        self.requested = Resource()
        self.non_zero_requested = Resource()
        #: changes with every change of the node or its pods; unique among all NodeInfos
        self.generation = 0
        #: NodeResourcesFit's score of this state of the node for a pod of ``fit_score_size``
        #: (None: not worked out since the last change). Kept here, beside what it is worked out
        #: from, because Score reads it for hundreds of nodes per pod: a small int in a slot of
        #: an object the cycle reads anyway costs no memory access of its own
        self.fit_score = 0
        self.fit_score_size: object = None
        self.set_node(node)

    def set_node(self, node: Obj) -> None:
        metadata = node.get("metadata") or {}
        spec = node.get("spec") or {}
        self.node = node
        self.name: str = metadata.get("name", "")
        self.labels: Mapping[str, str] = metadata.get("labels") or {}
        self.taints: list[Obj] = list(spec.get("taints") or ())
        self.prefer_no_schedule_taints = [
            t for t in self.taints if t.get("effect") == "PreferNoSchedule"
        ]
        self.unschedulable = bool(spec.get("unschedulable"))
        status = node.get("status") or {}
        self.allocatable = Resource.from_list(status.get("allocatable"))
        #: no room for one more pod (``Too many pods``)
        self.full = self.requested.pods >= self.allocatable.pods
        #: image name → size in bytes, from ``status.images`` (ImageLocality)
        self.images: dict[str, int] = {
            name: int(image.get("sizeBytes") or 0)
            for image in status.get("images") or ()
            for name in image.get("names") or ()
        }
        self._changed()
        if self.traits is not None:
            self.traits.update(self)

    def add_pod(self, info: PodInfo) -> None:
        old = self.pods.get(info.uid)
        if old is not None:
            self.remove_pod(old.uid)
        self.pods[info.uid] = info
        self.requested.add(info.requests)
        self.non_zero_requested.add(info.non_zero)
        self._changed()
        self._count_pods()
        if info.affinity is not None:
            self._add_affinity(info)

    def _changed(self) -> None:
        """A new state of the node: a new generation, and no score worked out for it yet."""
        self.generation = next(_generations)
        self.fit_score_size = None

    def _count_pods(self) -> None:
        """Keep ``full`` (and the cache's index of it) current after a pod came or went."""
        full = self.requested.pods >= self.allocatable.pods
        if full is not self.full:
            self.full = full
            if self.traits is not None:
                self.traits.update_full(self)

    def _add_affinity(self, info: PodInfo) -> None:
        assert info.affinity is not None
        index = self.affinity_nodes
        self.pods_with_affinity[info.uid] = info
        if index is not None:
            index.with_affinity[self.name] = self
        if info.affinity.required_anti_affinity:
            self.pods_with_required_anti_affinity[info.uid] = info
            if index is not None:
                index.with_required_anti_affinity[self.name] = self

    def _remove_affinity(self, uid: str) -> None:
        index = self.affinity_nodes
        if (
            self.pods_with_affinity.pop(uid, None) is not None
            and not self.pods_with_affinity
            and index is not None
            and index.with_affinity.get(self.name) is self
        ):
            del index.with_affinity[self.name]
        if (
            self.pods_with_required_anti_affinity.pop(uid, None) is not None
            and not self.pods_with_required_anti_affinity
            and index is not None
            and index.with_required_anti_affinity.get(self.name) is self
        ):
            del index.with_required_anti_affinity[self.name]

    def clone(self) -> NodeInfo:
        """A copy with the same pods, to add and remove pods on for a what-if (preemption, the
        pods nominated to the node) without touching the cache's (nor its
        :class:`AffinityNodes`)."""
        copy = NodeInfo(self.node)
        for info in self.pods.values():
            copy.add_pod(info)
        return copy

    def remove_pod(self, uid: str) -> bool:
        info = self.pods.pop(uid, None)
        if info is None:
            return False
        self.requested.sub(info.requests)
        self.non_zero_requested.sub(info.non_zero)
        self._changed()
        self._count_pods()
        if info.affinity is not None:
            self._remove_affinity(uid)
        return True


@dataclass(slots=True)
class NodeScore:
    name: str
    score: int
