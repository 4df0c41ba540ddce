"""NodeAffinity: ``spec.nodeSelector`` and required node affinity filter; preferred terms score.

PreFilter gathers the pod's requirements once and answers Skip when there are none, so pods
without affinity cost nothing per node; terms that pin the pod to nodes by name (``matchFields``
``metadata.name In``, as a DaemonSet does) narrow the nodes at once, and the others are
reported as ``node(s) didn't satisfy plugin(s) [NodeAffinity]``. Node adds and label changes
wake a rejected pod only when the changed node now matches it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fakeapi.objects import Obj, meta
from fakeapi.rules.nodeaffinity import (
    NodeSelectorTerm,
    RequiredNodeAffinity,
    node_selector_term,
    required_node_affinity,
)
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
from fakeapi.scheduler.plugins.helpers import default_normalize_score

__all__ = ["ERR_REASON", "NAME", "NodeAffinity"]

NAME = "NodeAffinity"
ERR_REASON = "node(s) didn't match Pod's node affinity/selector"
#: every required term names nodes, and no node is named by all of a term's requirements
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_STATE = NAME
_SCORE_STATE = NAME + "/score"


def _required(pod: Obj) -> RequiredNodeAffinity | None:
    """The pod's required node constraints (the shared rule), None when it has none."""
    required = required_node_affinity(pod)
    return None if required.empty else required


def _required_terms(pod: Obj) -> tuple[Obj, ...] | None:
    affinity = ((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    return None if required is None else tuple(required.get("nodeSelectorTerms") or ())


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


@dataclass(frozen=True, slots=True)
class _Preferred:
    weight: int
    term: NodeSelectorTerm


def _preferred(pod: Obj) -> list[_Preferred]:
    """The weighted preferred terms that can score (a zero weight or an empty term cannot)."""
    affinity = ((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
    out = []
    for raw in affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
        weight = int(raw.get("weight") or 0)
        term = node_selector_term(raw.get("preference") or {}) if weight else None
        if term is not None:
            out.append(_Preferred(weight, term))
    return out


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
        metadata = meta(new)
        if required is None or required.matches(
            name=metadata.get("name") or "", labels=metadata.get("labels") or {}
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        required = _required(pod)
        if required is None:
            return None, skip()
        state.write(_STATE, required)
        names = _pinned_node_names(_required_terms(pod))
        if names is None:
            return None, None
        if not names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(names), None

    def filter(self, state: CycleState, pod: Obj, node: NodeInfo) -> Status | None:
        required: RequiredNodeAffinity | None = state.get(_STATE)
        if required is None or required.matches(name=node.name, labels=node.labels):
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
        name, labels = node.name, node.labels
        preferred: list[_Preferred] = state.get(_SCORE_STATE) or []
        for entry in preferred:
            if entry.term.matches(name=name, labels=labels):
                total += entry.weight
        return total, None

    def normalize_score(
        self, state: CycleState, pod: Obj, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(scores)
        return None
