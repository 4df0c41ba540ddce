"""Which PodGroup a pod belongs to, as every component reads it.

A pod joins a PodGroup through ``spec.workloadRef.podGroupName`` (the KEP-5729 seed shape fakeapi
serves) or upstream's ``spec.schedulingGroup.podGroupName``; both are accepted (docs/keps.md), so
the scheduler, the controllers and the kubelet must all read both, and read them alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["pod_group_name"]


def pod_group_name(pod: Mapping[str, Any]) -> str:
    """The name of the pod's PodGroup (in the pod's namespace); "" when it has none."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return ""
    for field in ("workloadRef", "schedulingGroup"):
        ref = spec.get(field)
        if isinstance(ref, dict):
            name = ref.get("podGroupName")
            if isinstance(name, str) and name:
                return name
    return ""
