"""Pod states the workload controllers count by: ready, available, active, terminating.

Upstream keeps these in ``k8s.io/kubernetes/pkg/api/v1/pod`` (``IsPodReady``,
``IsPodAvailable``, ``GetPodReadyCondition``) and ``pkg/controller`` (``IsPodActive``,
``IsPodTerminating``); every replicated-workload controller, the disruption controller and the
printers count pods by them, so they are defined once here:

- **ready**: the ``Ready`` condition is ``True``;
- **available**: ready for at least ``minReadySeconds`` (measured from the condition's
  ``lastTransitionTime``; with 0 a ready pod is available at once);
- **active**: not ``Succeeded`` or ``Failed`` and not being deleted;
- **terminating**: being deleted but not yet ``Succeeded`` or ``Failed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from fakeapi.objects import as_dict, as_list, meta, text
from fakeapi.timefmt import parse_time

__all__ = [
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "is_pod_terminal",
    "is_pod_terminating",
    "pod_phase",
    "pod_ready_condition",
    "ready_since",
]

_TERMINAL = ("Succeeded", "Failed")


def pod_phase(pod: Mapping[str, Any]) -> str:
    return text(as_dict(pod.get("status")).get("phase"))


def pod_ready_condition(pod: Mapping[str, Any]) -> dict[str, Any] | None:
    """``GetPodReadyCondition``: the pod's ``Ready`` condition, if it has one."""
    for condition in as_list(as_dict(pod.get("status")).get("conditions")):
        if isinstance(condition, dict) and condition.get("type") == "Ready":
            return condition
    return None


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    """``IsPodReady``: the ``Ready`` condition is ``True``."""
    condition = pod_ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def ready_since(pod: Mapping[str, Any]) -> datetime | None:
    """When a ready pod became ready (its condition's ``lastTransitionTime``), else None."""
    condition = pod_ready_condition(pod)
    if condition is None or condition.get("status") != "True":
        return None
    stamp = condition.get("lastTransitionTime")
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        return parse_time(stamp)
    except ValueError:
        return None


def is_pod_available(pod: Mapping[str, Any], *, min_ready_seconds: int, now: datetime) -> bool:
    """``IsPodAvailable``: ready, and for at least ``min_ready_seconds`` before ``now``."""
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds <= 0:
        return True
    since = ready_since(pod)
    return since is not None and since + timedelta(seconds=min_ready_seconds) < now


def is_pod_terminal(pod: Mapping[str, Any]) -> bool:
    """The pod finished: ``Succeeded`` or ``Failed``."""
    return pod_phase(pod) in _TERMINAL


def is_pod_active(pod: Mapping[str, Any]) -> bool:
    """``IsPodActive``: not finished and not being deleted."""
    return not is_pod_terminal(pod) and not meta(pod).get("deletionTimestamp")


def is_pod_terminating(pod: Mapping[str, Any]) -> bool:
    """``IsPodTerminating``: being deleted but not finished yet."""
    return not is_pod_terminal(pod) and bool(meta(pod).get("deletionTimestamp"))
