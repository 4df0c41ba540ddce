"""Which pods go first when a controller has too many: upstream's ``ActivePodsWithRanks``.

The ReplicaSet (and ReplicationController) and Job controllers delete the "cheapest" pods
first, in this order of preference (``pkg/controller/controller_utils.go``):

1. not yet bound to a node before bound;
2. ``Pending`` before ``Unknown`` before ``Running``;
3. not ready before ready;
4. on a node with more pods of the same owner before fewer (spreading what stays);
5. a lower ``controller.kubernetes.io/pod-deletion-cost`` before a higher;
6. ready for a shorter time before longer;
7. more container restarts before fewer;
8. created later before earlier.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.rules.podutil import is_pod_ready, pod_phase, ready_since
from fakeapi.timefmt import parse_time

__all__ = ["POD_DELETION_COST", "pods_to_delete"]

POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _node(pod: Obj) -> str:
    return text(as_dict(pod.get("spec")).get("nodeName"))


def _deletion_cost(pod: Obj) -> int:
    try:
        return int(text(as_dict(meta(pod).get("annotations")).get(POD_DELETION_COST)) or 0)
    except ValueError:
        return 0


def _restarts(pod: Obj) -> int:
    return sum(
        int(as_dict(s).get("restartCount") or 0)
        for s in as_list(as_dict(pod.get("status")).get("containerStatuses"))
    )


def _created(pod: Obj) -> datetime:
    stamp = meta(pod).get("creationTimestamp")
    try:
        return parse_time(stamp) if isinstance(stamp, str) and stamp else _EPOCH
    except ValueError:
        return _EPOCH


def _rank_key(pod: Obj, on_node: Counter[str]) -> tuple[Any, ...]:
    node = _node(pod)
    ready = is_pod_ready(pod)
    since = ready_since(pod) if ready else None
    return (
        1 if node else 0,
        _PHASE_ORDER.get(pod_phase(pod), 3),
        1 if ready else 0,
        -on_node[node] if node else 0,
        _deletion_cost(pod),
        -(since or _EPOCH).timestamp(),
        -_restarts(pod),
        -_created(pod).timestamp(),
    )


def pods_to_delete(pods: Sequence[Obj], count: int, *, related: Sequence[Obj] = ()) -> list[Obj]:
    """The ``count`` pods of ``pods`` to delete first; ``related`` (the owner's pods, by
    default ``pods``) decides which nodes are crowded."""
    if count >= len(pods):
        return list(pods)
    on_node = Counter(_node(p) for p in (related or pods) if _node(p))
    return sorted(pods, key=lambda p: _rank_key(p, on_node))[:count]
