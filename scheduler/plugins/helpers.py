"""Small pieces several plugins share: score scaling (upstream's ``helper`` package).

Toleration matching and node selectors are the shared rules of :mod:`fakeapi.rules.taints` and
:mod:`fakeapi.rules.nodeaffinity`.
"""

from __future__ import annotations

from fakeapi.scheduler.framework.interface import MAX_NODE_SCORE
from fakeapi.scheduler.framework.types import NodeScore

__all__ = ["default_normalize_score"]


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
