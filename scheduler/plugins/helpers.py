"""Small pieces several plugins share: node selector terms, score scaling.

Toleration matching is the shared rule of :mod:`fakeapi.rules.taints`.
"""

from __future__ import annotations

from collections.abc import Iterable

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE
from fakeapi.scheduler.framework.types import NodeInfo, NodeScore
from fakeapi.scheduler.plugins.dynamic_resources.errors import AllocationError
from fakeapi.scheduler.plugins.dynamic_resources.nodeaffinity import node_selector_term_matches

__all__ = [
    "default_normalize_score",
    "match_node_selector_terms",
]


def match_node_selector_term(term: Obj, node: NodeInfo) -> bool:
    """A pod's ``NodeSelectorTerm`` against a node, by the allocator library's rules (one
    implementation of core/v1 node selectors); an operator the API would have refused matches
    nothing here instead of failing the cycle."""
    try:
        return node_selector_term_matches(term, node)
    except AllocationError:
        return False


def match_node_selector_terms(terms: Iterable[Obj], node: NodeInfo) -> bool:
    """Terms are ORed; a term with no requirements matches nothing (as upstream)."""
    return any(match_node_selector_term(term, node) for term in terms)


def default_normalize_score(scores: list[NodeScore], *, reverse: bool = False) -> None:
    """upstream ``helper.DefaultNormalizeScore``: scale to [0, 100] by the maximum; ``reverse``
    flips so that the lowest raw score wins."""
    highest = max((s.score for s in scores), default=0)
    if highest == 0:
        if reverse:
            for s in scores:
                s.score = MAX_NODE_SCORE
        return
    for s in scores:
        value = MAX_NODE_SCORE * s.score // highest
        s.score = MAX_NODE_SCORE - value if reverse else value
