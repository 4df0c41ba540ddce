"""How a Deployment's ReplicaSets are sized: upstream's rolling, recreate and scaling rules.

Pure plans over the ReplicaSets as the controller last saw them; the controller writes them
(:mod:`~fakeapi.controllers.deployment`). The rules are upstream's (``rolling.go``,
``recreate.go``, ``sync.go`` and ``NewRSNewReplicas``):

- **rolling update, up**: the new ReplicaSet grows while all ReplicaSets together stay within
  desired + ``maxSurge``;
- **rolling update, down**: old ReplicaSets shrink while at least desired − ``maxUnavailable``
  pods stay available — first the unhealthy pods of old ReplicaSets (oldest first), then
  available ones, never counting the new ReplicaSet's unavailable pods as headroom;
- **recreate**: every old ReplicaSet goes to zero, and only once their pods are gone does the
  new one get the desired count;
- **scaling** (desired count changed, or paused): one active ReplicaSet takes the whole count; a
  saturated new ReplicaSet empties the old ones; otherwise the change is spread over the active
  ReplicaSets in proportion to their size (bigger first; the rounding leftover goes to the
  first).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fakeapi.controllers.deployment_util import (
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    active_replica_sets,
    annotation_int,
    available_count,
    desired_replicas,
    is_rolling_update,
    max_surge,
    max_unavailable,
    replicas_of,
    sorted_by_creation,
    spec_replicas_total,
)
from fakeapi.objects import Obj, as_dict, meta, text

__all__ = [
    "Plan",
    "find_active_or_latest",
    "is_saturated",
    "new_replica_set_size",
    "plan_old_scale_down",
    "plan_proportional_scale",
]

#: (ReplicaSet name, new spec.replicas) in the order to write them
Plan = list[tuple[str, int]]


def _name(rs: Obj) -> str:
    return text(meta(rs).get("name"))


def _available(rs: Obj) -> int:
    value = as_dict(rs.get("status")).get("availableReplicas")
    return value if isinstance(value, int) else 0


def new_replica_set_size(deployment: Obj, all_sets: Sequence[Obj], new_rs: Obj) -> int:
    """``NewRSNewReplicas``: the size the new ReplicaSet may have now."""
    desired = desired_replicas(deployment)
    if not is_rolling_update(deployment):
        return desired
    current = replicas_of(new_rs)
    total = spec_replicas_total(all_sets)
    max_total = desired + max_surge(deployment)
    if total >= max_total:
        return current
    scale_up = min(max_total - total, desired - current)
    return current + max(scale_up, 0)


def plan_old_scale_down(
    deployment: Obj, *, all_sets: Sequence[Obj], old_sets: Sequence[Obj], new_rs: Obj | None
) -> Plan:
    """``reconcileOldReplicaSets``: how far the (active) old ReplicaSets may shrink now."""
    sizes = {_name(rs): replicas_of(rs) for rs in old_sets}
    if sum(sizes.values()) == 0:
        return []
    all_pods = spec_replicas_total(all_sets)
    min_available = desired_replicas(deployment) - max_unavailable(deployment)
    new_unavailable = (replicas_of(new_rs) - _available(new_rs)) if new_rs is not None else 0
    max_scaled_down = all_pods - min_available - new_unavailable
    if max_scaled_down <= 0:
        return []
    plan: Plan = []
    ordered = sorted_by_creation(old_sets)
    # first the unhealthy pods of old ReplicaSets (cleanupUnhealthyReplicas)
    cleaned = 0
    for rs in ordered:
        if cleaned >= max_scaled_down:
            break
        size = sizes[_name(rs)]
        if size == 0 or _available(rs) == size:
            continue
        count = min(max_scaled_down - cleaned, size - _available(rs))
        sizes[_name(rs)] = size - count
        cleaned += count
        plan.append((_name(rs), size - count))
    # then available pods, keeping min_available (scaleDownOldReplicaSetsForRollingUpdate)
    available = available_count(all_sets)
    if available > min_available:
        total_down = available - min_available
        scaled = 0
        for rs in ordered:
            if scaled >= total_down:
                break
            size = sizes[_name(rs)]
            if size == 0:
                continue
            count = min(size, total_down - scaled)
            sizes[_name(rs)] = size - count
            scaled += count
            plan.append((_name(rs), size - count))
    return plan


def find_active_or_latest(new_rs: Obj | None, old_sets: Sequence[Obj]) -> Obj | None:
    """``FindActiveOrLatest``: the one active ReplicaSet, else the newest if none is active,
    else None (several are active)."""
    if new_rs is None and not old_sets:
        return None
    newest_first = sorted_by_creation(old_sets, newest_first=True)
    active = active_replica_sets([*newest_first, new_rs])
    if not active:
        return new_rs if new_rs is not None else newest_first[0]
    return active[0] if len(active) == 1 else None


def is_saturated(deployment: Obj, rs: Obj | None) -> bool:
    """``IsSaturated``: the ReplicaSet has the desired count, annotated and available."""
    if rs is None:
        return False
    desired = desired_replicas(deployment)
    return (
        replicas_of(rs) == desired
        and annotation_int(rs, DESIRED_REPLICAS_ANNOTATION) == desired
        and _available(rs) == desired
    )


def _fraction(rs: Obj, deployment: Obj) -> int:
    """``getReplicaSetFraction``: this ReplicaSet's share of the new maximum."""
    desired = desired_replicas(deployment)
    if desired == 0:
        return -replicas_of(rs)
    new_max = desired + max_surge(deployment)
    before = annotation_int(rs, MAX_REPLICAS_ANNOTATION) or 0
    if before == 0:
        before = as_dict(deployment.get("status")).get("replicas") or 0
        if not isinstance(before, int) or before == 0:
            return 0
    # Go's RoundToInt32 rounds halves away from zero
    return math.floor(replicas_of(rs) * new_max / before + 0.5) - replicas_of(rs)


def plan_proportional_scale(
    deployment: Obj, new_rs: Obj | None, old_sets: Sequence[Obj]
) -> tuple[Plan, str]:
    """``scale``: the sizes after the desired count changed; the operation (``up``,
    ``down`` or ``""``) names the Events."""
    desired = desired_replicas(deployment)
    single = find_active_or_latest(new_rs, old_sets)
    if single is not None:
        if replicas_of(single) == desired:
            return [], ""
        return [(_name(single), desired)], "up" if desired > replicas_of(single) else "down"
    if is_saturated(deployment, new_rs):
        return [(_name(rs), 0) for rs in active_replica_sets(old_sets)], "down"
    if not is_rolling_update(deployment):
        return [], ""
    active = active_replica_sets([*old_sets, new_rs])
    allowed = desired + max_surge(deployment) if desired > 0 else 0
    to_add = allowed - spec_replicas_total(active)
    operation = ""
    if to_add > 0:
        active.sort(key=lambda rs: (-replicas_of(rs), _neg_created(rs)))
        operation = "up"
    elif to_add < 0:
        active.sort(key=lambda rs: (-replicas_of(rs), text(meta(rs).get("creationTimestamp"))))
        operation = "down"
    sizes: dict[str, int] = {}
    added = 0
    for rs in active:
        proportion = 0
        if to_add != 0 and replicas_of(rs) != 0 and to_add != added:
            fraction = _fraction(rs, deployment)
            allowed_left = to_add - added
            proportion = min(fraction, allowed_left) if to_add > 0 else max(fraction, allowed_left)
        sizes[_name(rs)] = replicas_of(rs) + proportion
        added += proportion
    plan: Plan = []
    for i, rs in enumerate(active):
        size = sizes[_name(rs)]
        if i == 0 and to_add != 0:
            size = max(size + to_add - added, 0)
        plan.append((_name(rs), size))
    return plan, operation


def _neg_created(rs: Obj) -> str:
    """A sort key putting newer ReplicaSets first among equals (``ReplicaSetsBySizeNewer``)."""
    stamp = text(meta(rs).get("creationTimestamp"))
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)
