"""The Deployment controller's bookkeeping, as plain functions over JSON-shaped objects.

Upstream's ``pkg/controller/deployment/util``: revisions and the annotations that carry them
(``deployment.kubernetes.io/revision``, ``revision-history``, ``desired-replicas``,
``max-replicas``), which ReplicaSet is the new one (its template equals the Deployment's but for
the ``pod-template-hash`` label), surge and unavailability resolved against the desired count,
and the ``Available``/``Progressing`` conditions with upstream's reasons and messages. The
controller (:mod:`~fakeapi.controllers.deployment`) and the rollout plans
(:mod:`~fakeapi.controllers.deployment_rollout`) call these; nothing here talks to the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from fakeapi.objects import Obj, as_dict, as_list, meta, text
from fakeapi.rules.intstr import scaled_value
from fakeapi.rules.templatehash import equal_ignore_hash
from fakeapi.timefmt import format_time, parse_time

__all__ = [
    "AVAILABLE",
    "DESIRED_REPLICAS_ANNOTATION",
    "FAILED_RS_CREATE_REASON",
    "FOUND_NEW_RS_REASON",
    "MAX_REPLICAS_ANNOTATION",
    "MIN_REPLICAS_AVAILABLE",
    "MIN_REPLICAS_UNAVAILABLE",
    "NEW_RS_AVAILABLE_REASON",
    "NEW_RS_REASON",
    "PAUSED_REASON",
    "PROGRESSING",
    "REPLICA_FAILURE",
    "REPLICA_SET_UPDATED_REASON",
    "RESUMED_REASON",
    "REVISION_ANNOTATION",
    "REVISION_HISTORY_ANNOTATION",
    "TIMED_OUT_REASON",
    "active_replica_sets",
    "available_count",
    "condition",
    "deployment_complete",
    "deployment_progressing",
    "deployment_timed_out",
    "desired_replicas",
    "find_new_replica_set",
    "has_progress_deadline",
    "is_rolling_update",
    "max_revision",
    "max_surge",
    "max_unavailable",
    "ready_count",
    "remove_condition",
    "replicas_of",
    "revision",
    "set_condition",
    "set_new_replica_set_annotations",
    "set_replicas_annotations",
    "sorted_by_creation",
    "spec_replicas_total",
    "status_replicas_total",
]

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
#: annotations of a Deployment its ReplicaSets do not copy
_SKIPPED_ANNOTATIONS = frozenset({
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    "deprecated.deployment.rollback.to",
})
#: upstream's maxRevHistoryLengthInChars
_MAX_REVISION_HISTORY_CHARS = 2000
_INT32_MAX = 2**31 - 1

AVAILABLE = "Available"
PROGRESSING = "Progressing"
REPLICA_FAILURE = "ReplicaFailure"
MIN_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MIN_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"
REPLICA_SET_UPDATED_REASON = "ReplicaSetUpdated"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
NEW_RS_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_REASON = "DeploymentPaused"
RESUMED_REASON = "DeploymentResumed"


# --- counts --------------------------------------------------------------------------------------


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def replicas_of(obj: Obj) -> int:
    """``spec.replicas`` (1 when unset, as defaulted)."""
    return _int(as_dict(obj.get("spec")).get("replicas"), 1)


def desired_replicas(deployment: Obj) -> int:
    return replicas_of(deployment)


def spec_replicas_total(sets: Iterable[Obj]) -> int:
    """``GetReplicaCountForReplicaSets``."""
    return sum(replicas_of(rs) for rs in sets)


def status_replicas_total(sets: Iterable[Obj]) -> int:
    """``GetActualReplicaCountForReplicaSets``."""
    return sum(_int(as_dict(rs.get("status")).get("replicas")) for rs in sets)


def ready_count(sets: Iterable[Obj]) -> int:
    return sum(_int(as_dict(rs.get("status")).get("readyReplicas")) for rs in sets)


def available_count(sets: Iterable[Obj]) -> int:
    return sum(_int(as_dict(rs.get("status")).get("availableReplicas")) for rs in sets)


def terminating_count(sets: Iterable[Obj]) -> int:
    return sum(_int(as_dict(rs.get("status")).get("terminatingReplicas")) for rs in sets)


def active_replica_sets(sets: Iterable[Obj | None]) -> list[Obj]:
    """``FilterActiveReplicaSets``: those asked for at least one pod."""
    return [rs for rs in sets if rs is not None and replicas_of(rs) > 0]


def _created(obj: Obj) -> str:
    return text(meta(obj).get("creationTimestamp"))


def sorted_by_creation(sets: Iterable[Obj], *, newest_first: bool = False) -> list[Obj]:
    """``ReplicaSetsByCreationTimestamp`` (ties by name)."""
    return sorted(sets, key=lambda rs: (_created(rs), text(meta(rs).get("name"))),
                  reverse=newest_first)


# --- revisions -----------------------------------------------------------------------------------


def revision(obj: Obj) -> int:
    """The revision annotation of a ReplicaSet (or Deployment); 0 when absent or bad."""
    try:
        return int(text(as_dict(meta(obj).get("annotations")).get(REVISION_ANNOTATION)) or 0)
    except ValueError:
        return 0


def max_revision(sets: Iterable[Obj]) -> int:
    return max((revision(rs) for rs in sets), default=0)


def find_new_replica_set(deployment: Obj, sets: Sequence[Obj]) -> Obj | None:
    """``FindNewReplicaSet``: the oldest ReplicaSet whose template is the Deployment's."""
    template = as_dict(as_dict(deployment.get("spec")).get("template"))
    for rs in sorted_by_creation(sets):
        if equal_ignore_hash(as_dict(as_dict(rs.get("spec")).get("template")), template):
            return rs
    return None


def set_new_replica_set_annotations(
    deployment: Obj, rs: Obj, new_revision: int, *, exists: bool
) -> bool:
    """``SetNewReplicaSetAnnotations`` on ``rs`` (changed in place): the Deployment's
    annotations but the skipped ones, the revision (the old one kept in the history), and the
    replica annotations when missing. Whether anything changed."""
    rs_meta = rs.setdefault("metadata", {})
    annotations = dict(as_dict(rs_meta.get("annotations")))
    before = dict(annotations)
    for key, value in as_dict(meta(deployment).get("annotations")).items():
        if key not in _SKIPPED_ANNOTATIONS:
            annotations[key] = value
    old = text(annotations.get(REVISION_ANNOTATION))
    try:
        old_number = int(old) if old else 0
    except ValueError:
        old_number = 0
    if old_number < new_revision:
        annotations[REVISION_ANNOTATION] = str(new_revision)
        if exists and old:
            history = text(annotations.get(REVISION_HISTORY_ANNOTATION))
            entries = [e for e in history.split(",") if e] + [old]
            while len(",".join(entries)) > _MAX_REVISION_HISTORY_CHARS and len(entries) > 1:
                entries.pop(0)
            annotations[REVISION_HISTORY_ANNOTATION] = ",".join(entries)
    if not exists:
        desired = desired_replicas(deployment)
        annotations.setdefault(DESIRED_REPLICAS_ANNOTATION, str(desired))
        annotations.setdefault(MAX_REPLICAS_ANNOTATION, str(desired + max_surge(deployment)))
    rs_meta["annotations"] = annotations
    return annotations != before


def set_replicas_annotations(rs: Obj, desired: int, maximum: int) -> bool:
    """``SetReplicasAnnotations`` on ``rs`` (in place); whether anything changed."""
    rs_meta = rs.setdefault("metadata", {})
    annotations = dict(as_dict(rs_meta.get("annotations")))
    before = dict(annotations)
    annotations[DESIRED_REPLICAS_ANNOTATION] = str(desired)
    annotations[MAX_REPLICAS_ANNOTATION] = str(maximum)
    rs_meta["annotations"] = annotations
    return annotations != before


def annotation_int(rs: Obj, key: str) -> int | None:
    value = as_dict(meta(rs).get("annotations")).get(key)
    try:
        return int(text(value)) if value is not None else None
    except ValueError:
        return None


# --- surge and unavailability --------------------------------------------------------------------


def is_rolling_update(deployment: Obj) -> bool:
    strategy = as_dict(as_dict(deployment.get("spec")).get("strategy"))
    return bool(strategy.get("type", "RollingUpdate") == "RollingUpdate")


def _fenceposts(deployment: Obj) -> tuple[int, int]:
    """``ResolveFenceposts``: (max surge, max unavailable); both 0 becomes (0, 1)."""
    rolling = as_dict(as_dict(as_dict(deployment.get("spec")).get("strategy")).get("rollingUpdate"))
    desired = desired_replicas(deployment)
    try:
        surge = scaled_value(rolling.get("maxSurge", "25%"), desired, round_up=True)
        unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), desired, round_up=False)
    except ValueError:
        return 0, 1
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(deployment: Obj) -> int:
    """``MaxSurge``: pods allowed above the desired count during a rolling update."""
    return _fenceposts(deployment)[0] if is_rolling_update(deployment) else 0


def max_unavailable(deployment: Obj) -> int:
    """``MaxUnavailable``: pods that may be unavailable (never more than desired)."""
    desired = desired_replicas(deployment)
    if not is_rolling_update(deployment) or desired == 0:
        return 0
    return min(_fenceposts(deployment)[1], desired)


# --- conditions ----------------------------------------------------------------------------------


def condition(status: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    for entry in as_list(status.get("conditions")):
        if isinstance(entry, dict) and entry.get("type") == kind:
            return entry
    return None


def new_condition(kind: str, status: str, reason: str, message: str, now: datetime) -> Obj:
    """``NewDeploymentCondition``: both times are now."""
    stamp = format_time(now)
    return {"type": kind, "status": status, "lastUpdateTime": stamp,
            "lastTransitionTime": stamp, "reason": reason, "message": message}


def set_condition(status: dict[str, Any], new: Obj) -> None:
    """``SetDeploymentCondition`` (in place): nothing when status and reason are unchanged; the
    transition time kept when only the reason changes; the condition moved to the end."""
    current = condition(status, text(new.get("type")))
    if current is not None and (current.get("status"), current.get("reason")) == (
        new.get("status"), new.get("reason")
    ):
        return
    if current is not None and current.get("status") == new.get("status"):
        new = {**new, "lastTransitionTime": current.get("lastTransitionTime")}
    remove_condition(status, text(new.get("type")))
    status["conditions"] = [*as_list(status.get("conditions")), new]


def remove_condition(status: dict[str, Any], kind: str) -> None:
    kept = [c for c in as_list(status.get("conditions")) if as_dict(c).get("type") != kind]
    if kept:
        status["conditions"] = kept
    else:
        status.pop("conditions", None)


def has_progress_deadline(deployment: Obj) -> bool:
    deadline = as_dict(deployment.get("spec")).get("progressDeadlineSeconds")
    return isinstance(deadline, int) and deadline != _INT32_MAX


def deployment_complete(deployment: Obj, status: Mapping[str, Any]) -> bool:
    """``DeploymentComplete``: every desired pod updated, present and available, and the
    newest generation observed."""
    desired = desired_replicas(deployment)
    return (
        _int(status.get("updatedReplicas")) == desired
        and _int(status.get("replicas")) == desired
        and _int(status.get("availableReplicas")) == desired
        and _int(status.get("observedGeneration")) >= _int(meta(deployment).get("generation"))
    )


def deployment_progressing(deployment: Obj, status: Mapping[str, Any]) -> bool:
    """``DeploymentProgressing``: more pods updated, fewer old ones, or more ready or available
    than the stored status says."""
    old = as_dict(deployment.get("status"))
    old_old = _int(old.get("replicas")) - _int(old.get("updatedReplicas"))
    new_old = _int(status.get("replicas")) - _int(status.get("updatedReplicas"))
    return (
        _int(status.get("updatedReplicas")) > _int(old.get("updatedReplicas"))
        or new_old < old_old
        or _int(status.get("readyReplicas")) > _int(old.get("readyReplicas"))
        or _int(status.get("availableReplicas")) > _int(old.get("availableReplicas"))
    )


def progress_deadline_at(deployment: Obj, status: Mapping[str, Any]) -> datetime | None:
    """When the Progressing condition's deadline passes (its last update plus
    ``progressDeadlineSeconds``), or None without a deadline or a condition."""
    if not has_progress_deadline(deployment):
        return None
    current = condition(status, PROGRESSING)
    stamp = as_dict(current).get("lastUpdateTime")
    if current is None or not isinstance(stamp, str) or not stamp:
        return None
    seconds = _int(as_dict(deployment.get("spec")).get("progressDeadlineSeconds"))
    try:
        return parse_time(stamp) + timedelta(seconds=seconds)
    except ValueError:
        return None


def deployment_timed_out(deployment: Obj, status: Mapping[str, Any], now: datetime) -> bool:
    """``DeploymentTimedOut``: the Progressing condition was last updated longer ago than the
    progress deadline (and the rollout has not completed)."""
    current = condition(status, PROGRESSING)
    if current is None or not has_progress_deadline(deployment):
        return False
    if current.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if current.get("reason") == TIMED_OUT_REASON:
        return True
    deadline = progress_deadline_at(deployment, status)
    return deadline is not None and deadline < now
