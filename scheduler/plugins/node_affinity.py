"""NodeAffinity: ``spec.nodeSelector`` and required node affinity filter; preferred terms score.

PreFilter gathers the pod's requirements once and answers Skip when there are none, so pods
without affinity cost nothing per node; terms that pin the pod to nodes by name (``matchFields``
``metadata.name In``, as a DaemonSet does) narrow the nodes at once, and the others are
reported as ``node(s) didn't satisfy plugin(s) [NodeAffinity]``. Node adds and label changes
wake a rejected pod only when the changed node now matches it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from fakeapi.scheduler.framework.interface import Handle, PreFilterResult
from fakeapi.scheduler.framework.status import Status, skip, unresolvable
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore
from fakeapi.scheduler.plugins.helpers import (
    default_normalize_score,
    match_node_selector_term,
    match_node_selector_terms,
)

__all__ = ["ERR_REASON", "NAME", "NodeAffinity"]

NAME = "NodeAffinity"
ERR_REASON = "node(s) didn't match Pod's node affinity/selector"
#: every required term names nodes, and no node is named by all of a term's requirements
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_STATE = NAME
_SCORE_STATE = NAME + "/score"


@dataclass(frozen=True, slots=True)
class _Required:
    node_selector: Mapping[str, str]
    terms: tuple[Obj, ...] | None

    def matches(self, node: NodeInfo) -> bool:
        labels = node.labels
        for key, value in self.node_selector.items():
            if labels.get(key) != value:
                return False
        return self.terms is None or match_node_selector_terms(self.terms, node)


def _required(pod: Obj) -> _Required | None:
    spec = pod.get("spec") or {}
    selector = spec.get("nodeSelector") or {}
    affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = None if required is None else tuple(required.get("nodeSelectorTerms") or ())
    if not selector and terms is None:
        return None
    return _Required(selector, terms)


def _pinned_node_names(terms: tuple[Obj, ...] | None) -> set[str] | None:
    """The nodes the required terms name through ``matchFields`` ``metadata.name In`` (how a
    DaemonSet pins its pods), as upstream's PreFilter narrows the nodes to them: None when some
    term leaves the node name open (terms are ORed), an empty set when every term's names
    conflict."""
    if not terms:
        return None
    names: set[str] = set()
    for term in terms:
        term_names: set[str] | None = None
        for requirement in term.get("matchFields") or ():
            if requirement.get("key") == "metadata.name" and requirement.get("operator") == "In":
                values = set(requirement.get("values") or ())
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        names |= term_names
    return names


def _preferred(pod: Obj) -> list[Obj]:
    affinity = ((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
    return list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or ())


class NodeAffinity:
    name = NAME

    def __init__(self, handle: Handle | None = None) -> None:
        pass

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self._node_now_matches,
            )
        ]

    def _node_now_matches(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if new is None:
            return QueueingHint.QUEUE_SKIP
        required = _required(pod)
        if required is None or required.matches(NodeInfo(new)):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        required = _required(pod)
        if required is None:
            return None, skip()
        state.write(_STATE, required)
        names = _pinned_node_names(required.terms)
        if names is None:
            return None, None
        if not names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(names), None

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        required: _Required | None = state.get(_STATE)
        if required is None or required.matches(node):
            return None
        return unresolvable(ERR_REASON)

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status | None:
        preferred = _preferred(pod)
        if not preferred:
            return skip()
        state.write(_SCORE_STATE, preferred)
        return None

    def score(self, state: CycleState, pod: Obj, node: NodeInfo) -> tuple[int, Status | None]:
        total = 0
        for term in state.get(_SCORE_STATE) or ():
            weight = int(term.get("weight") or 0)
            if weight and match_node_selector_term(term.get("preference") or {}, node):
                total += weight
        return total, None

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(scores)
        return None
