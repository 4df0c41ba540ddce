"""apps/v1 validation: Deployments, ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions.

Upstream's ``pkg/apis/apps/validation`` with its messages and field paths, run on the defaulted
object (the strategies in :mod:`fakeapi.registry.kinds.apps` default first, as upstream's
decoding does). Updates add the immutability rules of the apps/v1 strategies: a selector never
changes, and a StatefulSet's spec changes only in the fields upstream lists.
"""

from __future__ import annotations

from typing import Any

from fakeapi.objects import as_dict, as_list
from fakeapi.rules.intstr import int_or_percent_value
from fakeapi.validation.field import FieldError, Path, forbidden, invalid, not_supported, required
from fakeapi.validation.meta import validate_immutable
from fakeapi.validation.workloads import (
    validate_int_or_percent,
    validate_label_selector,
    validate_nonnegative,
    validate_not_more_than_100_percent,
    validate_pod_template,
    validate_restart_policy_always,
    validate_selected_template,
)

__all__ = [
    "validate_controller_revision",
    "validate_controller_revision_update",
    "validate_daemon_set",
    "validate_daemon_set_status",
    "validate_daemon_set_update",
    "validate_deployment",
    "validate_deployment_status",
    "validate_deployment_update",
    "validate_replica_set",
    "validate_replica_set_status",
    "validate_replica_set_update",
    "validate_replicas_status",
    "validate_stateful_set",
    "validate_stateful_set_status",
    "validate_stateful_set_update",
]

_SPEC = Path("spec")
_STATUS = Path("status")
_GREATER_THAN_REPLICAS = "cannot be greater than status.replicas"
#: the StatefulSet spec fields an update may change (``ValidateStatefulSetUpdate``)
_STATEFUL_SET_MUTABLE = (
    "replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)


def _selector_errors(spec: dict[str, Any], kind: str) -> list[FieldError]:
    """A required, valid, non-empty selector (``empty selector is invalid for <kind>``)."""
    selector = spec.get("selector")
    path = _SPEC.child("selector")
    if selector is None:
        return [required(path)]
    errors = validate_label_selector(selector, path)
    selector = as_dict(selector)
    if not as_dict(selector.get("matchLabels")) and not as_list(selector.get("matchExpressions")):
        errors.append(invalid(path, selector, f"empty selector is invalid for {kind}"))
    return errors


def _replica_template_errors(spec: dict[str, Any], kind: str) -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet``: selected labels, a valid template, restart
    policy Always, no active deadline."""
    path = _SPEC.child("template")
    template = spec.get("template")
    if not isinstance(template, dict):
        return [required(path)]
    errors = validate_selected_template(spec.get("selector"), template, path)
    errors += validate_pod_template(template, path)
    errors += validate_restart_policy_always(template, path, kind)
    return errors


# --- Deployment ----------------------------------------------------------------------------------


def _strategy_errors(strategy: dict[str, Any]) -> list[FieldError]:
    path = _SPEC.child("strategy")
    kind = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [forbidden(path.child("rollingUpdate"),
                              "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [required(path.child("rollingUpdate"),
                             "this should be defaulted and never be nil")]
        rolling = as_dict(rolling)
        at = path.child("rollingUpdate")
        surge, unavailable = rolling.get("maxSurge"), rolling.get("maxUnavailable")
        errors = validate_int_or_percent(unavailable, at.child("maxUnavailable"))
        errors += validate_int_or_percent(surge, at.child("maxSurge"))
        if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
            errors.append(invalid(at.child("maxUnavailable"), unavailable,
                                  "may not be 0 when `maxSurge` is 0"))
        errors += validate_not_more_than_100_percent(unavailable, at.child("maxUnavailable"))
        return errors
    return [not_supported(path, strategy, ["Recreate", "RollingUpdate"])]


def validate_deployment(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateDeploymentSpec`` of a defaulted Deployment."""
    spec = as_dict(obj.get("spec"))
    errors = validate_nonnegative(spec.get("replicas"), _SPEC.child("replicas"))
    errors += _selector_errors(spec, "deployment")
    errors += _replica_template_errors(spec, "ReplicaSet")
    errors += _strategy_errors(as_dict(spec.get("strategy")))
    min_ready = spec.get("minReadySeconds") or 0
    errors += validate_nonnegative(min_ready, _SPEC.child("minReadySeconds"))
    errors += validate_nonnegative(
        spec.get("revisionHistoryLimit"), _SPEC.child("revisionHistoryLimit")
    )
    deadline = spec.get("progressDeadlineSeconds")
    if isinstance(deadline, int):
        at = _SPEC.child("progressDeadlineSeconds")
        errors += validate_nonnegative(deadline, at)
        if isinstance(min_ready, int) and deadline <= min_ready:
            errors.append(invalid(at, deadline, "must be greater than minReadySeconds"))
    return errors


def validate_deployment_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The Deployment's own rules, and its selector is immutable (apps/v1)."""
    errors = validate_deployment(new)
    errors += validate_immutable(
        as_dict(new.get("spec")).get("selector"), as_dict(old.get("spec")).get("selector"),
        _SPEC.child("selector"),
    )
    return errors


def validate_replicas_status(
    status: dict[str, Any], counts: tuple[str, ...], *, ready_field: str = "readyReplicas"
) -> list[FieldError]:
    """Counts are non-negative and none exceeds ``replicas``; available ones not the ready."""
    errors: list[FieldError] = []
    for name in ("replicas", *counts, "observedGeneration", "collisionCount"):
        errors += validate_nonnegative(status.get(name), _STATUS.child(name))
    replicas = status.get("replicas") or 0
    for name in counts:
        value = status.get(name) or 0
        if isinstance(value, int) and isinstance(replicas, int) and value > replicas:
            errors.append(invalid(_STATUS.child(name), value, _GREATER_THAN_REPLICAS))
    available = status.get("availableReplicas") or 0
    ready = status.get(ready_field) or 0
    if (
        "availableReplicas" in counts
        and isinstance(available, int)
        and isinstance(ready, int)
        and available > ready
    ):
        errors.append(invalid(_STATUS.child("availableReplicas"), available,
                              "cannot be greater than readyReplicas"))
    return errors


def _collision_count_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``IsDecremented``: a collision count never goes down (nor away)."""
    before = as_dict(old.get("status")).get("collisionCount")
    after = as_dict(new.get("status")).get("collisionCount")
    if isinstance(before, int) and (not isinstance(after, int) or after < before):
        return [invalid(_STATUS.child("collisionCount"), after or 0, "cannot be decremented")]
    return []


def validate_deployment_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    status = as_dict(new.get("status"))
    errors = validate_replicas_status(
        status, ("updatedReplicas", "readyReplicas", "availableReplicas")
    )
    errors += validate_nonnegative(
        status.get("unavailableReplicas"), _STATUS.child("unavailableReplicas")
    )
    return errors + _collision_count_errors(new, old)


# --- ReplicaSet ----------------------------------------------------------------------------------


def validate_replica_set(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateReplicaSetSpec`` (upstream says "deployment" of an empty selector here too)."""
    spec = as_dict(obj.get("spec"))
    errors = validate_nonnegative(spec.get("replicas"), _SPEC.child("replicas"))
    errors += validate_nonnegative(spec.get("minReadySeconds"), _SPEC.child("minReadySeconds"))
    errors += _selector_errors(spec, "deployment")
    errors += _replica_template_errors(spec, "ReplicaSet")
    return errors


def validate_replica_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_replica_set(new)
    errors += validate_immutable(
        as_dict(new.get("spec")).get("selector"), as_dict(old.get("spec")).get("selector"),
        _SPEC.child("selector"),
    )
    return errors


def validate_replica_set_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return validate_replicas_status(
        as_dict(new.get("status")),
        ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
    )


# --- StatefulSet ---------------------------------------------------------------------------------


def validate_stateful_set(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateStatefulSetSpec`` of a defaulted StatefulSet."""
    spec = as_dict(obj.get("spec"))
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if not policy:
        errors.append(required(_SPEC.child("podManagementPolicy")))
    elif policy not in ("OrderedReady", "Parallel"):
        errors.append(invalid(_SPEC.child("podManagementPolicy"), policy,
                              "must be 'OrderedReady' or 'Parallel'"))
    strategy = as_dict(spec.get("updateStrategy"))
    at = _SPEC.child("updateStrategy")
    kind = strategy.get("type")
    if not kind:
        errors.append(required(at))
    elif kind == "OnDelete":
        if strategy.get("rollingUpdate") is not None:
            errors.append(invalid(at.child("rollingUpdate"), strategy["rollingUpdate"],
                                  "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if rolling is not None:
            rolling = as_dict(rolling)
            ru = at.child("rollingUpdate")
            errors += validate_nonnegative(rolling.get("partition"), ru.child("partition"))
            unavailable = rolling.get("maxUnavailable")
            if unavailable is not None:
                errors += validate_int_or_percent(unavailable, ru.child("maxUnavailable"))
                if int_or_percent_value(unavailable) == 0:
                    errors.append(invalid(ru.child("maxUnavailable"), unavailable, "cannot be 0"))
                errors += validate_not_more_than_100_percent(
                    unavailable, ru.child("maxUnavailable")
                )
    else:
        errors.append(invalid(at, strategy, "must be 'RollingUpdate' or 'OnDelete'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        retention = as_dict(retention)
        for name in ("whenDeleted", "whenScaled"):
            value = retention.get(name)
            if value not in ("Retain", "Delete"):
                errors.append(not_supported(
                    _SPEC.child("persistentVolumeClaimRetentionPolicy", name), value or "",
                    ["Retain", "Delete"],
                ))
    errors += validate_nonnegative(spec.get("replicas"), _SPEC.child("replicas"))
    errors += validate_nonnegative(spec.get("minReadySeconds"), _SPEC.child("minReadySeconds"))
    ordinals = spec.get("ordinals")
    if ordinals is not None:
        errors += validate_nonnegative(as_dict(ordinals).get("start"),
                                       _SPEC.child("ordinals.start"))
    errors += _selector_errors(spec, "statefulset")
    path = _SPEC.child("template")
    template = spec.get("template")
    if not isinstance(template, dict):
        errors.append(required(path))
    else:
        errors += validate_selected_template(spec.get("selector"), template, path)
        errors += validate_pod_template(template, path)
        errors += validate_restart_policy_always(template, path, "StatefulSet")
    return errors


def validate_stateful_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_stateful_set(new)
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    rest_new = {k: v for k, v in new_spec.items() if k not in _STATEFUL_SET_MUTABLE}
    rest_old = {k: v for k, v in old_spec.items() if k not in _STATEFUL_SET_MUTABLE}
    if rest_new != rest_old:
        errors.append(forbidden(
            _SPEC,
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
            "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden",
        ))
    return errors


def validate_stateful_set_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_replicas_status(
        as_dict(new.get("status")),
        ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
    )
    return errors + _collision_count_errors(new, old)


# --- DaemonSet -----------------------------------------------------------------------------------


def _daemon_strategy_errors(strategy: dict[str, Any]) -> list[FieldError]:
    path = _SPEC.child("updateStrategy")
    kind = strategy.get("type")
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        return [not_supported(path, strategy, ["RollingUpdate", "OnDelete"])]
    rolling = strategy.get("rollingUpdate")
    at = path.child("rollingUpdate")
    if rolling is None:
        return [required(at)]
    rolling = as_dict(rolling)
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errors = validate_int_or_percent(unavailable, at.child("maxUnavailable"))
    errors += validate_int_or_percent(surge, at.child("maxSurge"))
    errors += validate_not_more_than_100_percent(unavailable, at.child("maxUnavailable"))
    errors += validate_not_more_than_100_percent(surge, at.child("maxSurge"))
    has_unavailable = int_or_percent_value(unavailable) != 0
    has_surge = int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errors.append(invalid(at.child("maxSurge"), surge,
                              "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errors.append(required(at.child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
    return errors


def validate_daemon_set(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidateDaemonSetSpec`` of a defaulted DaemonSet."""
    spec = as_dict(obj.get("spec"))
    selector = spec.get("selector")
    path = _SPEC.child("template")
    errors: list[FieldError] = []
    if selector is None:
        errors.append(required(_SPEC.child("selector")))
    else:
        errors += validate_label_selector(selector, _SPEC.child("selector"))
    errors += validate_selected_template(selector, spec.get("template"), path)
    selector = as_dict(selector)
    if spec.get("selector") is not None and not as_dict(selector.get("matchLabels")) and not (
        as_list(selector.get("matchExpressions"))
    ):
        errors.append(invalid(_SPEC.child("selector"), selector,
                              "empty selector is invalid for daemonset"))
    errors += validate_pod_template(spec.get("template"), path)
    errors += validate_restart_policy_always(spec.get("template"), path, "DaemonSet")
    errors += validate_nonnegative(spec.get("minReadySeconds"), _SPEC.child("minReadySeconds"))
    errors += _daemon_strategy_errors(as_dict(spec.get("updateStrategy")))
    errors += validate_nonnegative(
        spec.get("revisionHistoryLimit"), _SPEC.child("revisionHistoryLimit")
    )
    return errors


def validate_daemon_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = validate_daemon_set(new)
    errors += validate_immutable(
        as_dict(new.get("spec")).get("selector"), as_dict(old.get("spec")).get("selector"),
        _SPEC.child("selector"),
    )
    return errors


def validate_daemon_set_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    status = as_dict(new.get("status"))
    errors: list[FieldError] = []
    for name in (
        "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
        "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
        "collisionCount",
    ):
        errors += validate_nonnegative(status.get(name), _STATUS.child(name))
    return errors + _collision_count_errors(new, old)


# --- ControllerRevision --------------------------------------------------------------------------


def validate_controller_revision(obj: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    if obj.get("data") is None:
        errors.append(required(Path("data"), "data is mandatory"))
    errors += validate_nonnegative(obj.get("revision"), Path("revision"))
    return errors


def validate_controller_revision_update(
    new: dict[str, Any], old: dict[str, Any]
) -> list[FieldError]:
    errors = validate_controller_revision(new)
    errors += validate_immutable(new.get("data"), old.get("data"), Path("data"))
    return errors
