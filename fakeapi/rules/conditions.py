"""``metav1.Condition`` lists (apimachinery's ``meta`` condition helpers).

Mirrors ``k8s.io/apimachinery/pkg/api/meta`` ``SetStatusCondition``, ``FindStatusCondition`` and
``IsStatusConditionTrue`` over JSON-shaped condition lists. Objects are shared and never mutated,
so :func:`set_status_condition` returns a new list (the other conditions shared, the changed one
copied) instead of updating in place: ``lastTransitionTime`` changes only when the status does,
and ``observedGeneration`` is written only when given.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from fakeapi.timefmt import format_time

__all__ = ["find_status_condition", "is_status_condition_true", "set_status_condition"]


def find_status_condition(
    conditions: Iterable[Any], condition_type: str
) -> dict[str, Any] | None:
    """The condition of ``condition_type``, or None (``FindStatusCondition``)."""
    for condition in conditions:
        if isinstance(condition, dict) and condition.get("type") == condition_type:
            return condition
    return None


def is_status_condition_true(conditions: Iterable[Any], condition_type: str) -> bool:
    """Whether the condition of ``condition_type`` is there with status ``True``."""
    condition = find_status_condition(conditions, condition_type)
    return condition is not None and condition.get("status") == "True"


def set_status_condition(
    conditions: Iterable[dict[str, Any]],
    *,
    type: str,
    status: str,
    reason: str,
    message: str,
    now: datetime,
    observed_generation: int | None = None,
) -> list[dict[str, Any]]:
    """``conditions`` with the one of ``type`` set, as ``SetStatusCondition``:
    ``lastTransitionTime`` changes only when the status does."""
    out: list[dict[str, Any]] = []
    found = False
    for condition in conditions:
        if condition.get("type") != type:
            out.append(condition)
            continue
        found = True
        updated = dict(condition)
        if updated.get("status") != status:
            updated["lastTransitionTime"] = format_time(now)
        updated.update(status=status, reason=reason, message=message)
        if observed_generation is not None:
            updated["observedGeneration"] = observed_generation
        out.append(updated)
    if not found:
        new: dict[str, Any] = {
            "type": type,
            "status": status,
            "reason": reason,
            "message": message,
            "lastTransitionTime": format_time(now),
        }
        if observed_generation is not None:
            new["observedGeneration"] = observed_generation
        out.append(new)
    return out
