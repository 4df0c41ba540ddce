"""scheduling.k8s.io/v1 PriorityClass: named pod priorities the scheduler orders and preempts by."""

from __future__ import annotations

from typing import Annotated

from fakeapi.models.base import GoType, Int32, K8sModel
from fakeapi.models.meta import ObjectMeta

__all__ = ["PriorityClass", "OPENAPI_PREFIX"]

OPENAPI_PREFIX = "io.k8s.api.scheduling.v1"


class PriorityClass(K8sModel):
    """Maps a priority class name to the integer priority of the pods that name it."""

    api_version: str | None = None
    """The versioned schema of this representation of an object."""
    kind: str | None = None
    """The REST resource this object represents."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    value: Int32
    """The priority of pods that use this class; higher schedules first. At most 1000000000
    for user-defined classes."""
    global_default: bool | None = None
    """Pods that name no priority class get this one; at most one class may set it."""
    description: str | None = None
    """When this class should be used, for people."""
    preemption_policy: Annotated[str | None, GoType("v1.PreemptionPolicy")] = None
    """PreemptLowerPriority (the default) or Never."""
