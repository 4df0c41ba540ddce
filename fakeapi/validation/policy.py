"""policy/v1 validation: PodDisruptionBudgets.

Upstream's ``pkg/apis/policy/validation``: at most one of ``minAvailable`` and
``maxUnavailable``, each a non-negative count or a percentage up to 100%, a valid selector, a
supported unhealthy-pod eviction policy; status counts are non-negative.
"""

from __future__ import annotations

from typing import Any

from fakeapi.objects import as_dict
from fakeapi.validation.field import FieldError, Path, invalid, not_supported
from fakeapi.validation.workloads import (
    validate_int_or_percent,
    validate_label_selector,
    validate_nonnegative,
    validate_not_more_than_100_percent,
)

__all__ = ["validate_pod_disruption_budget", "validate_pod_disruption_budget_status"]

_SPEC = Path("spec")
_POLICIES = ("AlwaysAllow", "IfHealthyBudget")


def validate_pod_disruption_budget(obj: dict[str, Any]) -> list[FieldError]:
    spec = as_dict(obj.get("spec"))
    errors: list[FieldError] = []
    min_available, max_unavailable = spec.get("minAvailable"), spec.get("maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        errors.append(invalid(_SPEC, spec, "minAvailable and maxUnavailable cannot be both set"))
    for name, value in (("minAvailable", min_available), ("maxUnavailable", max_unavailable)):
        errors += validate_int_or_percent(value, _SPEC.child(name))
        errors += validate_not_more_than_100_percent(value, _SPEC.child(name))
    if spec.get("selector") is not None:
        errors += validate_label_selector(spec["selector"], _SPEC.child("selector"))
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _POLICIES:
        errors.append(not_supported(_SPEC.child("unhealthyPodEvictionPolicy"), policy, _POLICIES))
    return errors


def validate_pod_disruption_budget_status(obj: dict[str, Any]) -> list[FieldError]:
    status = as_dict(obj.get("status"))
    at = Path("status")
    errors: list[FieldError] = []
    for name in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods",
                 "observedGeneration"):
        errors += validate_nonnegative(status.get(name), at.child(name))
    return errors
